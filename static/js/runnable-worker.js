// Runs Python for runnable.js in a module Web Worker: one worker is one Pyodide interpreter.
// Messages in:  {type: "init", indexURL, packagesURL, interruptBuffer}
//               {type: "run", id, code, filename, isolated}
// Messages out: {type: "status", id, phase: "loading-runtime" | "loading-packages" | "running",
//                detail}
//               {type: "output", id, chunks: [["stdout" | "stderr", text], …]}
//               {type: "done", id, status: "ok" | "error" | "package-error" | "boot-error",
//                result, error, errorName, ms, restart}

const PACKAGE_TIMEOUT_MS = 120000;
const FLUSH_BYTES = 8192;
const FLUSH_MS = 50;

// The Python half: runs one block in the shared namespace (or a fresh one for isolated
// blocks), returns the repr of a final expression, or the traceback trimmed to the
// reader's own frames (the driver's frames mean nothing to a reader).
const DRIVER = `
import ast
import builtins
import sys
import traceback

from pyodide.code import CodeRunner, find_imports

_shared = {"__name__": "__main__"}


def _no_input(prompt=""):
    raise RuntimeError(
        "input() cannot read from the keyboard in a runnable block; "
        "set the value in the code instead"
    )


builtins.input = _no_input


def _own_frames(tb, filename):
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            return tb
        tb = tb.tb_next
    return None


def _format(exc, filename):
    tb = _own_frames(exc.__traceback__, filename)
    if tb is None and isinstance(exc, SyntaxError):
        # Raised while compiling: no frame of the block exists, only the error itself.
        return "".join(traceback.format_exception_only(type(exc), exc))
    if tb is None:
        tb = exc.__traceback__
    return "".join(traceback.format_exception(type(exc), exc, tb))


async def run(code, filename, isolated):
    namespace = {"__name__": "__main__"} if isolated else _shared
    try:
        runner = CodeRunner(
            code,
            filename=filename,
            return_mode="last_expr",
            quiet_trailing_semicolon=True,
            flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
            dedent=False,
        ).compile()
        result = await runner.run_async(namespace)
        text = None if result is None else repr(result)
    except BaseException as exc:
        return ["error", type(exc).__name__, _format(exc, filename)]
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return ["ok", None, text]


def imports(code):
    return find_imports(code)
`;

let config = null;
let pyodide = null;
let driver = null;
let booting = null;
let current = null; // id of the block whose output is being collected
let queue = Promise.resolve();
let importMap = null;

const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
// Output waiting to be posted, in the order it was written: [[stream, text], …].
let pending = [];
let pendingSize = 0;
let lastPost = 0;

function post(message) {
  self.postMessage(message);
}

function flush() {
  for (const name of ["stdout", "stderr"]) {
    const tail = decoders[name].decode();
    if (tail) pending.push([name, tail]);
  }
  const chunks = pending;
  pending = [];
  pendingSize = 0;
  lastPost = Date.now();
  if (chunks.length && current !== null) post({ type: "output", id: current, chunks });
}

function writer(name) {
  return {
    isatty: false,
    write(buffer) {
      const text = decoders[name].decode(buffer, { stream: true });
      const last = pending[pending.length - 1];
      if (last && last[0] === name) last[1] += text;
      else if (text) pending.push([name, text]);
      pendingSize += text.length;
      // Python runs synchronously here, so no timer could fire: flush by size or age.
      if (pendingSize >= FLUSH_BYTES || Date.now() - lastPost >= FLUSH_MS) {
        const chunks = pending;
        pending = [];
        pendingSize = 0;
        lastPost = Date.now();
        if (current !== null) post({ type: "output", id: current, chunks });
      }
      return buffer.length;
    },
  };
}

// Some of Pyodide's start-up failures (a file that cannot be fetched) surface only as an
// unhandled rejection while loadPyodide() never settles: turn them into a failed boot.
let failBoot = null;
self.addEventListener("unhandledrejection", (event) => {
  if (failBoot === null) return;
  event.preventDefault();
  failBoot(event.reason);
});

// When the WebAssembly cannot be compiled (a server sending .wasm with the wrong MIME type,
// say), Emscripten only warns "wasm instantiation failed!" and then the reason, and waits.
function watchWarnings() {
  const warn = console.warn;
  let failed = false;
  console.warn = (...args) => {
    warn.apply(console, args);
    const text = args.map(String).join(" ");
    if (failed && failBoot !== null) failBoot(new Error(text.split("\n")[0]));
    if (text.includes("wasm instantiation failed")) failed = true;
  };
  return () => {
    console.warn = warn;
  };
}

function boot(id) {
  const unwatch = watchWarnings();
  return new Promise((resolve, reject) => {
    failBoot = reject;
    startPyodide(id).then(resolve, reject);
  }).finally(() => {
    failBoot = null;
    unwatch();
  });
}

async function startPyodide(id) {
  post({ type: "status", id, phase: "loading-runtime" });
  const { loadPyodide } = await import(config.indexURL + "pyodide.mjs");
  const py = await loadPyodide({
    indexURL: config.indexURL,
    // The lock file is the vendored one; its wheels live in the package index.
    packageBaseUrl: config.packagesURL,
  });
  if (config.interruptBuffer) py.setInterruptBuffer(config.interruptBuffer);
  py.setStdout(writer("stdout"));
  py.setStderr(writer("stderr"));
  py.setStdin({ error: true });
  const namespace = py.toPy({});
  py.runPython(DRIVER, { globals: namespace, filename: "<runnable>" });
  driver = { run: namespace.get("run"), imports: namespace.get("imports") };
  namespace.destroy();
  pyodide = py;
}

