"""One registry of the paths a build writes and who wants each: every collision found one way.

Pages, tag pages, feeds, content assets, static files and bundles all claim their output
path here before anything is written. Two owners of one path, or a file where another owner
needs a folder (`feed.xml` and `feed.xml/index.html`), is an error naming both; nothing is
silently overwritten. The one exception is by design: a file of the site's static/ replaces
the theme's file of the same name.
"""

from __future__ import annotations

from dataclasses import dataclass

from blogbuild.diagnostics import Diagnostic, error
from blogbuild.output.entries import folders_of
from blogbuild.readers import is_document
from blogbuild.urls import unsafe_path

#: Ranks: a SITE_STATIC owner may replace a THEME owner; every other overlap is an error.
THEME, SITE_STATIC, OWN = 0, 1, 2



@dataclass(frozen=True)
class Owner:
    """Who wants a path: `what` is shown in messages, `file`/`line` is where to fix it
    (empty for what blogbuild generates by itself, such as the feed)."""

    what: str
    file: str
    line: int = 0
    rank: int = OWN
    fix: str = ""  # what to do about a collision, when the generic advice does not fit


class Claims:
    """Output path -> owner; `claim` records collisions as error diagnostics."""

    def __init__(self) -> None:
        self.files: dict[str, Owner] = {}
        self._folders: dict[str, Owner] = {}  # every parent folder -> the first owner under it
        self.problems: list[Diagnostic] = []

    def __contains__(self, rel: str) -> bool:
        return rel in self.files

    def claim(self, rel: str, owner: Owner) -> bool:
        """Record that `owner` writes `rel`; False when it may not (the reason is recorded)."""
        bad = unsafe_path(rel)
        if bad is not None:
            self._report(owner, f"{owner.what} would be written to {rel!r}, outside the output "
                                f"folder: {bad}; change its slug or the permalink")
            return False
        current = self.files.get(rel)
        if current is not None:
            if current == owner:
                return True
            if current.rank == THEME and owner.rank in (THEME, SITE_STATIC):
                self.files[rel] = owner
                return True
            self._collide(rel, current, owner)
            return False
        if rel in self._folders:
            self._collide(rel, self._folders[rel], owner, folder=True)
            return False
        parents = list(folders_of(rel))
        for parent in parents:
            if parent in self.files:
                self._collide(parent, self.files[parent], owner, folder=True)
                return False
        for parent in parents:
            self._folders.setdefault(parent, owner)
        self.files[rel] = owner
        return True

    def _collide(self, rel: str, first: Owner, second: Owner, *, folder: bool = False) -> None:
        where = f"{rel} (one as a file, one as a folder)" if folder else rel
        # Report it where the author can act: generated pages have no file of their own.
        self._report(second if second.file else first,
                     f"{first.what} and {second.what} both want {where}; "
                     f"{_advice(rel, first, second)}")

    def _report(self, owner: Owner, message: str) -> None:
        self.problems.append(error(owner.file or "blogbuild", owner.line, message))


def _advice(rel: str, first: Owner, second: Owner) -> str:
    if second.fix or first.fix:
        return second.fix or first.fix
    if first.rank == THEME:
        return (f"to replace the theme's {rel}, put your file at static/{rel}; otherwise "
                "rename yours")
    documents = [o.file for o in (first, second) if is_document(o.file)]
    slug = (f" ({documents[0]} can take another 'slug' in its front matter)"
            if documents else "")
    if not (first.file and second.file):
        return f"blogbuild writes {rel} itself: rename or move yours{slug}"
    if documents:
        return f"give {documents[-1]} another 'slug' in its front matter, or rename one of them"
    return "rename or move one of them"
