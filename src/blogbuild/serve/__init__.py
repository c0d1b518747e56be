"""The live server: the engine run on every change, HTTP, reload events, the watcher."""
