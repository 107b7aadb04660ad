"""The cyclic garbage collector, off while a command runs.

A command loads one bundle, ranks it, writes the reports and exits. It
allocates millions of small objects that reference counting frees and that
form no cycles (``tests/ranking/pipeline/test_pipeline_gc.py`` holds the pipeline to
that), so the collector's passes over a growing heap find nothing; the
command's own process can afford to skip them. A library call cannot: a
caller's heap and its setting are the caller's, so ``rank()`` leaves the
collector alone and each command's ``run`` is wrapped here instead. The
previous state is restored, so ``ranking.cli.main`` called in-process (a test,
a script) leaves its caller's setting as it found it.
"""

from __future__ import annotations

import argparse
import functools
import gc
from collections.abc import Callable

__all__ = ["collector_off"]

Run = Callable[[argparse.Namespace], int]


def collector_off(run: Run) -> Run:
    """``run`` with the cyclic collector disabled until it returns."""

    @functools.wraps(run)
    def wrapped(args: argparse.Namespace) -> int:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return run(args)
        finally:
            if was_enabled:
                gc.enable()

    return wrapped
