// Click-to-load embeds (videos, Hugging Face Spaces): the page asks nothing of the third-party
// host until the reader clicks. The server-rendered facade is a plain link (it still works
// without JavaScript); here it becomes a button that swaps itself for the iframe.

/**
 * @param {string} selector  frames carrying data-embed (the iframe URL) and data-title
 * @param {RegExp} allowed   embed URLs this widget may load
 * @param {(iframe: HTMLIFrameElement) => void} configure  widget-specific iframe attributes
 */
export function clickToLoad(selector, allowed, configure) {
  for (const frame of document.querySelectorAll(selector)) {
    const link = frame.querySelector(":scope > a[href]");
    const url = frame.dataset.embed ?? "";
    if (!link || !allowed.test(url)) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.className = link.className;
    // The name is the facade's own text (what it shows is what a screen reader says).
    button.append(...link.childNodes);
    link.replaceWith(button);
    button.addEventListener("click", () => {
      const iframe = document.createElement("iframe");
      iframe.title = frame.dataset.title || "Embedded content";
      iframe.referrerPolicy = "strict-origin-when-cross-origin";
      configure(iframe);
      iframe.src = url;
      button.replaceWith(iframe);
      iframe.focus();
    }, { once: true });
  }
}
