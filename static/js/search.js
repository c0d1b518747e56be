// Search: turns the header's link to the archive into a button that opens a search dialog.
// Pagefind's pagefind.js (this site's own /pagefind/, URL in data-pagefind) loads on first
// use. Results are built as DOM nodes: of Pagefind's excerpt only text and <mark> survive.
const link = document.querySelector("a.search-link[data-pagefind]");
if (link) {
  const el = (tag, props = {}, ...kids) => {
    const node = Object.assign(document.createElement(tag), props);
    node.append(...kids);
    return node;
  };
  const key = el("kbd", {}, "/");
  key.setAttribute("aria-hidden", "true");
  const button = el("button", {type: "button", className: "search-link"}, "Search ", key);
  button.setAttribute("aria-haspopup", "dialog");
  button.setAttribute("aria-keyshortcuts", "/");
  const input = el("input", {type: "search", id: "search-input", autocomplete: "off",
                             spellcheck: false});
  const status = el("p", {className: "search-status"});
  status.setAttribute("role", "status");
  const list = el("ul", {className: "search-results"});
  const form = el("div", {}, el("label", {htmlFor: "search-input"}, "Search posts"), input);
  form.setAttribute("role", "search");
  const close = el("button", {type: "button", className: "search-link search-close"}, "Close");
  // The dialog has no padding of its own: a click on the dialog itself is on the backdrop.
  const dialog = el("dialog", {className: "search-dialog"},
                    el("div", {className: "search-box"}, close, form, status, list));
  dialog.setAttribute("aria-label", "Search");
  link.replaceWith(button);
  document.body.append(dialog);

  let pagefind, timer, asked = "";
  // The index holds full URLs (the site's sub-path included): no base URL to add.
  const load = () => pagefind ??= import(link.dataset.pagefind).then(async (pf) => {
    await pf.options({baseUrl: "/"});
    return pf;
  }, () => { location.href = link.href; }); // no index: the archive lists every post
  const open = () => {
    dialog.showModal();
    input.select();
    load();
  };
  // Text and <mark> of an excerpt; anything else becomes its text.
  const excerpt = (html) => {
    const out = el("span", {className: "search-excerpt"});
    for (const n of new DOMParser().parseFromString(html, "text/html").body.childNodes) {
      out.append(n.nodeName === "MARK" ? el("mark", {}, n.textContent) : n.textContent);
    }
    return out;
  };
  const show = async () => {
    const query = input.value.trim();
    asked = query;
    if (!query) { list.replaceChildren(); status.textContent = ""; return; }
    const found = await (await load())?.search(query);
    if (!found || asked !== query) return;
    const pages = await Promise.all(found.results.slice(0, 8).map((r) => r.data()));
    if (asked !== query) return;
    list.replaceChildren(...pages.map((p) => el("li", {}, el("a", {href: p.url},
      el("span", {className: "search-title"}, p.meta.title || p.url), excerpt(p.excerpt)))));
    const n = found.results.length;
    status.textContent = n ? `${n} result${n > 1 ? "s" : ""}` : "No results";
  };
  input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(show, 150); });
  button.addEventListener("click", open);
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (e) => e.target === dialog && dialog.close());
  dialog.addEventListener("keydown", (e) => {
    const links = [...list.querySelectorAll("a")];
    const at = links.indexOf(document.activeElement);
    if (e.key === "Enter" && e.target === input && links[0]) links[0].click();
    else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const next = e.key === "ArrowDown" ? at + 1 : at - 1;
      (links[next] || (next < 0 ? input : null))?.focus();
      e.preventDefault();
    }
  });
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey || dialog.open ||
        t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) return;
    e.preventDefault();
    open();
  });
}
