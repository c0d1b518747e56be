// blogbuild serve: reloads this page when it is rebuilt, swaps changed stylesheets in
// place, shows build errors over the page, and keeps the scroll position across reloads.
// Served by the live server only (never part of `blogbuild build` output).
(() => {
  "use strict";
  const script = document.currentScript;
  const ENDPOINT = "/__blogbuild__/events";
  const SCROLL_KEY = "blogbuild-scroll:" + location.pathname;
  let seen = Number((script && script.dataset.build) || 0);
  let server = null;
  let source = null;
  let retry = 500;
  let errors = [];
  let hidden = false; // the reader closed the overlay for this list of errors

  // -- scroll position -----------------------------------------------------------------
  function restoreScroll() {
    let saved = null;
    try {
      saved = JSON.parse(sessionStorage.getItem(SCROLL_KEY) || "null");
    } catch (_) { /* private mode or bad JSON: nothing to restore */ }
    if (!saved) return;
    const apply = () => window.scrollTo(saved.x, saved.y);
    apply();
    window.addEventListener("load", () => {
      apply();
      sessionStorage.removeItem(SCROLL_KEY);
    }, { once: true });
  }

  function reload() {
    try {
      sessionStorage.setItem(SCROLL_KEY, JSON.stringify({ x: scrollX, y: scrollY }));
    } catch (_) { /* storage full or disabled: reload anyway */ }
    location.reload();
  }

  // -- stylesheets ---------------------------------------------------------------------
  // `renamed`: old -> new path of page stylesheets whose name changed with their bytes.
  function swapStyles(paths, renamed, build) {
    for (const link of document.querySelectorAll('link[rel~="stylesheet"]')) {
      const url = new URL(link.href, location.href);
      const next = renamed[url.pathname];
      if (url.origin !== location.origin || !(next || paths.includes(url.pathname))) continue;
      const fresh = link.cloneNode();
      url.searchParams.set("blogbuild", String(build));
      fresh.href = next || url.pathname + url.search;
      fresh.addEventListener("load", () => link.remove(), { once: true });
      fresh.addEventListener("error", () => fresh.remove(), { once: true });
      link.after(fresh);
    }
  }

  // -- error overlay -------------------------------------------------------------------
  const STYLE = `
    :host { all: initial; }
    .backdrop { position: fixed; inset: 0; z-index: 2147483646;
      background: rgb(15 18 24 / 0.45); display: flex; align-items: flex-start;
      justify-content: center; overflow-y: auto; padding: 8vh 1rem 2rem; box-sizing: border-box;
      font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
    .panel { --bg: #fff; --fg: #1d232b; --muted: #5b6470; --border: #e3e6ea;
      --accent: #c62828; --code-bg: #f6f7f9;
      background: var(--bg); color: var(--fg); width: 100%; max-width: 46rem;
      border-radius: 10px; border-top: 4px solid var(--accent);
      box-shadow: 0 12px 40px rgb(0 0 0 / 0.3); padding: 1.1rem 1.3rem 1.3rem;
      box-sizing: border-box; }
    @media (prefers-color-scheme: dark) {
      .backdrop { background: rgb(0 0 0 / 0.6); }
      .panel { --bg: #1b1f26; --fg: #e6e9ee; --muted: #a0a8b4; --border: #303641;
        --accent: #ff6b6b; --code-bg: #12151a; }
    }
    header { display: flex; align-items: center; gap: 0.75rem; }
    h2 { margin: 0; font-size: 1.1rem; font-weight: 650; flex: 1; color: var(--accent); }
    button { all: unset; cursor: pointer; font-size: 1.5rem; line-height: 1; color: var(--muted);
      width: 2rem; height: 2rem; display: grid; place-items: center; border-radius: 6px; }
    button:hover { background: var(--code-bg); color: var(--fg); }
    button:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
    .hint { margin: 0.35rem 0 0.9rem; color: var(--muted); font-size: 0.9rem; }
    ol { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.7rem; }
    li { background: var(--code-bg); border: 1px solid var(--border); border-radius: 8px;
      padding: 0.6rem 0.8rem; }
    .where { font: 600 0.85rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
      overflow-wrap: anywhere; }
    .where .pos { color: var(--muted); font-weight: 500; }
    .message { margin: 0.3rem 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
  `;
  let host = null;

  function render() {
    if (!errors.length || hidden) {
      if (host) host.remove();
      host = null;
      return;
    }
    if (!host) {
      host = document.createElement("blogbuild-error-overlay");
      host.attachShadow({ mode: "open" });
      document.documentElement.appendChild(host);
    }
    const root = host.shadowRoot;
    root.replaceChildren();
    const style = document.createElement("style");
    style.textContent = STYLE;
    const backdrop = el("div", "backdrop");
    const panel = el("section", "panel");
    panel.setAttribute("role", "alertdialog");
    panel.setAttribute("aria-labelledby", "blogbuild-error-title");
    const header = el("header");
    const title = el("h2", "", errors.length === 1 ? "Build error"
      : `${errors.length} build errors`);
    title.id = "blogbuild-error-title";
    const close = el("button", "", "×");
    close.type = "button";
    close.setAttribute("aria-label", "Hide until the next change");
    close.addEventListener("click", () => { hidden = true; render(); });
    header.append(title, close);
    const hint = el("p", "hint", "The page shows the last good build. Fix the file and save: "
      + "this message goes away by itself.");
    const list = el("ol");
    for (const e of errors) {
      const item = el("li");
      const where = el("div", "where", e.file || "(site)");
      if (e.line) where.append(el("span", "pos", `:${e.line}` + (e.column ? `:${e.column}` : "")));
      item.append(where, el("p", "message", e.message));
      list.append(item);
    }
    panel.append(header, hint, list);
    backdrop.append(panel);
    root.append(style, backdrop);
  }

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function showErrors(list) {
    const changed = JSON.stringify(list) !== JSON.stringify(errors);
    errors = list;
    if (changed) hidden = false;
    render();
  }

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && host) { hidden = true; render(); }
  });

  // -- events --------------------------------------------------------------------------
  function connect() {
    const query = new URLSearchParams({ path: location.pathname, since: String(seen) });
    source = new EventSource(ENDPOINT + "?" + query);
    source.addEventListener("hello", (event) => {
      const data = JSON.parse(event.data);
      retry = 500;
      if (server !== null && data.server !== server) return reload(); // server restarted
      server = data.server;
      seen = Math.max(seen, data.build);
      showErrors(data.errors || []);
      document.documentElement.dataset.blogbuildLive = "connected"; // for tests and tools
    });
    source.addEventListener("reload", reload);
    source.addEventListener("css", (event) => {
      const data = JSON.parse(event.data);
      seen = data.build;
      swapStyles(data.paths || [], data.renamed || {}, data.build);
    });
    source.addEventListener("errors", (event) => {
      const data = JSON.parse(event.data);
      seen = data.build;
      showErrors(data.errors || []);
    });
    source.addEventListener("error", () => {
      // Closed by the server or the network: reconnect ourselves, asking for what we missed.
      disconnect();
      if (!document.hidden) setTimeout(connect, retry);
      retry = Math.min(retry * 2, 5000);
    });
  }

  function disconnect() {
    if (source) source.close();
    source = null;
  }

  // Background tabs hand their connection back (browsers allow few per host) and catch up
  // when shown again.
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) disconnect();
    else if (!source) connect();
  });

  restoreScroll();
  connect();
})();
