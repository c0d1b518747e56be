"""The vendored runtimes pages use: KaTeX (run at build time) and Pyodide."""
