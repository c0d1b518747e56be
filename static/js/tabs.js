// Tabs (docs/writing.md, "Tabs"): each <div class="tabset"> the build wrote, whose panels
// (<section class="tab"> under a <p class="tab-title">) all show without this script, becomes
// the WAI-ARIA tabs pattern: a row of role="tab" buttons, one panel shown, the arrow keys,
// Home and End moving between tabs (automatic activation, one tab in the Tab order). Sets
// with the same data-group switch together, and the reader's choice is remembered for
// the site (localStorage "blogbuild-tabs:GROUP", kept to this page when storage is
// refused). A link to something inside a hidden panel shows that panel first.

const KEY = "blogbuild-tabs:";
const sets = new Map(); // tabset element -> {tabs, panels, group}

function remembered(group) {
  try { return localStorage.getItem(KEY + group); } catch { return null; }
}

function remember(group, title) {
  try { localStorage.setItem(KEY + group, title); } catch { /* refused: this page only */ }
}

// The title's content for its button, without what a button may not hold or repeat:
// links become their text, ids are dropped (they stay on the panel's title).
function label(title) {
  const copy = title.cloneNode(true);
  for (const a of copy.querySelectorAll("a, button, input, select, textarea, details, [tabindex]")) {
    const span = document.createElement("span");
    span.append(...a.childNodes);
    a.replaceWith(span);
  }
  for (const el of copy.querySelectorAll("[id]")) el.removeAttribute("id");
  return [...copy.childNodes];
}

const text = (tab) => tab.textContent.trim();

function select(set, index, { focus = false, sync = false } = {}) {
  const { tabs, panels, group } = sets.get(set);
  tabs.forEach((tab, i) => {
    tab.setAttribute("aria-selected", String(i === index));
    tab.tabIndex = i === index ? 0 : -1;
    panels[i].hidden = i !== index;
  });
  if (focus) tabs[index].focus();
  if (sync && group) {
    const title = text(tabs[index]);
    remember(group, title);
    follow(group, title, set);
  }
}

// Every other set of `group` shows its tab titled `title`, if it has one.
function follow(group, title, except) {
  for (const [other, known] of sets) {
    if (other === except || known.group !== group) continue;
    const i = known.tabs.findIndex((tab) => text(tab) === title);
    if (i >= 0) select(other, i);
  }
}

function setup(set, number) {
  const panels = [...set.children].filter((el) => el.matches("section.tab"));
  if (!panels.length) return;
  const list = document.createElement("div");
  list.className = "tab-list";
  list.setAttribute("role", "tablist");
  const tabs = panels.map((panel, i) => {
    if (!panel.id) panel.id = `tabs-${number}-${i + 1}`;
    const title = panel.querySelector(":scope > .tab-title");
    const tab = document.createElement("button");
    tab.type = "button";
    tab.className = "tab-button";
    tab.id = `${panel.id}-tab`;
    tab.setAttribute("role", "tab");
    tab.setAttribute("aria-controls", panel.id);
    if (title) tab.append(...label(title)); else tab.textContent = `Tab ${i + 1}`;
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", tab.id);
    panel.tabIndex = 0;
    list.append(tab);
    return tab;
  });
  set.prepend(list);
  const group = set.dataset.group || null;
  sets.set(set, { tabs, panels, group });
  const stored = group && remembered(group);
  let index = stored ? tabs.findIndex((tab) => text(tab) === stored) : -1;
  if (index < 0) index = Math.max(0, panels.findIndex((p) => p.hasAttribute("data-selected")));
  select(set, index);
  set.dataset.live = "";

  list.addEventListener("click", (event) => {
    const i = tabs.indexOf(event.target.closest?.("[role=tab]"));
    if (i >= 0) select(set, i, { sync: true });
  });
  list.addEventListener("keydown", (event) => {
    const at = tabs.indexOf(event.target);
    if (at < 0 || event.altKey || event.ctrlKey || event.metaKey) return;
    const n = tabs.length;
    const step = getComputedStyle(list).direction === "rtl" ? -1 : 1; // the arrow's way on screen
    const next = { ArrowRight: (at + step + n) % n, ArrowLeft: (at - step + n) % n, Home: 0, End: n - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    select(set, next, { focus: true, sync: true });
  });
}

// The panels around the target of the URL's #fragment are shown, outermost first.
function reveal() {
  let id;
  try { id = decodeURIComponent(location.hash.slice(1)); } catch { return; }
  let el = id && document.getElementById(id);
  const path = [];
  for (; el; el = el.parentElement) {
    if (el.matches("section.tab[role=tabpanel]") && sets.has(el.parentElement)) path.unshift(el);
  }
  for (const panel of path) select(panel.parentElement, sets.get(panel.parentElement).panels.indexOf(panel));
  if (path.length) document.getElementById(id).scrollIntoView();
}

document.querySelectorAll("div.tabset").forEach(setup);
reveal();
addEventListener("hashchange", reveal);
// Another window of the site chose a tab of a group.
addEventListener("storage", (event) => {
  if (event.key?.startsWith(KEY) && event.newValue) follow(event.key.slice(KEY.length), event.newValue, null);
});
