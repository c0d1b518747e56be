// Widget scripts on demand. A page lists the scripts of its widgets as data blocks,
//   <script type="text/plain" data-widget-script="URL" data-near="SELECTOR"></script>
// (templates/needs/*.html), and this module imports each one when a widget it serves
// comes within about a screen of the viewport, or when the pointer or the keyboard focus
// reaches one, whichever is first; nothing is fetched for a widget the reader never comes
// near. A script without data-near (previews) loads when the browser is first idle or on
// the first interaction. The data blocks keep the scripts' settings (data-pyodide-url, …);
// once a script has run, its block gets data-loaded.
const MARGIN = "600px 0px";
const blocks = [...document.querySelectorAll("script[data-widget-script]")];
const done = new Set();

function load(block) {
  if (done.has(block)) return;
  done.add(block);
  import(new URL(block.dataset.widgetScript, document.baseURI).href)
    .then(() => { block.dataset.loaded = ""; }); // it has run: tests and scripts can wait
}

const near = blocks.filter((b) => b.dataset.near);
const idle = blocks.filter((b) => !b.dataset.near);

const observer = "IntersectionObserver" in window && new IntersectionObserver((seen) => {
  for (const entry of seen) {
    if (!entry.isIntersecting) continue;
    observer.unobserve(entry.target);
    for (const block of near) if (entry.target.matches(block.dataset.near)) load(block);
  }
}, { rootMargin: MARGIN });

for (const block of near) {
  const widgets = document.querySelectorAll(block.dataset.near);
  if (!widgets.length) continue;
  if (!observer) load(block);
  else widgets.forEach((w) => observer.observe(w));
}

function reached(event) {
  const target = event.target instanceof Element ? event.target : null;
  for (const block of near) if (target?.closest(block.dataset.near)) load(block);
  idle.forEach(load);
}
for (const type of ["pointerover", "pointerdown", "focusin", "keydown"]) {
  document.addEventListener(type, reached, { capture: true, passive: true });
}

if (idle.length) {
  const later = window.requestIdleCallback || ((f) => setTimeout(f, 200));
  later(() => idle.forEach(load), { timeout: 2000 });
}
