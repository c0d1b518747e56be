// blogbuild's entry points into the vendored KaTeX (loaded first, in the same V8 context).
// Errors come back as data, never as JS exceptions: a thrown exception carries the whole
// minified source in its message. `trust` lets KaTeX's link, image and HTML commands
// through when their URL follows the link rules (blogbuild/markdown/math/links.py words
// the refusal the same way and reports it at its column first).
var blogbuildTrusted = function (context) {
  switch (context.command) {
    case "\\htmlClass": case "\\htmlId": case "\\htmlData":
      return true;  // KaTeX checks attribute names and prefixes data- itself
    case "\\htmlStyle":  // nothing a style could load or run
      return !/url\s*\(|image-set|expression|@import|\\|javascript/i.test(String(context.style));
    default:  // \href, \url, \includegraphics: KaTeX set `protocol` ("_relative" or a scheme)
      var protocol = context.protocol;
      if (protocol === "_relative" || protocol === "http" || protocol === "https") return true;
      return protocol === "mailto" && context.command !== "\\includegraphics";
  }
};
var blogbuildRefusal = function (context) {
  if (context.command === "\\htmlStyle") {
    return "\\htmlStyle with style '" + String(context.style) + "' is not allowed in math: " +
      "a style in math may not load or run anything (url(), @import, expression)";
  }
  return context.command + " with URL '" + String(context.url) + "' is not allowed in math: " +
    "math links and images follow the link rules (http, https, mailto or a site path)";
};
// KaTeX writes an image as <img … style="…"'/> (a stray quote); each image of the tree
// gets the same markup without it, so the page stays well-formed HTML.
var blogbuildFixImages = function (node) {
  if (!node || typeof node !== "object") return;
  if (typeof node.src === "string" && typeof node.alt === "string" && !node.children) {
    var markup = node.toMarkup;
    node.toMarkup = function () {
      var html = markup.call(this);
      return html.slice(-3) === "'/>" ? html.slice(0, -3) + ">" : html;
    };
    return;
  }
  (node.children || []).forEach(blogbuildFixImages);
};
// KaTeX sets a numbered equation's MathML as a table whose spacer cells carry width="50%",
// an attribute MathML in HTML does not have (the W3C checker rejects the page). The
// MathML is what screen readers read; the visible layout is KaTeX's HTML, so the cells
// simply lose the attribute.
var blogbuildFixCells = function (node) {
  if (!node || typeof node !== "object") return;
  if (node.type === "mtd" && node.attributes) delete node.attributes.width;
  (node.children || []).forEach(blogbuildFixCells);
};
// MathJax's commands that KaTeX lacks, where the meaning is clear: \mbox is \text, and
// \require{…} (MathJax's extension loader) shows nothing. The site's macros and the
// page's own definitions replace them.
var blogbuildCompat = {"\\mbox": "\\text{#1}", "\\require": {tokens: [], numArgs: 1}};
// The macros a formula starts with: the compatibility ones, the site's (math.macros), then
// the definitions made earlier on the page (`options.defined`, \gdef's the math plugin
// wrote from the author's \newcommand, \def, \DeclareMathOperator …), which win.
var blogbuildMacros = function (options) {
  var macros = Object.assign({}, blogbuildCompat, options.macros);
  if (options.defined) {
    katex.__parse(options.defined, {macros: macros, throwOnError: true, strict: "ignore",
                                    trust: false});
  }
  return macros;
};
var blogbuildRender = function (tex, displayMode, options) {
  var warnings = [];
  var base;
  try {
    base = blogbuildMacros(options);
  } catch (e) {
    return {message: "in a macro defined earlier on the page: " +
                     String(e instanceof katex.ParseError ? e.rawMessage : e),
            position: null, length: null, warnings: []};
  }
  var settings = {
    displayMode: displayMode,
    output: options.output,
    macros: Object.assign({}, base),
    throwOnError: true,
    strict: function (code, message, token) {
      if (code === "htmlExtension") return "ignore";  // \htmlClass & co. are trusted
      warnings.push({code: String(code), message: String(message),
                     position: token && token.loc ? token.loc.start : null});
      return "ignore";
    },
    trust: function (context) {
      if (blogbuildTrusted(context)) return true;
      warnings.push({code: "untrusted", position: null, message: blogbuildRefusal(context)});
      return false;
    }
  };
  try {
    var tree = katex.__renderToDomTree(tex, settings);
    if (tex.indexOf("includegraphics") >= 0) blogbuildFixImages(tree);
    if (displayMode) blogbuildFixCells(tree);
    var result = {html: tree.toMarkup(), warnings: warnings};
    if (options.output !== "mathml") {
      // The feed's variant: MathML alone, readable without KaTeX's stylesheet.
      result.mathml = blogbuildMathmlOnly(tree, tex, settings, base);
    }
    return result;
  } catch (e) {
    var parse = e instanceof katex.ParseError;
    return {
      message: parse ? String(e.rawMessage) : String(e && e.message ? e.message : e),
      position: parse && typeof e.position === "number" ? e.position : null,
      length: parse && typeof e.length === "number" ? e.length : null,
      warnings: warnings
    };
  }
};
// What output "mathml" makes: the <math> that htmlAndMathml already built, wrapped in
// <span class="katex"> instead of <span class="katex-mathml"> (KaTeX's buildMathML makes
// both wrappers the same way). Reusing it saves a second parse and layout. Output "html"
// has no MathML in its tree: render again, as output "mathml", with the macros before any
// \gdef of the first render, and strict and trust answering as before but reporting
// nothing (the first render did).
var blogbuildMathmlOnly = function (tree, tex, settings, base) {
  var node = tree.hasClass("katex-display") ? tree.children[0] : tree;
  var wrapper = node.hasClass("katex") ? node.children[0] : null;
  if (wrapper && wrapper.hasClass("katex-mathml") && wrapper.children.length === 1) {
    wrapper.classes = ["katex"];  // after the page's markup: the tree is not used again
    return wrapper.toMarkup();
  }
  return katex.renderToString(tex, Object.assign({}, settings, {
    output: "mathml", strict: "ignore", macros: Object.assign({}, base),
    trust: blogbuildTrusted
  }));
};
// items: [tex, displayMode] or [tex, displayMode, k], k an index into `more`: the options
// of a formula whose macros differ from the batch's (definitions earlier on its page).
var blogbuildRenderMany = function (items, options, more) {
  return items.map(function (item) {
    return blogbuildRender(item[0], item[1], item.length > 2 ? more[item[2]] : options);
  });
};
