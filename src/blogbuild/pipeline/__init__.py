"""The one build engine, used by `build` and `serve` alike, and its core: the sources read,
the renders and their store, the build's state, the pages and what they read, the workers.

`engine.Engine.run` is one call per step (begin → read → prepare → render → assemble →
plan → check → write → finish); the stages it runs at its steps are blogbuild.stages, the
readers of the sources blogbuild.readers. See docs/architecture.md.
"""
