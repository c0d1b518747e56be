// Widget scripts on demand (docs/widgets.md): each <script type="text/plain"
// data-widget-script="URL" data-near="SELECTOR"> is imported when such a widget comes within
// 600px of the viewport, or the pointer or focus reaches one; without data-near, when the
// browser is first idle or on the first interaction. Once run, the block gets data-loaded.
const blocks = [...document.querySelectorAll("script[data-widget-script]")];
const near = blocks.filter((b) => b.dataset.near);
const idle = blocks.filter((b) => !b.dataset.near);
const done = new Set();

function load(b) {
  if (done.has(b)) return;
  done.add(b);
  import(new URL(b.dataset.widgetScript, document.baseURI).href).then(() => { b.dataset.loaded = ""; });
}

const io = window.IntersectionObserver && new IntersectionObserver((seen) => {
  for (const e of seen) {
    if (!e.isIntersecting) continue;
    io.unobserve(e.target);
    for (const b of near) if (e.target.matches(b.dataset.near)) load(b);
  }
}, { rootMargin: "600px 0px" });

for (const b of near) {
  for (const w of document.querySelectorAll(b.dataset.near)) io ? io.observe(w) : load(b);
}

for (const type of ["pointerover", "pointerdown", "focusin", "keydown"]) {
  document.addEventListener(type, (event) => {
    const at = event.target instanceof Element ? event.target : null;
    for (const b of near) if (at?.closest(b.dataset.near)) load(b);
    idle.forEach(load);
  }, { capture: true, passive: true });
}

if (idle.length) (window.requestIdleCallback || setTimeout)(() => idle.forEach(load), { timeout: 2000 });
