"""The fingerprints of what templates read (blogbuild.pipeline.deps.fingerprint): equal values
give equal fingerprints in any process, whichever of their parts are the same object, and
values that differ (even only in type: 1, 1.0, True, "1") give different ones."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from blogbuild.pipeline.deps import fingerprint, shape

LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20),
                   st.binary(max_size=10),
                   st.floats(allow_nan=False), st.dates())
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(st.text(max_size=5), inner, max_size=3),
                            st.frozensets(st.text(max_size=5), max_size=3)),
    max_leaves=12)


def rebuilt(value: Any) -> Any:
    """An equal value made of new objects (strings built anew are not the same object,
    nor interned as a literal is)."""
    if isinstance(value, str):
        return "".join(list(value))
    if isinstance(value, bytes):
        return bytes(bytearray(value))
    if isinstance(value, list):
        return [rebuilt(v) for v in value]
    if isinstance(value, tuple):
        return tuple(rebuilt(v) for v in value)
    if isinstance(value, dict):
        return {rebuilt(k): rebuilt(v) for k, v in value.items()}
    if isinstance(value, frozenset):
        return frozenset(rebuilt(v) for v in value)
    return value


@settings(max_examples=200, deadline=None)
@given(VALUES)
def test_equal_values_made_of_other_objects_have_one_fingerprint(value: Any) -> None:
    assert fingerprint(value) == fingerprint(rebuilt(value))


@settings(max_examples=200, deadline=None)
@given(VALUES, VALUES)
def test_values_that_differ_have_different_fingerprints(a: Any, b: Any) -> None:
    # As a template sees them: a list and a tuple of the same items are one value, the
    # items of a set are in order, a date is its repr.
    if repr(shape(a)) != repr(shape(b)):
        assert fingerprint(a) != fingerprint(b)


def test_a_part_met_twice_is_fingerprinted_as_two_equal_parts() -> None:
    title = "".join(["a ", "title"])
    same = [title, title]
    apart = ["".join(["a ", "title"]), "".join(["a ", "title"])]
    assert same[0] is same[1] and apart[0] is not apart[1]
    assert fingerprint(same) == fingerprint(apart)


def test_the_type_of_a_value_counts() -> None:
    values = [1, 1.0, True, "1", b"1", (1,), [[1]], None, 0, False, "", (), dt.date(2024, 1, 1),
              "2024-01-01"]
    assert len({fingerprint(v) for v in values}) == len(values)


def test_another_process_gives_the_same_fingerprint() -> None:
    """What a build keeps in its state is compared in the next process."""
    value = {"title": "Café", "tags": [("ml", "ml"), ("rust", "rust")], "n": 3, "x": 0.5,
             "when": dt.date(2024, 5, 1), "set": frozenset({"b", "a"})}
    code = ("import datetime\nfrom blogbuild.pipeline.deps import fingerprint\n"
            f"print(fingerprint({value!r}).hex())")
    for seed in ("0", "1"):  # another order of the sets' strings in memory
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}, check=True)
        assert done.stdout.strip() == fingerprint(value).hex()
