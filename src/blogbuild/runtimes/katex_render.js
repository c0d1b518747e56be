// blogbuild's entry points into the vendored KaTeX (loaded first, in the same V8 context).
// Errors come back as data, never as JS exceptions: a thrown exception carries the whole
// minified source in its message. `trust` lets only in-page links (\eqref) through.
var blogbuildRender = function (tex, displayMode, options) {
  var warnings = [];
  var settings = {
    displayMode: displayMode,
    output: options.output,
    macros: Object.assign({}, options.macros),
    throwOnError: true,
    strict: function (code, message, token) {
      warnings.push({code: String(code), message: String(message),
                     position: token && token.loc ? token.loc.start : null});
      return "ignore";
    },
    trust: function (context) {
      if (context.command === "\\href" && String(context.url).charAt(0) === "#") return true;
      warnings.push({code: "untrusted", position: null,
                     message: context.command + " is not allowed in math"});
      return false;
    }
  };
  try {
    var tree = katex.__renderToDomTree(tex, settings);
    var result = {html: tree.toMarkup(), warnings: warnings};
    if (options.output !== "mathml") {
      // The feed's variant: MathML alone, readable without KaTeX's stylesheet.
      result.mathml = blogbuildMathmlOnly(tree, tex, settings, options);
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
var blogbuildMathmlOnly = function (tree, tex, settings, options) {
  var node = tree.hasClass("katex-display") ? tree.children[0] : tree;
  var wrapper = node.hasClass("katex") ? node.children[0] : null;
  if (wrapper && wrapper.hasClass("katex-mathml") && wrapper.children.length === 1) {
    wrapper.classes = ["katex"];  // after the page's markup: the tree is not used again
    return wrapper.toMarkup();
  }
  return katex.renderToString(tex, Object.assign({}, settings, {
    output: "mathml", strict: "ignore", macros: Object.assign({}, options.macros),
    trust: function (context) {
      return context.command === "\\href" && String(context.url).charAt(0) === "#";
    }
  }));
};
var blogbuildRenderMany = function (items, options) {
  return items.map(function (item) { return blogbuildRender(item[0], item[1], options); });
};
