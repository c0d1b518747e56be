// What Mermaid's browser bundle (vendor/mermaid/mermaid.min.js) needs of a browser to parse
// a diagram in bare V8 (mini-racer), evaluated before it: mermaid.parse() draws nothing, so
// none of this is a DOM. blogbuild asks only whether Mermaid accepts a diagram's text.
var window = globalThis, self = globalThis;

// DOMPurify finds no document and gives Mermaid an object without its functions (it marks
// itself `isSupported = false`); labels are sanitised as they are parsed, so the object
// gets functions that leave text as it is: a verdict needs no clean text.
Object.defineProperty(Object.prototype, "isSupported", {
  configurable: true,
  set: function (value) {
    if (value === false && typeof this.version === "string") {
      var same = function (text) { return text; }, none = function () {};
      this.sanitize = same; this.addHook = none; this.removeHook = none;
      this.removeHooks = none; this.removeAllHooks = none; this.setConfig = none;
      this.clearConfig = none; this.isValidAttribute = function () { return true; };
    }
    Object.defineProperty(this, "isSupported",
                          {value: value, writable: true, enumerable: true, configurable: true});
  },
});

// The parsers built with Langium (pie, packet, architecture, …) copy their settings.
globalThis.structuredClone = function clone(value, seen) {
  if (value === null || typeof value !== "object") return value;
  seen = seen || new Map();
  if (seen.has(value)) return seen.get(value);
  if (value instanceof Date) return new Date(value.getTime());
  if (value instanceof RegExp) return new RegExp(value.source, value.flags);
  var out;
  if (value instanceof Map) {
    out = new Map(); seen.set(value, out);
    value.forEach(function (item, key) { out.set(clone(key, seen), clone(item, seen)); });
    return out;
  }
  if (value instanceof Set) {
    out = new Set(); seen.set(value, out);
    value.forEach(function (item) { out.add(clone(item, seen)); });
    return out;
  }
  out = Array.isArray(value) ? [] : {};
  seen.set(value, out);
  Object.keys(value).forEach(function (key) { out[key] = clone(value[key], seen); });
  return out;
};

// A sequence diagram's box asks whether its first word is a colour; a link's URL is
// checked and normalised (`click`, `link`). Neither changes whether the text parses.
globalThis.CSS = {supports: function () { return true; }};
globalThis.URL = function URL(text) {
  var parts = /^([a-z][a-z0-9+.-]*:)\/\/([^\/?#]*)(.*)$/i.exec(String(text));
  if (!parts) throw new TypeError("Invalid URL: " + text);
  this.protocol = parts[1]; this.hostname = parts[2]; this.rest = parts[3];
};
URL.prototype.toString = function () { return this.protocol + "//" + this.hostname + this.rest; };
URL.canParse = function (text) {
  try { new URL(text); return true; } catch (error) { return false; }
};
