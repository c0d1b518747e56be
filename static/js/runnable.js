// Runnable Python blocks: Run / Stop / Edit / Reset around the highlighted code, output panel,
// status line. Pyodide runs in a module worker (runnable-worker.js) started on the first Run;
// nothing of the runtime is fetched before. The page's blocks share one interpreter, except
// blocks marked data-isolated="true", which get a fresh namespace on every run. A block that
// ran when the site was built comes with its output panel: it stays until the reader runs
// the block, and Reset brings it back.

const OUTPUT_LIMIT = 200000; // characters kept per block; a runaway print loop stays readable
const INTERRUPT_GRACE_MS = 3000; // after this, Stop terminates the worker instead (slow phones)
const INTERRUPT_REPEAT_MS = 100; // Stop asks this often until the block ends

const script = document.querySelector("script[data-pyodide-url]");

function siteURL(value, fallback) {
  // Resolve against the page (the template gives site paths with the sub-path applied).
  if (value) return new URL(value, document.baseURI).href;
  return new URL(fallback, import.meta.url).href;
}

const INDEX_URL = siteURL(script && script.dataset.pyodideUrl, "../vendor/pyodide/");
const PACKAGES_URL = siteURL(
  script && script.dataset.packagesUrl,
  "https://cdn.jsdelivr.net/pyodide/v" + ((script && script.dataset.pyodideVersion) || "") + "/full/",
);
const WORKER_URL = new URL("./runnable-worker.js", import.meta.url);
const CAN_INTERRUPT = self.crossOriginIsolated === true && typeof SharedArrayBuffer === "function";

function formatMs(ms) {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
}

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (text) node.textContent = text;
  return node;
}

// One worker = one interpreter; jobs run one at a time in the order of their Run clicks.
class Runtime {
  constructor() {
    this.worker = null;
    this.ready = false;
    this.queue = [];
    this.job = null;
    this.nextId = 1;
    this.interrupt = CAN_INTERRUPT ? new Int32Array(new SharedArrayBuffer(4)) : null;
    this.stopTimer = null;
    this.askTimer = null;
  }

  start() {
    const worker = new Worker(WORKER_URL, { type: "module", name: "blogbuild-python" });
    worker.onmessage = (event) => this.receive(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      const reason = event.message || "the worker script failed to start";
      this.fail(`The Python runtime stopped: ${reason}`);
    };
    worker.postMessage({
      type: "init",
      indexURL: INDEX_URL,
      packagesURL: PACKAGES_URL,
      interruptBuffer: this.interrupt,
    });
    this.worker = worker;
    this.ready = false;
  }

  submit(block, code) {
    const job = { id: this.nextId++, block, code, phase: "queued", restarted: false };
    this.queue.push(job);
    block.onQueued(job, this.job !== null);
    this.pump();
    return job;
  }

  pump() {
    if (this.job !== null || this.queue.length === 0) return;
    const job = this.queue.shift();
    this.job = job;
    if (this.worker === null) this.start();
    if (!this.ready) job.block.onPhase("loading-runtime");
    job.started = performance.now();
    this.worker.postMessage({
      type: "run",
      id: job.id,
      code: job.code,
      filename: job.block.filename,
      isolated: job.block.isolated,
    });
  }

  receive(message) {
    const job = this.job;
    if (job === null || message.id !== job.id) return;
    if (message.type === "status") {
      if (message.phase !== "loading-runtime") this.ready = true;
      job.phase = message.phase;
      job.block.onPhase(message.phase, message.detail);
    } else if (message.type === "output") {
      for (const [stream, text] of message.chunks) job.block.onOutput(stream, text);
    } else if (message.type === "item") {
      job.block.onItem(message.item);
    } else if (message.type === "done") {
      if (message.status !== "boot-error") this.ready = true;
      this.finish(job, message);
      if (message.restart) this.kill();
      this.pump();
    }
  }

