// Table of contents: marks the link of the section being read (aria-current="true"); the
// last heading above the reading line wins. On wide screens the TOC is a sticky sidebar
// (main.css) that stays open.
const toc = document.querySelector(".toc");
const details = toc && toc.querySelector("details");
if (details) {
  const links = [...toc.querySelectorAll('a[href^="#"]')];
  const heads = links.map((a) => document.getElementById(decodeURIComponent(a.hash.slice(1))));
  const wide = matchMedia("(min-width: 75rem)");
  let current = null;
  let clicked = null;

  const mark = (link) => {
    if (link === current) return;
    current?.removeAttribute("aria-current");
    link?.setAttribute("aria-current", "true");
    current = link;
    // Keep the mark in sight in a long sidebar without scrolling the page.
    if (link && wide.matches && toc.scrollHeight > toc.clientHeight) {
      const top = link.offsetTop - toc.offsetTop;
      if (top < toc.scrollTop || top > toc.scrollTop + toc.clientHeight - link.offsetHeight) {
        toc.scrollTop = top - toc.clientHeight / 2;
      }
    }
  };

  const update = () => {
    const line = innerHeight / 4;
    let found = null;
    heads.forEach((head, i) => {
      if (head && head.getBoundingClientRect().top <= line) found = links[i];
    });
    // A section near the end cannot reach the line: a clicked link stays marked there.
    const atEnd = innerHeight + scrollY >= document.documentElement.scrollHeight - 2;
    if (clicked && atEnd) return mark(clicked);
    clicked = null;
    mark(found);
  };

  // The observed band reaches from far above the page to the reading line, so every
  // heading that crosses the line, in either direction and by any jump, reports.
  const observer = new IntersectionObserver(update, { rootMargin: "99999px 0px -75% 0px" });
  heads.forEach((head) => head && observer.observe(head));
  toc.addEventListener("click", (event) => {
    const link = event.target.closest("a");
    if (link) { clicked = link; mark(link); }
  });

  details.querySelector("summary").addEventListener("click", (event) => {
    if (wide.matches) event.preventDefault();
  });
  const keepOpen = () => { if (wide.matches) details.open = true; };
  wide.addEventListener("change", keepOpen);
  keepOpen();
}