function packageIndex() {
  if (importMap === null) {
    importMap = new Map();
    const packages = pyodide.lockfile.packages;
    for (const [key, info] of Object.entries(packages)) {
      for (const name of info.imports || []) importMap.set(name, key);
    }
  }
  return { map: importMap, packages: pyodide.lockfile.packages };
}

// Lock-file packages that `code` imports, with their dependencies, not loaded yet.
function packagesToLoad(code) {
  const proxy = driver.imports(code);
  const names = proxy.toJs();
  proxy.destroy();
  const { map, packages } = packageIndex();
  const wanted = new Set();
  const stack = names.map((name) => map.get(name)).filter((key) => key !== undefined);
  while (stack.length) {
    const key = stack.pop();
    if (wanted.has(key) || !packages[key]) continue;
    wanted.add(key);
    for (const dep of packages[key].depends || []) stack.push(dep);
  }
  const direct = new Set(names.map((name) => map.get(name)));
  return { needed: [...wanted].filter((key) => !isLoaded(key)), direct };
}

function isLoaded(key) {
  const loaded = pyodide.loadedPackages;
  return key in loaded || pyodide.lockfile.packages[key].name in loaded;
}

function packagesAreRemote() {
  return new URL(config.packagesURL).origin !== self.location.origin;
}

async function loadPackages(id, code) {
  const { needed, direct } = packagesToLoad(code);
  if (needed.length === 0) return null;
  const packages = pyodide.lockfile.packages;
  // Name the packages the code imports before their dependencies.
  needed.sort((a, b) => Number(direct.has(b)) - Number(direct.has(a)));
  const names = needed.map((key) => packages[key].name);
  post({ type: "status", id, phase: "loading-packages", detail: names.join(", ") });
  const problems = [];
  let timer = null;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve("timeout"), PACKAGE_TIMEOUT_MS);
  });
  // A failed load does not reject: only errorCallback hears about it. Collect what it says.
  const load = pyodide
    .loadPackagesFromImports(code, {
      messageCallback: () => {},
      errorCallback: (message) => problems.push(String(message)),
    })
    .then(
      () => "loaded",
      (error) => {
        problems.push(String(error && error.message ? error.message : error));
        return "rejected";
      },
    );
  const outcome = await Promise.race([load, timeout]);
  clearTimeout(timer);
  const failed = outcome === "timeout" ? needed : needed.filter((key) => !isLoaded(key));
  if (failed.length === 0) return null;
  const what = failed.map((key) => packages[key].name).join(", ");
  // Pyodide's own wording precedes each reason; the reader needs only the reason.
  const reasons = problems
    .filter((line) => line.trim() !== "" && !line.startsWith("The following error occurred"))
    .map((line) => line.trim());
  if (outcome === "timeout") reasons.push(`no answer within ${PACKAGE_TIMEOUT_MS / 1000} s`);
  let error = `${what} could not be loaded from ${config.packagesURL}\n`;
  if (reasons.length) error += `(${[...new Set(reasons)].join("; ")})\n`;
  error += "The code was not run. ";
  error += packagesAreRemote()
    ? "Check your connection and run it again.\n"
    : "This site's package folder may not hold it.\n";
  return { error, restart: outcome === "timeout" };
}

async function run(message) {
  const { id, code, filename, isolated } = message;
  current = id;
  try {
    if (pyodide === null) {
      booting = booting || boot(id);
      try {
        await booting;
      } catch (error) {
        booting = null;
        const reason = error && error.message ? error.message : String(error);
        post({
          type: "done",
          id,
          status: "boot-error",
          error: `The Python runtime could not be loaded from ${config.indexURL}: ${reason}`,
          restart: true,
        });
        return;
      }
    }
    const failure = await loadPackages(id, code);
    if (failure !== null) {
      post({ type: "done", id, status: "package-error", error: failure.error,
             restart: failure.restart });
      return;
    }
    if (config.interruptBuffer) config.interruptBuffer[0] = 0;
    post({ type: "status", id, phase: "running" });
    const start = performance.now();
    const proxy = await driver.run(code, filename, Boolean(isolated));
    const ms = performance.now() - start;
    const [status, errorName, payload] = proxy.toJs();
    proxy.destroy();
    flush();
    if (status === "ok") {
      post({ type: "done", id, status: "ok", result: payload, ms });
    } else {
      post({ type: "done", id, status: "error", errorName, error: payload, ms });
    }
  } catch (error) {
    flush();
    const reason = error && error.message ? error.message : String(error);
    post({ type: "done", id, status: "error", errorName: "InternalError", error: reason,
           restart: true });
  } finally {
    current = null;
  }
}

self.onmessage = (event) => {
  const message = event.data;
  if (message.type === "init") {
    config = message;
  } else if (message.type === "run") {
    // One block at a time, even when a block awaits (top-level await yields to this loop).
    queue = queue.then(() => run(message));
  }
};
