// Previews of in-page references: hovering (after a short delay) or focusing a footnote
// reference, an equation reference, a cross-reference or a citation shows a copy of what
// it points to beside the link. The copy is a non-modal dialog placed right after the link,
// so Tab moves into its links; the link is described by it while it is open. Esc closes it,
// so does moving away. On touch screens the first tap shows it and a second tap follows
// the link. Nothing is fetched: a link to another page previews only the element of this
// page its data-preview names (a <template>, say). With data-sidenotes on this script,
// footnotes are also shown in the margin where the layout has room (css/previews.css).

const LINKS = 'sup.footnote-ref > a, a.math-ref, .katex a[href^="#"], a.xref, .citation a, a[data-preview]';
const OPEN_DELAY = 200;
const CLOSE_DELAY = 300;
const GAP = 6; // between the link and the preview, px
const EDGE = 8; // kept free at the viewport's edges, px
const HEADING = /^H([1-6])$/;

/** The element a link previews, or null (another page, or nothing to show). */
function targetOf(link) {
  const named = link.dataset.preview;
  if (named !== undefined) return document.getElementById(named);
  const href = link.getAttribute("href") ?? "";
  if (!href.startsWith("#") || href.length < 2) return null;
  let target;
  try {
    target = document.getElementById(decodeURIComponent(href.slice(1)));
  } catch {
    return null; // a malformed %-escape
  }
  // An empty anchor (the second label of a display, <a id> in raw HTML): what holds it.
  if (target && !target.textContent.trim() && !target.querySelector("img, svg")) {
    target = target.closest(".math-display") ?? target.parentElement;
  }
  return target === document.body ? null : target;
}

function kindOf(link, target) {
  if (link.closest(".footnote-ref")) return "footnote";
  if (link.dataset.xref) return link.dataset.xref;
  if (link.closest(".citation")) return "reference";
  if (link.matches(".math-ref") || link.closest(".katex")) return "equation";
  if (HEADING.test(target.tagName)) return "section";
  return target.matches("figure") ? "figure" : "";
}

/** A heading, and the start of its section: up to three blocks or about 500 characters. */
function section(heading) {
  const level = Number(HEADING.exec(heading.tagName)[1]);
  const parts = [heading.cloneNode(true)];
  let chars = 0;
  for (let node = heading.nextElementSibling; node && parts.length < 4 && chars < 500;
    node = node.nextElementSibling) {
    const other = HEADING.exec(node.tagName);
    if (other && Number(other[1]) <= level) break;
    if (node.matches(".footnotes-sep, .footnotes, script, template")) break;
    parts.push(node.cloneNode(true));
    chars += node.textContent.length;
  }
  return parts;
}

/** Copies of the target's content, without ids (no duplicates in the page) or back links. */
function contentOf(target) {
  let parts;
  if (target instanceof HTMLTemplateElement) parts = [target.content.cloneNode(true)];
  else if (HEADING.test(target.tagName)) parts = section(target);
  else if (target.matches("li")) parts = [...target.childNodes].map((n) => n.cloneNode(true));
  else parts = [target.cloneNode(true)];
  const box = document.createElement("div");
  box.className = "preview-body";
  box.append(...parts);
  box.querySelectorAll(".footnote-backref, .heading-anchor").forEach((el) => el.remove());
  for (const el of box.querySelectorAll("[id], [aria-labelledby], [aria-describedby]")) {
    el.removeAttribute("id");
    el.removeAttribute("aria-labelledby");
    el.removeAttribute("aria-describedby");
  }
  box.querySelectorAll("details").forEach((el) => { el.open = true; });
  return box;
}