  finish(job, message) {
    clearTimeout(this.stopTimer);
    clearInterval(this.askTimer);
    this.stopTimer = this.askTimer = null;
    this.job = null;
    job.block.onDone(message);
  }

  kill() {
    if (this.worker !== null) this.worker.terminate();
    this.worker = null;
    this.ready = false;
  }

  fail(reason) {
    const job = this.job;
    this.kill();
    if (job !== null) this.finish(job, { status: "boot-error", error: reason });
    this.pump();
  }

  stop(job) {
    const queued = this.queue.indexOf(job);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      job.block.onDone({ status: "cancelled" });
      return;
    }
    if (job !== this.job) return;
    if (this.interrupt !== null && job.phase === "running") {
      if (this.stopTimer !== null) return; // asked already
      // KeyboardInterrupt inside Python; the interpreter and its variables survive. A block
      // busy in Python reads the buffer; one waiting at an await gets the message. The
      // interrupt is written again until the block ends: Pyodide empties the buffer with a
      // read and then a write, so a Stop written between the two is lost, and the worker
      // lets a read outside the block's own code go (runnable-worker.js).
      const ask = () => Atomics.store(this.interrupt, 0, 2);
      ask();
      this.askTimer = setInterval(ask, INTERRUPT_REPEAT_MS);
      this.worker.postMessage({ type: "stop", id: job.id });
      job.block.onPhase("stopping");
      this.stopTimer = setTimeout(() => this.terminate(job), INTERRUPT_GRACE_MS);
    } else {
      this.terminate(job);
    }
  }

  terminate(job) {
    if (job !== this.job) return;
    const elapsed = performance.now() - job.started;
    this.kill();
    this.finish(job, { status: "terminated", ms: elapsed, phase: job.phase });
    this.pump();
  }
}

let runtime = null;
function getRuntime() {
  if (runtime === null) runtime = new Runtime();
  return runtime;
}

let blockCount = 0;

class RunnableBlock {
  constructor(root) {
    this.root = root;
    this.number = ++blockCount;
    this.filename = `block ${this.number}`;
    this.isolated = root.dataset.isolated === "true";
    this.view = root.querySelector(".codeblock") || root.querySelector("pre");
    const code = root.querySelector("pre code") || root.querySelector("pre");
    this.original = code ? code.textContent.replace(/\n$/, "") : "";
    this.job = null;
    this.outputSize = 0;
    this.truncated = false;
    this.segment = null;
    this.build();
  }

  build() {
    const root = this.root;
    root.classList.add("runnable-ready");
    const id = `runnable-${this.number}`;

    this.editor = el("textarea", {
      class: "runnable-editor",
      id: `${id}-editor`,
      spellcheck: "false",
      autocapitalize: "off",
      autocomplete: "off",
      "aria-label": `Python code of block ${this.number} (editable; Tab indents, Escape then ` +
        "Tab leaves, Ctrl+Enter runs)",
      wrap: "off",
    });
    this.editor.value = this.original;
    this.editor.hidden = true;

    this.toolbar = el("div", { class: "runnable-toolbar", role: "group",
                               "aria-label": `Python block ${this.number}` });
    this.runButton = el("button", { type: "button", class: "runnable-run" }, "Run");
    this.stopButton = el("button", { type: "button", class: "runnable-stop" }, "Stop");
    this.editButton = el("button", { type: "button", class: "runnable-edit",
                                     "aria-controls": `${id}-editor` }, "Edit");
    this.resetButton = el("button", { type: "button", class: "runnable-reset" }, "Reset");
    this.stopButton.disabled = true;
    this.resetButton.disabled = true;
    this.status = el("span", { class: "runnable-status", role: "status", "aria-live": "polite" });
    this.toolbar.append(this.runButton, this.stopButton, this.editButton, this.resetButton);
    if (this.isolated) {
      this.toolbar.append(el("span", {
        class: "runnable-badge",
        title: "This block starts from an empty namespace each time: it does not see the " +
          "variables of the other blocks, and they do not see its own.",
      }, "isolated"));
    }
    this.toolbar.append(this.status);

    const built = root.querySelector(":scope > .runnable-output");
    this.built = built ? Array.from(built.childNodes, (node) => node.cloneNode(true)) : null;
    this.output = built || el("div", { class: "runnable-output", role: "region" });
    this.output.id = `${id}-output`;
    this.output.setAttribute("aria-label", `Output of block ${this.number}`);
    this.output.hidden = built === null;

    if (this.view) this.view.after(this.editor);
    else root.append(this.editor);
    this.editor.after(this.toolbar);
    this.toolbar.after(this.output);

    this.runButton.addEventListener("click", () => this.run());
    this.stopButton.addEventListener("click", () => this.stop());
    this.editButton.addEventListener("click", () => this.edit());
    this.resetButton.addEventListener("click", () => this.reset());
    this.editor.addEventListener("keydown", (event) => this.onKey(event));
    this.editor.addEventListener("focus", () => {
      this.tabReleased = false;
    });
    this.editor.addEventListener("input", () => {
      this.fit();
      this.updateReset();
    });
  }

