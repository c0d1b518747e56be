// Runs Python for runnable.js in a module Web Worker: one worker is one Pyodide interpreter.
// Messages in:  {type: "init", indexURL, packagesURL, interruptBuffer}
//               {type: "run", id, code, filename, isolated}
//               {type: "stop", id}: ends a block that waits at an `await` (a block busy in
//                Python never lets this message in; the interrupt buffer stops it)
// Messages out: {type: "status", id, phase: "loading-runtime" | "loading-packages" | "running",
//                detail}
//               {type: "output", id, chunks: [["stdout" | "stderr", text], …]}
//               {type: "item", id, item}: an output item of runnable_capture.py (image, html,
//                result, error), after the output printed before it
//               {type: "done", id, status: "ok" | "error" | "package-error" | "boot-error",
//                error, errorName, ms, restart}

const PACKAGE_TIMEOUT_MS = 120000;
const FLUSH_BYTES = 8192;
const FLUSH_MS = 50;

// The module that turns figures, tables and values into output items; CPython runs the same
// file when a site is built. It lives beside this script.
const CAPTURE_URL = new URL("./runnable_capture.py", import.meta.url);
const CAPTURE_DIR = "/blogbuild";

// The Python half: runs one block in the shared namespace (or a fresh one for isolated
// blocks) inside a capture that posts each output item as it is made.
//
// Stop writes SIGINT into the interrupt buffer, again and again until the block ends
// (runnable.js); Python reads it every few dozen bytecodes, wherever it is. Only the block's
// own code may be interrupted: the same read inside the event loop's machinery (before the
// block's first step, between its awaits) or inside the driver would raise KeyboardInterrupt
// where nothing catches it for the block, and the block would run on until Stop's grace ran
// out and the runtime was restarted. So the handler raises only when the block's code is on
// the stack, and lets the signal go elsewhere: the next one reaches the block.
const DRIVER = `
import ast
import asyncio
import builtins
import json
import signal
import sys

sys.path.append("${CAPTURE_DIR}")

import runnable_capture
from pyodide.code import CodeRunner, find_imports

_shared = {"__name__": "__main__"}
_post_item = None
_block = None  # the filename of the block being run, from run() until it ends
_task = None  # its task, once it has started
_stopped = False  # Stop came by message (the block waits at an await)

builtins.input = runnable_capture.no_input
runnable_capture.install()


def set_poster(post):
    global _post_item
    _post_item = post


def _emit(item):
    _post_item(json.dumps(item))


def _on_interrupt(signum, frame):
    while _block is not None and frame is not None:
        if frame.f_code.co_filename == _block:
            raise KeyboardInterrupt
        frame = frame.f_back


def _from_the_block(exc):
    """exc without the interrupt handler's frame: the reader's traceback ends in the block."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        if tb.tb_next.tb_frame.f_code is _on_interrupt.__code__:
            tb.tb_next = tb.tb_next.tb_next
        else:
            tb = tb.tb_next
    return exc


signal.signal(signal.SIGINT, _on_interrupt)


def run(code, filename, isolated):
    global _block, _task, _stopped
    _block, _task, _stopped = filename, None, False
    return _run(code, filename, isolated)


def stop():
    """Stop a block that waits at an await: cancel it where it waits."""
    global _stopped
    _stopped = True
    if _task is not None:
        _task.cancel()


async def _run(code, filename, isolated):
    global _block, _task
    namespace = {"__name__": "__main__"} if isolated else _shared
    try:
        with runnable_capture.Capture(_emit) as capture:
            try:
                _task = asyncio.current_task()
                if _stopped:
                    raise KeyboardInterrupt
                runner = CodeRunner(
                    code,
                    filename=filename,
                    return_mode="last_expr",
                    quiet_trailing_semicolon=True,
                    flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
                    dedent=False,
                ).compile()
                capture.finish(await runner.run_async(namespace))
            except BaseException as exc:
                if _stopped and isinstance(exc, asyncio.CancelledError):
                    exc = KeyboardInterrupt().with_traceback(exc.__traceback__)
                elif _stopped and isinstance(exc, KeyboardInterrupt):
                    exc.__suppress_context__ = True  # the cancel and the interrupt both came
                capture.fail(_from_the_block(exc), filename)
                return ["error", type(exc).__name__]
    finally:
        _block = _task = None
    return ["ok", None]


def imports(code):
    return find_imports(code)
`;

let config = null;
let pyodide = null;
let driver = null;
let booting = null;
let current = null; // id of the block whose output is being collected
let running = null; // id of the block whose code the driver runs (Stop may reach it)
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

// Called by the driver with an item as JSON, once Python has flushed what it printed.
function postItem(json) {
  flush();
  if (current !== null) post({ type: "item", id: current, item: JSON.parse(json) });
}

async function fetchCapture() {
  const response = await fetch(CAPTURE_URL);
  if (!response.ok) throw new Error(`${CAPTURE_URL} answered ${response.status}`);
  return response.text();
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
  const capture = fetchCapture();
  capture.catch(() => {}); // awaited below; a failure then fails the boot
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
  py.FS.mkdirTree(CAPTURE_DIR);
  py.FS.writeFile(`${CAPTURE_DIR}/runnable_capture.py`, await capture);
  const namespace = py.toPy({});
  py.runPython(DRIVER, { globals: namespace, filename: "<runnable>" });
  driver = {
    run: namespace.get("run"),
    stop: namespace.get("stop"),
    imports: namespace.get("imports"),
  };
  const setPoster = namespace.get("set_poster");
  setPoster(postItem);
  setPoster.destroy();
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
    if (config.interruptBuffer) Atomics.store(config.interruptBuffer, 0, 0);
    const start = performance.now();
    // From here (the driver knows the block) Stop may interrupt.
    const block = driver.run(code, filename, Boolean(isolated));
    running = id;
    post({ type: "status", id, phase: "running" });
    let proxy;
    try {
      proxy = await block;
    } finally {
      running = null;
      block.destroy();
    }
    const ms = performance.now() - start;
    const [status, errorName] = proxy.toJs();
    proxy.destroy();
    flush();
    post({ type: "done", id, status, errorName, ms });
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
  } else if (message.type === "stop") {
    // This message only gets in while Python waits: the block is at an await.
    if (running === message.id) driver.stop();
  } else if (message.type === "run") {
    // One block at a time, even when a block awaits (top-level await yields to this loop).
    queue = queue.then(() => run(message));
  }
};