function previews() {
  const popover = document.createElement("div");
  popover.className = "preview";
  popover.id = "blogbuild-preview";
  popover.setAttribute("role", "dialog");
  popover.hidden = true;
  const go = document.createElement("a");
  go.className = "preview-go";

  let current = null; // the link whose preview is open
  let pending = null; // the link whose preview opens when its delay is over
  let openTimer = 0;
  let closeTimer = 0;
  let pointerInside = false; // the mouse is over the open link or its preview
  let refocusing = null; // the link Esc gives the focus back to: no preview then
  let pointer = "mouse"; // the kind of pointer that pressed last
  let tappedOpen = false; // the tapped link's preview was open when the tap began

  const linkOf = (node) => {
    const link = node instanceof Element ? node.closest(LINKS) : null;
    if (!link || link.closest(".preview, .sidenote")) return null;
    if (link.closest(".footnote-ref") && sidenoteShown(link)) return null;
    return targetOf(link) ? link : null;
  };

  const place = () => {
    if (!current) return;
    const rect = current.getClientRects()[0] ?? current.getBoundingClientRect();
    const width = document.documentElement.clientWidth;
    const height = innerHeight;
    if (rect.bottom < 0 || rect.top > height) return hide();
    popover.style.maxHeight = "none";
    const natural = popover.offsetHeight;
    const below = height - rect.bottom - GAP - EDGE;
    const above = rect.top - GAP - EDGE;
    const down = natural <= below || below >= above;
    const room = Math.max(down ? below : above, 96);
    const shown = Math.min(natural, room);
    popover.style.maxHeight = `${room}px`;
    popover.style.top = `${down ? rect.bottom + GAP : rect.top - GAP - shown}px`;
    const left = Math.min(rect.left, width - popover.offsetWidth - EDGE);
    popover.style.left = `${Math.max(EDGE, left)}px`;
    popover.dataset.side = down ? "below" : "above";
  };

  function show(link) {
    clearTimeout(openTimer);
    clearTimeout(closeTimer);
    pending = null;
    if (link === current) return;
    hide();
    const target = targetOf(link);
    if (!target) return;
    const kind = kindOf(link, target);
    const label = link.textContent.trim().replace(/^\[(.*)\]$/, "$1");
    popover.replaceChildren(contentOf(target), go);
    const named = kind ? `${kind[0].toUpperCase()}${kind.slice(1)} ${label}` : label;
    popover.setAttribute("aria-label", `Preview: ${named}`);
    go.setAttribute("href", link.getAttribute("href") ?? "");
    const here = link.getAttribute("href")?.startsWith("#");
    go.textContent = here ? `Go to ${kind || "it"}` : "Open the page";
    // After the link's inline wrapper (the <sup> of a footnote, a formula): next in the
    // Tab order, and out of styles made for those.
    (link.closest("sup, .katex, .citation") ?? link).after(popover);
    popover.hidden = false;
    current = link;
    link.setAttribute("aria-describedby", popover.id);
    link.setAttribute("aria-expanded", "true");
    place();
  }

  function hide() {
    clearTimeout(closeTimer);
    if (!current) return;
    current.removeAttribute("aria-describedby");
    current.removeAttribute("aria-expanded");
    current = null;
    pointerInside = false;
    popover.hidden = true;
    popover.remove();
  }

  const inside = (node) => node instanceof Node && (popover.contains(node) || current?.contains(node));

  document.addEventListener("pointerover", (event) => {
    if (event.pointerType === "touch") return;
    const link = linkOf(event.target);
    if (link && link === current) {
      pointerInside = true;
      clearTimeout(closeTimer);
    } else if (link) {
      if (link !== pending) {
        clearTimeout(openTimer);
        pending = link;
        openTimer = setTimeout(() => show(link), OPEN_DELAY);
      }
    } else if (current && popover.contains(event.target)) {
      pointerInside = true;
      clearTimeout(closeTimer);
    }
  });

  document.addEventListener("pointerout", (event) => {
    if (event.pointerType === "touch") return;
    const link = linkOf(event.target);
    if (link && link === pending && !link.contains(event.relatedTarget)) {
      clearTimeout(openTimer);
      pending = null;
    }
    if (!current || !inside(event.target) || inside(event.relatedTarget)) return;
    pointerInside = false;
    const focused = document.activeElement;
    if (focused !== current && !popover.contains(focused)) {
      closeTimer = setTimeout(hide, CLOSE_DELAY);
    }
  });

  document.addEventListener("focusin", (event) => {
    const link = linkOf(event.target);
    if (!link || link === refocusing) return;
    // Only keyboard focus: a click or a tap focuses the link too, and has its own rules.
    if (link.matches(":focus-visible")) show(link);
  });

  document.addEventListener("focusout", (event) => {
    if (event.target === refocusing) refocusing = null;
    if (!current || !inside(event.target) || inside(event.relatedTarget)) return;
    if (!pointerInside) hide();
  });

  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !current) return;
    const link = current;
    const focusInside = popover.contains(document.activeElement);
    hide();
    if (focusInside) {
      refocusing = link;
      link.focus();
    }
  });

  document.addEventListener("pointerdown", (event) => {
    pointer = event.pointerType;
    const link = linkOf(event.target);
    tappedOpen = Boolean(link) && link === current;
    if (current && !inside(event.target)) hide(); // a press elsewhere closes the preview
  });

  document.addEventListener("click", (event) => {
    if (popover.contains(event.target) && event.target.closest("a")) return hide();
    const link = linkOf(event.target);
    if (!link) return;
    if (pointer === "touch" && !tappedOpen) {
      event.preventDefault(); // the first tap shows the preview; the second follows the link
      show(link);
      return;
    }
    hide();
  });

  let frame = 0;
  const replace = () => {
    if (!current || frame) return;
    frame = requestAnimationFrame(() => { frame = 0; place(); });
  };
  addEventListener("scroll", replace, { passive: true, capture: true });
  addEventListener("resize", replace);

  // This script may have been loaded by the very hover or focus that wants a preview
  // (js/widgets.js loads it on the first interaction): answer that one too.
  const hovered = document.querySelectorAll(":hover");
  const under = hovered.length ? linkOf(hovered[hovered.length - 1]) : null;
  const focused = linkOf(document.activeElement);
  if (focused?.matches(":focus-visible")) show(focused);
  else if (under) {
    pending = under;
    openTimer = setTimeout(() => show(under), OPEN_DELAY);
  }
}

