// Charts made live on demand (docs/charts.md). Each <figure class="chart"> holds a box the
// build filled (Vega's SVGs in light and dark, or a Plotly or Bokeh stand-in) and the chart's
// JSON; when a box comes within 200px of the viewport as the reader scrolls, or the pointer
// or focus reaches it, its library is loaded once from the site's vendor/ folder and the
// live chart, in the reader's theme, takes the static content's place in the same box. On "blogbuild:theme" the
// live charts are drawn again. If a library does not load or a chart does not draw, the
// static content stays and the console says why, once.
const tag = document.querySelector("script[data-widget-script][data-vendor-url]");
const vendor = new URL(tag?.dataset.vendorUrl || "/vendor/", document.baseURI);
const themed = () => (document.documentElement.dataset.theme === "dark" ? "dark" : "light");
const loads = new Map();  // script path under vendor/ -> promise
const warned = new Set();

function warn(what, error) {
  if (warned.has(what)) return;
  warned.add(what);
  console.warn(`blogbuild: ${what}; the chart stays as the build drew it.`, error);
}

// Classic scripts, downloaded together and run in the order given (async = false), each once.
function scripts(paths) {
  return Promise.all(paths.map((path) => {
    if (!loads.has(path)) {
      loads.set(path, new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = new URL(path, vendor).href;
        script.async = false;
        script.onload = resolve;
        script.onerror = () => reject(new Error(`${script.src} did not load`));
        document.head.append(script);
      }));
    }
    return loads.get(path);
  }));
}

// Inline data only: every URL a spec would load (data, images) is refused. A link (a mark's
// href) follows the rules of a post's links: a page of this site or another, never a
// script (javascript:, data: and the like).
const LINK = /^(?:https?:|mailto:|[^:]*$)/i;
function refusingLoader() {
  const loader = window.vega.loader();
  const refuse = (uri) => Promise.reject(new Error(`charts load no URL (${uri})`));
  loader.load = refuse;
  loader.sanitize = (uri, options) => (options?.context === "href"
    && LINK.test(String(uri).trim()) ? Promise.resolve({ href: String(uri).trim() })
    : refuse(uri));
  return loader;
}

// A drawing in `box`, made unseen over the content it replaces, shown once it is drawn.
async function swap(box, draw) {
  const live = document.createElement("div");
  live.className = "chart-live";
  live.hidden = true;
  box.append(live);
  try {
    await draw(live);
  } catch (error) {
    live.remove();
    throw error;
  }
  live.hidden = false;
  box.replaceChildren(live);
  return live;
}

const vega = {
  scripts: () => ["vega/vega.min.js", "vega/vega-lite.min.js", "vega/vega-embed.min.js"],
  async draw(chart) {
    const { box, data } = chart;
    let result;
    await swap(box, async (live) => {
      // vega-embed's build carries vega-interpreter: with ast, expressions are interpreted,
      // never compiled to functions, so they reach nothing but Vega's own.
      result = await window.vegaEmbed(live, data.spec, {
        mode: data.kind === "vega" ? "vega" : "vega-lite", renderer: "svg", actions: false,
        ast: true, config: data[themed()] || {}, loader: refusingLoader(),
        tooltip: { theme: "custom" }, defaultStyle: false,
      });
    });
    chart.view?.finalize();
    chart.view = result;
  },
};

const PLOTLY_BUNDLES = ["basic", "cartesian", "full"];
// One Plotly for the page: the largest bundle any of its figures asks for.
const plotlyBundle = () => PLOTLY_BUNDLES[Math.max(0, ...[...document.querySelectorAll(
  ".chart-box[data-chart=plotly]")].map((b) => PLOTLY_BUNDLES.indexOf(b.dataset.bundle)))];

const plotly = {
  scripts: () => [`plotly/plotly-${plotlyBundle()}.min.js`],
  async draw(chart) {
    const { box, data } = chart;
    const layout = { ...data.layout, ...data[themed()] };
    const config = { ...data.config, responsive: true, displaylogo: false,
      topojsonURL: new URL("plotly/topojson/", vendor).href };  // geo outlines: not elsewhere
    if (chart.plot) {
      await window.Plotly.react(chart.plot, data.data, layout, config);
      return;
    }
    chart.plot = await held(box, () => {
      const width = Number(box.dataset.width) || 0;
      if (width) box.style.width = `${width}px`;
      return swap(box, async (live) => {
        live.style.height = `${Number(box.dataset.height) || 450}px`;
        await window.Plotly.newPlot(live, data.data, layout, config);
      });
    }).catch((error) => {
      box.style.width = "";
      throw error;
    });
  },
};

