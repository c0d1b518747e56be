"""Waiting for work in blogbuild.cancel: its outcome, whatever the moment it comes."""

from __future__ import annotations

from concurrent.futures import Future

import pytest

from blogbuild import cancel


class DoneAsTheWaitGivesUp(Future[int]):
    """Work that finishes in the instant between the wait's deadline and its look at the
    future (a loaded machine)."""

    def result(self, timeout: float | None = None) -> int:
        if timeout is not None and not self.done():
            self.set_result(42)
            raise TimeoutError
        return super().result(timeout)


def test_work_done_as_the_wait_gives_up_gives_its_result() -> None:
    assert cancel.result(DoneAsTheWaitGivesUp()) == 42


def test_the_works_own_timeout_is_raised() -> None:
    future: Future[int] = Future()
    future.set_exception(TimeoutError("the work's"))
    with pytest.raises(TimeoutError, match="the work's"):
        cancel.result(future)
