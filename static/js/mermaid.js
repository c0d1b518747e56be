// Draws the Mermaid diagrams the build could not draw (<pre class="mermaid-fallback">),
// with Mermaid's own script, in the page's theme; again when the reader switches it.
(() => {
  const blocks = [...document.querySelectorAll("pre.mermaid-fallback")];
  if (!blocks.length || !window.mermaid) return;
  blocks.forEach((block) => { block.dataset.source = block.textContent; });
  let drawn = 0;
  const draw = async () => {
    const dark = document.documentElement.dataset.theme === "dark";
    window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict",
                                theme: dark ? "dark" : "default" });
    const round = ++drawn;
    for (const [n, block] of blocks.entries()) {
      try {
        const { svg } = await window.mermaid.render(`mermaid-fallback-${n}-${round}`,
                                                    block.dataset.source);
        if (round !== drawn) return;  // the theme changed meanwhile
        block.innerHTML = svg;
        block.classList.add("is-drawn");
      } catch (error) {
        block.textContent = block.dataset.source;  // Mermaid cannot draw it either: the text
      }
    }
  };
  draw();
  addEventListener("blogbuild:theme", draw);
})();
