// Table of contents: marks the link of the section being read (aria-current="true"), the
// last heading above the reading line. On wide screens the TOC is an open sticky sidebar.
const toc = document.querySelector(".toc");
const details = toc?.querySelector("details");
if (details) {
  const links = [...toc.querySelectorAll('a[href^="#"]')];
  const heads = links.map((a) => document.getElementById(decodeURIComponent(a.hash.slice(1))));
  const wide = matchMedia("(min-width: 75rem)");
  let current, clicked;

  const mark = (link) => {
    if (link === current) return;
    current?.removeAttribute("aria-current");
    link?.setAttribute("aria-current", "true");
    current = link;
    // In a long sidebar, bring the mark into the sidebar's view (never scroll the page).
    if (link && wide.matches) {
      const top = link.offsetTop - toc.offsetTop;
      if (top < toc.scrollTop || top > toc.scrollTop + toc.clientHeight - 40) {
        toc.scrollTop = top - toc.clientHeight / 2;
      }
    }
  };

  const update = () => {
    // A section near the end may never reach the line: a clicked link stays marked there.
    if (clicked && innerHeight + scrollY >= document.documentElement.scrollHeight - 2) return;
    clicked = null;
    mark(links.findLast((_, i) => heads[i]?.getBoundingClientRect().top <= innerHeight / 4));
  };

  // The band reaches from far above the page down to the reading line, so a heading that
  // crosses the line, either way and by any jump, reports.
  const observer = new IntersectionObserver(update, { rootMargin: "99999px 0px -75% 0px" });
  heads.forEach((head) => head && observer.observe(head));
  toc.addEventListener("click", (event) => {
    const link = event.target.closest("a");
    if (link) mark(clicked = link);
  });
  details.firstElementChild.addEventListener("click", (event) => {
    if (wide.matches) event.preventDefault(); // the sidebar stays open
  });
  const open = () => { if (wide.matches) details.open = true; };
  wide.addEventListener("change", open);
  open();
}
