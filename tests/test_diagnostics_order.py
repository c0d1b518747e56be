"""The order of a report's diagnostics: each once, by file, line, column, severity and
message, as the dataclass compares them."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from blogbuild.diagnostics import Diagnostic, Severity, in_order

diagnostics = st.builds(
    Diagnostic,
    file=st.sampled_from(["content/a.md", "content/b.md", "site.yaml", "content/a.md "]),
    line=st.integers(0, 5), column=st.integers(0, 3),
    severity=st.sampled_from(list(Severity)),
    message=st.sampled_from(["x", "y", "display math is not closed", ""]))


@given(st.lists(diagnostics, max_size=60))
@example([Diagnostic("a.md", 1, 0, Severity.WARNING, "a"),
          Diagnostic("a.md", 1, 0, Severity.ERROR, "b"),
          Diagnostic("a.md", 1, 0, Severity.WARNING, "a")])
def test_in_order_is_the_sorted_set(found: list[Diagnostic]) -> None:
    ordered = in_order(found)
    assert ordered == sorted(set(found))
    assert len(ordered) == len(set(found))
