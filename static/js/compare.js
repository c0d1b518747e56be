// Before/after image comparison: drag (mouse, touch, pen), click or arrow keys move the divider.
// The before image shows left of the divider, the after image right of it. Without this
// script both images stay visible, one under the other.

// Percent per key press; Shift makes the arrow keys move 5× further.
const STEPS = { ArrowLeft: -2, ArrowDown: -2, ArrowRight: 2, ArrowUp: 2, PageDown: -10, PageUp: 10 };

function setup(root) {
  const frame = root.querySelector(".compare-frame");
  if (!frame || !root.querySelector(".compare-before img") || !root.querySelector(".compare-after img")) {
    return;
  }
  const label = (side, fallback) =>
    root.querySelector(`.compare-${side} .compare-label`)?.textContent.trim() || fallback;
  const before = label("before", "Before");
  const after = label("after", "After");

  const handle = document.createElement("div");
  handle.className = "compare-handle";
  handle.tabIndex = 0;
  handle.setAttribute("role", "slider");
  handle.setAttribute("aria-label", `Divider between ${before} and ${after}`);
  handle.setAttribute("aria-orientation", "horizontal");
  handle.setAttribute("aria-valuemin", "0");
  handle.setAttribute("aria-valuemax", "100");
  frame.append(handle);

  let position = 50;
  const set = (value) => {
    position = Math.round(Math.min(100, Math.max(0, value)) * 10) / 10;
    root.style.setProperty("--compare-pos", `${position}%`);
    const shown = Math.round(position);
    handle.setAttribute("aria-valuenow", String(shown));
    handle.setAttribute("aria-valuetext", `${shown}% ${before}, ${100 - shown}% ${after}`);
  };
  const follow = (event) => {
    const rect = frame.getBoundingClientRect();
    if (rect.width > 0) set(((event.clientX - rect.left) / rect.width) * 100);
  };

  frame.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    event.preventDefault(); // no text selection or native image drag
    frame.setPointerCapture(event.pointerId);
    follow(event);
    handle.focus({ preventScroll: true });
  });
  frame.addEventListener("pointermove", (event) => {
    if (frame.hasPointerCapture(event.pointerId)) follow(event);
  });
  const release = (event) => {
    if (frame.hasPointerCapture(event.pointerId)) frame.releasePointerCapture(event.pointerId);
  };
  frame.addEventListener("pointerup", release);
  frame.addEventListener("pointercancel", release);

  handle.addEventListener("keydown", (event) => {
    let next;
    if (event.key === "Home") next = 0;
    else if (event.key === "End") next = 100;
    else if (Object.hasOwn(STEPS, event.key)) {
      const boost = event.shiftKey && event.key.startsWith("Arrow") ? 5 : 1;
      next = position + STEPS[event.key] * boost;
    }
    else return;
    event.preventDefault();
    set(next);
  });

  const start = Number.parseFloat(root.dataset.start ?? "");
  set(Number.isFinite(start) ? start : 50);
  root.classList.add("is-active");
}

document.querySelectorAll(".image-compare").forEach(setup);
