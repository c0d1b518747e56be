// giscus comments on demand: giscus.app and GitHub hear nothing from this page until the
// reader clicks "Load comments" or scrolls the section into view. The settings come from
// data-giscus-* attributes of the section; only the keys giscus knows are copied.
const ORIGIN = "https://giscus.app";
const KEYS = ["repo", "repoId", "category", "categoryId", "mapping", "term", "strict",
  "reactionsEnabled", "emitMetadata", "inputPosition", "lang"];
const box = document.querySelector("[data-comments]");
const button = box?.querySelector(".comments-load");

/** The giscus theme for the page's theme: a fixed one, else the light or dark one. */
function themeFor(theme) {
  const d = box.dataset;
  return d.giscusTheme || (theme === "dark" ? d.themeDark : d.themeLight) || theme;
}

/** The page's resolved theme (set in <head>); a page without that script follows the system. */
function pageTheme() {
  const theme = document.documentElement.dataset.theme;
  if (theme) return theme === "dark" ? "dark" : "light";
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

let observer;

function load() {
  if (box.querySelector("script")) return;
  observer?.disconnect();
  const script = document.createElement("script");
  for (const key of KEYS) {
    const value = box.dataset["giscus" + key[0].toUpperCase() + key.slice(1)];
    if (value !== undefined) script.dataset[key] = value;
  }
  script.dataset.theme = themeFor(pageTheme());
  script.dataset.loading = "lazy";
  script.crossOrigin = "anonymous";
  script.async = true;
  script.src = ORIGIN + "/client.js";
  if (document.activeElement === button) { // it goes away: keep the keyboard's place
    box.tabIndex = -1;
    box.focus({ preventScroll: true });
  }
  button.remove();
  box.append(script);
}

if (box && button) {
  button.hidden = false;
  button.addEventListener("click", load);
  if ("IntersectionObserver" in window) {
    observer = new IntersectionObserver((seen) => seen.some((e) => e.isIntersecting) && load(),
      { rootMargin: "200px 0px" });
    observer.observe(box);
  }
  window.addEventListener("blogbuild:theme", (event) => {
    const frame = box.querySelector("iframe.giscus-frame");
    const theme = themeFor(event.detail?.theme === "dark" ? "dark" : "light");
    frame?.contentWindow?.postMessage({ giscus: { setConfig: { theme } } }, ORIGIN);
  });
}
