"""Where a post's rendered body is kept, as the rest of the build sees it: light on purpose
(the search index's process reads bodies and loads nothing of the content model)."""

from __future__ import annotations

from typing import Protocol


class MissingBody(LookupError):
    """A rendered body that is not where it should be (a damaged or pruned render store):
    the build renders the source again; never shown to an author."""

    def __init__(self, digest: str) -> None:
        super().__init__(digest)
        self.digest = digest


class Bodies(Protocol):
    """Where rendered bodies are kept (the render store): a Post holds only their digest."""

    def html(self, digest: str) -> str: ...

    def feed_html(self, digest: str) -> str: ...
