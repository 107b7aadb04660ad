"""A deadline for code that might never return, so that a regression to a hang fails its test
instead of stopping the suite (a fast path that loops on a value containing itself, say)."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from curator_io.errors import EvidenceRankError


class _Expired(BaseException):
    """Raised into the running code when its time is up (not an Exception: nothing under test
    may catch it)."""


def _expire(signum: int, frame: Any) -> None:
    raise _Expired


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail the test if the block runs longer than ``seconds`` (SIGALRM: the main thread only,
    and Python code only, which is where a walk over a value loops)."""
    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    expired = False
    try:
        yield
    except _Expired:
        expired = True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if expired:
        pytest.fail(f"still running after {seconds} s: it hangs", pytrace=False)


def outcome(call: Callable[[Any], Any], value: Any, *, seconds: float = 5.0) -> Any:
    """What ``call(value)`` gives a caller, within ``seconds``: ``("returned", result)``, or the
    exception's class, its ``code`` and ``pointer`` when it has them, and its message (not for
    RecursionError, whose message names the frame the stack ran out in)."""
    with deadline(seconds):
        try:
            return ("returned", call(value))
        except RecursionError:
            return ("raised", RecursionError)
        except (EvidenceRankError, ValueError, TypeError) as e:
            return ("raised", type(e), getattr(e, "code", None), getattr(e, "pointer", None), str(e))