let bokehRoots = 0;  // the ids of the elements Bokeh draws into
const bokeh = {
  scripts: () => ["bokeh/bokeh.min.js"],
  async draw(chart) {
    if (chart.drawn) return;  // a Bokeh document keeps its own theme
    const { box, data } = chart;
    // Widgets and tables are separate builds of BokehJS: loaded when a model is not known.
    if (modelNames(data.docs_json).some((name) => !window.Bokeh.Models.get(name))) {
      await scripts(["bokeh/bokeh-widgets.min.js", "bokeh/bokeh-tables.min.js"]);
    }
    await held(box, () => swap(box, async (live) => {
      // Bokeh's render items (or the contract's roots and root_ids), each root in a div of
      // the box's own.
      const items = data.render_items || [{ docid: Object.keys(data.docs_json)[0],
        roots: data.roots, root_ids: data.root_ids }];
      await window.Bokeh.embed.embed_items(data.docs_json, items.map((item) => {
        const ids = item.root_ids || Object.keys(item.roots || {});
        const roots = Object.fromEntries(ids.map((id) => {
          const div = document.createElement("div");
          div.id = `chart-bokeh-root-${++bokehRoots}`;
          live.append(div);
          return [id, div.id];
        }));
        return { docid: item.docid, roots, root_ids: ids };
      }));
    }));
    chart.drawn = true;
  },
};

// The names of the models a Bokeh document is made of ({"type": "object", "name": …}).
function modelNames(value, names = []) {
  if (Array.isArray(value)) value.forEach((item) => modelNames(item, names));
  else if (value && typeof value === "object") {
    if (value.type === "object" && typeof value.name === "string") names.push(value.name);
    Object.values(value).forEach((item) => modelNames(item, names));
  }
  return names;
}

// Runs `work` with the box held at the height its stand-in gave it (no layout shift while
// the live chart replaces it); then the box takes the live chart's own height.
async function held(box, work) {
  box.style.height = `${box.getBoundingClientRect().height}px`;
  try {
    return await work();
  } finally {
    box.style.height = "";
  }
}

const KINDS = { "vega-lite": vega, vega, plotly, bokeh };
const charts = [];

async function wake(chart) {
  if (chart.state) return;
  chart.state = "loading";
  const kind = KINDS[chart.box.dataset.chart];
  try {
    await scripts(kind.scripts());
  } catch (error) {
    chart.state = "failed";
    warn(`the ${chart.box.dataset.chart} library did not load`, error);
    return;
  }
  await draw(chart);
}

async function draw(chart) {
  try {
    await KINDS[chart.box.dataset.chart].draw(chart);
    chart.state = "live";
  } catch (error) {
    if (chart.state !== "live") chart.state = "failed";
    warn(`a ${chart.box.dataset.chart} chart did not draw (${chart.box.closest(".chart").id
      || charts.indexOf(chart) + 1})`, error);
  }
}

const near = window.IntersectionObserver && new IntersectionObserver((seen) => {
  for (const entry of seen) {
    if (!entry.isIntersecting) continue;
    near.unobserve(entry.target);
    wake(charts.find((chart) => chart.box === entry.target));
  }
}, { rootMargin: "200px 0px" });

// Every chart under `root` not seen yet comes alive when it is near or touched (the page's
// own at first; a runnable block's when it has run in the browser: js/runnable.js).
export function watch(root = document) {
  for (const box of root.querySelectorAll(".chart-box[data-chart]")) {
    const json = box.closest(".chart")?.querySelector("script.chart-data");
    if (!json || !KINDS[box.dataset.chart] || charts.some((c) => c.box === box)) continue;
    let data;
    try {
      data = JSON.parse(json.textContent);
    } catch (error) {
      warn("a chart's data could not be read", error);
      continue;
    }
    const chart = { box, data };
    charts.push(chart);
    const scroll = box.closest(".chart-scroll") || box;
    for (const type of ["pointerover", "pointerdown", "focusin"]) {
      scroll.addEventListener(type, () => wake(chart), { once: true, passive: true });
    }
    if (!near) wake(chart);
    else if (scrolled) near.observe(box);
  }
}

// A chart is reached when the reader scrolls to it: those in view when the page opens wait
// for the first scroll (or a touch), so a reader who only reads the first screen loads no
// library, and the page's first seconds are its own.
// (js/widgets.js imports this module when a chart comes near, often after that scroll.)
let scrolled = window.scrollY > 0;
addEventListener("scroll", () => {
  scrolled = true;
  for (const chart of charts) if (!chart.state) near?.observe(chart.box);
}, { once: true, passive: true });

watch();

addEventListener("blogbuild:theme", () => {
  for (const chart of charts) if (chart.state === "live") draw(chart);
});
