// Copy buttons of code blocks: shown only when the Clipboard API is there.
const buttons = document.querySelectorAll(".codeblock .copy-button");

for (const button of buttons) {
  if (!navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    const code = button.closest(".codeblock")?.querySelector("pre code");
    if (!code) return;
    try {
      await navigator.clipboard.writeText(code.textContent ?? "");
      button.textContent = "Copied";
      button.dataset.copied = "";
    } catch {
      button.textContent = "Press Ctrl+C";
    }
    setTimeout(() => {
      button.textContent = "Copy";
      delete button.dataset.copied;
    }, 1800);
  });
}
