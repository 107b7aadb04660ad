"""A batch's progress on stderr, as a terminal or a CI log takes it.

- On a terminal: one line redrawn in place, at most ten times a second: done/total,
  refused, rate, ETA, and the bundle just scored.
- Elsewhere (a CI runner, a pipe, a file): a line every :data:`LOG_EVERY` seconds
  with done/total, refused and rate, and nothing for a batch done sooner.
- ``--quiet``: nothing.

The total is known once every input is listed (files) or read to its end (JSONL
streams). Until then, when every input is a file on disk, the share done is counted
in bytes (:attr:`Progress.bytes_total`), and the ETA from it; a stream that is no
file (standard input, a pipe, a URL) leaves the line saying ``total unknown``
rather than guess.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable
from typing import TextIO

from ranking.running.batch import BundleResult
from ranking.views.terminal import printable

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
        #: The inputs' bytes, when the count is not known from the start but every input's size is.
        self.bytes_total: int | None = None
        self.bytes_done = 0
        self._sizes: deque[int] = deque()  # each bundle's bytes, in input order, read ahead of its result
        self.done = 0
        self.refused = 0
        self.started = self.clock()
        self.last = float("-inf") if self.terminal else self.started  # a log line only after LOG_EVERY
        self.label = ""
        self.drawn = False

    def __enter__(self) -> Progress:
        return self

    def read(self, size: int) -> None:
        """The next bundle, in input order, was ``size`` bytes of its input."""
        self._sizes.append(size)

    def update(self, result: BundleResult) -> None:
        self.done += 1
        self.bytes_done += self._sizes.popleft() if self._sizes else 0
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
        """``done/total (share)``, ``done done (share of the bytes)`` or ``done done, total unknown``;
        refused; rate; ETA when the share is known."""
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        share = self._share()
        percent = f" ({100 * share[0] // share[1]}%)" if share[1] else ""
        if self.total is not None:
            parts = [f"{self.done}/{self.total}{percent}"]
        elif self.bytes_total is not None:
            parts = [f"{self.done} done{percent}"]
        else:
            parts = [f"{self.done} done, total unknown"]
        parts += [f"{self.refused} refused", f"{rate:.1f}/s" if rate < 10 else f"{rate:.0f}/s"]
        if 0 < share[0] < share[1] and elapsed > 0:
            parts.append(f"ETA {_duration(elapsed * (share[1] - share[0]) / share[0])}")
        return parts

    def _share(self) -> tuple[int, int]:
        """The share done, as (part, whole): of the bundles once their number is known, else of the
        inputs' bytes; (0, 0) when neither is known."""
        if self.total is not None:
            return self.done, self.total
        if self.bytes_total is not None:
            return min(self.bytes_done, self.bytes_total), self.bytes_total
        return 0, 0

    def _draw(self, now: float) -> None:
        counts = " · ".join(self._parts(now))
        # A line longer than the terminal wraps and is redrawn below itself: the label
        # gives way first, keeping its end (a file's own name says most).
        room = self._width() - len(counts) - 3
        label = printable(self.label)
        if len(label) > room:
            label = "…" + label[len(label) - room + 1 :] if room > 1 else ""
        self.stream.write(f"\r\x1b[K{counts} · {label}" if label else f"\r\x1b[K{counts}")
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