// --- sidenotes ---------------------------------------------------------------------------

const sidenoteOf = new WeakMap(); // footnote reference → its sidenote

function sidenoteShown(link) {
  const note = sidenoteOf.get(link);
  return Boolean(note) && note.offsetParent !== null;
}

function sidenotes() {
  const body = document.querySelector(".post-body");
  if (!body) return;
  const notes = [];
  const seen = new Map(); // footnote → its sidenote: a second reference gets no second note
  for (const link of body.querySelectorAll("sup.footnote-ref > a")) {
    const target = targetOf(link);
    if (!target || link.closest(".footnotes")) continue;
    if (seen.has(target)) {
      sidenoteOf.set(link, seen.get(target));
      continue;
    }
    // A copy for the eyes: the footnote list stays the one screen readers and the Tab
    // key go through, so the copy is hidden from them.
    const note = document.createElement("aside");
    note.className = "sidenote";
    note.setAttribute("aria-hidden", "true");
    const number = document.createElement("span");
    number.className = "sidenote-number";
    number.textContent = link.textContent.trim().replace(/^\[(.*)\]$/, "$1");
    const content = contentOf(target);
    content.className = "sidenote-body";
    content.querySelector("p")?.prepend(number, " ");
    if (!number.parentNode) content.prepend(number);
    content.querySelectorAll("a, button, input, summary, [tabindex]")
      .forEach((el) => el.setAttribute("tabindex", "-1"));
    note.append(content);
    body.append(note);
    sidenoteOf.set(link, note);
    seen.set(target, note);
    notes.push([link, note]);
  }
  if (!notes.length) return;
  body.dataset.sidenotes = "";

  // Each note at the height of its reference, or just below the note above it.
  const layout = () => {
    if (notes[0][1].offsetParent === null) return; // narrow screen: not shown
    const top = body.getBoundingClientRect().top;
    let free = -Infinity;
    for (const [link, note] of notes) {
      const at = Math.max(link.getBoundingClientRect().top - top, free);
      note.style.top = `${Math.round(at)}px`;
      free = at + note.offsetHeight + 12;
    }
  };
  layout();
  new ResizeObserver(layout).observe(body);
  document.fonts?.ready.then(layout);

  const mark = (event, on) => {
    const note = event.target instanceof Element
      && sidenoteOf.get(event.target.closest("sup.footnote-ref > a"));
    note?.classList.toggle("sidenote-active", on);
  };
  body.addEventListener("pointerover", (event) => mark(event, true));
  body.addEventListener("pointerout", (event) => mark(event, false));
  body.addEventListener("focusin", (event) => mark(event, true));
  body.addEventListener("focusout", (event) => mark(event, false));
}

if (document.querySelector("script[data-sidenotes]")) sidenotes();
previews();
