"""A batch's progress on stderr, as a terminal or a CI log takes it.

- On a terminal: one line redrawn in place, at most ten times a second: done/total,
  refused, rate, ETA, and the bundle just scored.
- Elsewhere (a CI runner, a pipe, a file): a line every :data:`LOG_EVERY` seconds
  with done/total, refused and rate, and nothing for a batch done sooner.
- ``--quiet``: nothing.

The total is known once every input is listed (files) or read to its end (JSONL
streams); until then a line says ``total unknown`` rather than guess.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TextIO

from curator_io.grammar import printable
from ranking.running.batch import BundleResult

__all__ = ["Progress", "LOG_EVERY"]

#: Seconds between two progress lines when stderr is not a terminal.
LOG_EVERY = 5.0
_REDRAW_EVERY = 0.1
_WIDTH = 120


def _now() -> float:
    return time.monotonic()


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    """Told each result in turn (:meth:`update`) and the total once known (:attr:`total`)."""

    def __init__(self, stream: TextIO, *, quiet: bool = False, clock: Callable[[], float] | None = None) -> None:
        self.stream = stream
        self.clock = clock or _now
        self.terminal = not quiet and stream.isatty()
        self.logging = not quiet and not self.terminal
        self.total: int | None = None
        self.done = 0
        self.refused = 0
        self.started = self.clock()
        self.last = float("-inf") if self.terminal else self.started  # a log line only after LOG_EVERY
        self.label = ""
        self.drawn = False

    def __enter__(self) -> Progress:
        return self

    def update(self, result: BundleResult) -> None:
        self.done += 1
        self.refused += result.outcome == "error"
        self.label = result.source.label
        now = self.clock()
        if self.terminal and now - self.last >= _REDRAW_EVERY:
            self.last = now
            self._draw(now)
        elif self.logging and now - self.last >= LOG_EVERY:
            self.last = now
            self._log(now)

    def _parts(self, now: float) -> list[str]:
        """``done/total (share)`` or ``done done, total unknown``; refused; rate; ETA when known."""
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        if self.total is None:
            parts = [f"{self.done} done, total unknown"]
        else:
            parts = [f"{self.done}/{self.total}" + (f" ({100 * self.done // self.total}%)" if self.total else "")]
        parts += [f"{self.refused} refused", f"{rate:.1f}/s" if rate < 10 else f"{rate:.0f}/s"]
        if self.total is not None and rate > 0 and self.total > self.done:
            parts.append(f"ETA {_duration((self.total - self.done) / rate)}")
        return parts

    def _draw(self, now: float) -> None:
        counts = " · ".join(self._parts(now))
        # A line longer than the terminal wraps and is redrawn below itself: the label
        # gives way first, keeping its end (a file's own name says most).
        room = self._width() - len(counts) - 3
        label = printable(self.label)
        if len(label) > room:
            label = "…" + label[len(label) - room + 1 :] if room > 1 else ""
        self.stream.write(f"\r\x1b[K{counts} · {label}")
        self.stream.flush()
        self.drawn = True

    def _width(self) -> int:
        try:
            return min(_WIDTH, os.get_terminal_size(self.stream.fileno()).columns - 1)
        except (AttributeError, OSError, ValueError):
            return _WIDTH

    def _log(self, now: float) -> None:
        self.stream.write(f"evidence-rank: batch: {', '.join(self._parts(now))}\n")
        self.stream.flush()

    def __exit__(self, *exc: object) -> None:
        if self.terminal and self.done:
            self._draw(self.clock())  # the final count, whatever the throttle skipped
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