  code() {
    return this.editor.hidden ? this.original : this.editor.value;
  }

  edit() {
    if (this.view) this.view.hidden = true;
    this.editor.hidden = false;
    this.editButton.hidden = true;
    this.fit();
    this.editor.focus();
    this.updateReset();
  }

  fit() {
    this.editor.style.height = "auto";
    this.editor.style.height = `${this.editor.scrollHeight + 2}px`;
  }

  onKey(event) {
    const editor = this.editor;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey || event.shiftKey)) {
      event.preventDefault();
      this.run();
      return;
    }
    if (event.key === "Escape") {
      this.tabReleased = true; // keyboard users can leave the editor with Tab now
      return;
    }
    if (event.key !== "Tab" || this.tabReleased || event.altKey || event.ctrlKey ||
        event.metaKey) {
      return;
    }
    event.preventDefault();
    const { selectionStart: start, selectionEnd: end, value } = editor;
    const lineStart = value.lastIndexOf("\n", start - 1) + 1;
    if (event.shiftKey) {
      // Dedent every selected line by up to four spaces.
      const block = value.slice(lineStart, end);
      const lines = block.split("\n");
      let removedFirst = 0;
      let removed = 0;
      const dedented = lines.map((line, i) => {
        const cut = line.match(/^ {0,4}/)[0].length;
        if (i === 0) removedFirst = cut;
        removed += cut;
        return line.slice(cut);
      });
      editor.setRangeText(dedented.join("\n"), lineStart, end, "preserve");
      editor.selectionStart = Math.max(lineStart, start - removedFirst);
      editor.selectionEnd = Math.max(editor.selectionStart, end - removed);
    } else if (start !== end && value.slice(start, end).includes("\n")) {
      const block = value.slice(lineStart, end);
      const indented = block.replace(/^/gm, "    ");
      editor.setRangeText(indented, lineStart, end, "preserve");
      editor.selectionStart = start + 4;
      editor.selectionEnd = end + (indented.length - block.length);
    } else {
      const column = start - lineStart;
      const spaces = " ".repeat(4 - (column % 4));
      editor.setRangeText(spaces, start, end, "end");
    }
    editor.dispatchEvent(new Event("input"));
  }

  showsRun() {
    return !this.output.hidden && this.output.dataset.origin !== "build";
  }

  updateReset() {
    const edited = !this.editor.hidden && this.editor.value !== this.original;
    const busy = this.job !== null;
    this.resetButton.disabled = busy || (!edited && !this.showsRun() && this.editor.hidden);
  }

  reset() {
    if (this.job !== null) return;
    this.editor.value = this.original;
    this.editor.hidden = true;
    this.tabReleased = false;
    if (this.view) this.view.hidden = false;
    this.editButton.hidden = false;
    this.clearOutput();
    if (this.built !== null) {
      this.output.replaceChildren(...this.built.map((node) => node.cloneNode(true)));
      this.output.dataset.origin = "build";
    }
    this.output.hidden = this.built === null;
    this.setStatus("");
    this.updateReset();
    (this.view ? this.runButton : this.editButton).focus();
  }

  run() {
    if (this.job !== null) return;
    this.clearOutput();
    this.output.hidden = false;
    this.output.setAttribute("aria-busy", "true");
    this.job = getRuntime().submit(this, this.code());
    this.root.classList.add("runnable-busy");
    this.runButton.disabled = true;
    this.stopButton.disabled = false;
    this.updateReset();
  }

  stop() {
    if (this.job !== null) getRuntime().stop(this.job);
  }

  setStatus(text, kind = "") {
    this.status.textContent = text;
    this.status.dataset.kind = kind;
  }

  onQueued(_job, waiting) {
    if (waiting) this.setStatus("Waiting for the block that is running…", "busy");
  }

  onPhase(phase, detail) {
    const text = {
      "loading-runtime": "Loading the Python runtime (first run only)…",
      "loading-packages": `Loading packages: ${detail || ""}…`,
      running: "Running…",
      stopping: "Stopping…",
    }[phase];
    if (text) this.setStatus(text, "busy");
  }

  onOutput(stream, text) {
    this.append(stream === "stderr" ? "stderr" : "stdout", text);
  }

  // An output item of runnable_capture.py (its docstring describes them).
  onItem(item) {
    switch (item.type) {
      case "stream":
        this.onOutput(item.name, item.text);
        break;
      case "result":
      case "error":
        this.append(item.type, item.text);
        break;
      case "image":
        this.appendNode(this.figure(item));
        break;
      case "chart":
        this.appendNode(this.chart(item));
        break;
      case "html": {
        // The block's own markup, trusted as a post's raw HTML is.
        const box = el("div", { class: "runnable-html" });
        box.innerHTML = item.html;
        this.appendNode(box);
        break;
      }
      default:
        break;
    }
  }

  // A chart the block ended with (an Altair chart, a Plotly figure): drawn by js/charts.js
  // in the page's look (taken from a chart the build drew), as the build's charts are; a
  // note when the page has no chart library (it had no chart when it was built).
  chart(item) {
    const tag = document.querySelector("script[data-widget-script$='charts.js']");
    const plotly = item.mime === "application/vnd.plotly.v1+json";
    const kind = plotly ? "plotly" : item.mime.includes("vegalite") ? "vega-lite" : "vega";
    const family = plotly ? "plotly" : "vega";
    const built = [...document.querySelectorAll(`.chart-${family} script.chart-data`)];
    if (!tag || !built.length) {
      return el("p", { class: "runnable-note" },
        "The block made a chart, which this page cannot draw in the browser: it draws the "
        + "charts of the build only.");
    }
    const look = JSON.parse(built[0].textContent);
    const data = plotly
      ? { kind, data: item.data.data || [], layout: item.data.layout || {},
          config: {}, light: look.light, dark: look.dark }
      : { kind, spec: item.data, light: look.light, dark: look.dark };
    const bundle = document.querySelector(".chart-box[data-chart=plotly]")?.dataset.bundle;
    const box = el("div", { class: "chart-box", "data-chart": kind,
      ...(plotly ? { "data-bundle": bundle || "full", "data-height": "450" } : {}) });
    const json = el("script", { type: "application/json", class: "chart-data" });
    json.textContent = JSON.stringify(data);
    const scroll = el("div", { class: "chart-scroll", tabindex: "0" });
    scroll.append(box);
    const figure = el("div", { class: `chart chart-${family}` });
    figure.append(scroll, json);
    import(new URL(tag.dataset.widgetScript, document.baseURI).href)
      .then((charts) => charts.watch(figure))
      .catch((error) => console.warn("blogbuild: the chart library did not load", error));
    return figure;
  }

  figure(item) {
    const src = item.mime === "image/svg+xml"
      ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(item.data)}`
      : `data:image/png;base64,${item.data}`;
    const img = el("img", { src, alt: item.alt || "" });
    if (item.width > 0 && item.height > 0) {
      img.setAttribute("width", String(item.width));
      img.setAttribute("height", String(item.height));
    }
    const figure = el("figure", { class: "runnable-figure" });
    figure.append(img);
    return figure;
  }

  appendNode(node) {
    this.output.append(node);
    this.segment = null; // text after it starts a new block of its own
  }

  onDone(message) {
    const ms = typeof message.ms === "number" ? formatMs(message.ms) : "";
    switch (message.status) {
      case "ok":
        this.setStatus(`Done in ${ms}`, "ok");
        break;
      case "error":
        // Python's own errors came as an item; this one is the worker's (rare).
        if (message.error) this.append("error", message.error);
        if (message.errorName === "KeyboardInterrupt") {
          this.append("note", "Stopped. Variables defined before the stop are kept.");
          this.setStatus(`Stopped after ${ms}`, "stopped");
        } else {
          this.setStatus(ms ? `${message.errorName} after ${ms}` : "Error", "error");
        }
        break;
      case "package-error":
        this.append("error", message.error);
        this.setStatus("Packages could not be loaded", "error");
        break;
      case "boot-error":
        this.append("error", message.error + "\n");
        this.setStatus("The Python runtime could not be loaded", "error");
        break;
      case "terminated":
        this.append(
          "note",
          message.phase === "running" || message.phase === "stopping"
            ? "Stopped: the Python runtime was restarted to end this block" +
                (CAN_INTERRUPT ? " (it did not answer the interrupt)" : "") +
                ", so variables from earlier runs are gone; run the blocks above again " +
                "if this one needs them."
            : "Stopped while loading; the Python runtime will start again on the next Run.",
        );
        this.setStatus(ms ? `Stopped after ${ms}` : "Stopped", "stopped");
        break;
      case "cancelled":
        this.setStatus("Cancelled", "stopped");
        break;
      default:
        this.setStatus("Finished", "");
    }
    if (this.output.childElementCount === 0 && message.status === "ok") {
      this.append("note", "No output.");
    }
    if (this.output.childElementCount === 0) this.output.hidden = true;
    this.output.removeAttribute("aria-busy");
    this.job = null;
    this.root.classList.remove("runnable-busy");
    this.runButton.disabled = false;
    this.stopButton.disabled = true;
    this.updateReset();
  }

  clearOutput() {
    this.output.replaceChildren();
    delete this.output.dataset.origin;
    this.segment = null;
    this.outputSize = 0;
    this.truncated = false;
  }

  append(kind, text) {
    if (!text) return;
    if (kind === "stdout" || kind === "stderr") {
      if (this.truncated) return;
      const room = OUTPUT_LIMIT - this.outputSize;
      if (text.length > room) {
        text = text.slice(0, room);
        this.truncated = true;
      }
      this.outputSize += text.length;
    }
    if (this.segment === null || this.segment.dataset.kind !== kind ||
        kind === "result" || kind === "note") {
      const tag = kind === "note" ? "p" : "pre";
      this.segment = el(tag, { class: `runnable-${kind}`, "data-kind": kind });
      if (kind === "result") {
        this.segment.append(el("span", { class: "runnable-label" }, "Out: "));
      }
      this.output.append(this.segment);
    }
    this.segment.append(document.createTextNode(text));
    if (this.truncated && (kind === "stdout" || kind === "stderr")) {
      this.append("note", `Output cut after ${OUTPUT_LIMIT.toLocaleString("en")} characters.`);
    }
  }
}

export const blocks = [];

function enhance(root = document) {
  for (const node of root.querySelectorAll(".runnable")) {
    if (node.classList.contains("runnable-ready")) continue;
    const lang = (node.dataset.lang || "python").toLowerCase();
    if (lang !== "python" && lang !== "py") continue;
    blocks.push(new RunnableBlock(node));
  }
}

enhance();
