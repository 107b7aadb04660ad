"""A log file's lines, from its bytes in chunks of any size, with the digest of every byte.

A line ends at ``\\n`` (a ``\\r`` before it is left out, so CRLF reads as LF); the last line
needs none. A line of more than :data:`MAX_LINE_BYTES` is not held: it is given as ``None``
(the reader counts it ``oversized_line``) while its bytes still count in the digest, so a log
is read in memory bounded by that size, whatever its length. Pure: chunks in, lines out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator

from curator_io.catalogue import DIGEST_PREFIX

__all__ = ["MAX_LINE_BYTES", "LogLines"]

MAX_LINE_BYTES = 64 << 20
"""The longest line a reader holds (64 MiB): a record with a pasted image is a few MB."""


class LogLines:
    """Iterate for ``(line_number, bytes | None)``, 1-based, blank lines left out; then
    :attr:`digest` and :attr:`count` hold the whole file's."""

    def __init__(self, chunks: Iterable[bytes], *, most: int = MAX_LINE_BYTES) -> None:
        self._chunks = chunks
        self._most = most
        self._hash = hashlib.sha256()
        self.count = 0

    @property
    def digest(self) -> str:
        """``sha256:HEX`` of every byte read so far (all of them, once iterated)."""
        return DIGEST_PREFIX + self._hash.hexdigest()

    def __iter__(self) -> Iterator[tuple[int, bytes | None]]:
        held: list[bytes] = []
        size = 0
        over = False
        for chunk in self._chunks:
            self._hash.update(chunk)
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                piece = chunk[start:] if end < 0 else chunk[start:end]
                if not over:
                    size += len(piece)
                    if size > self._most:
                        over, held = True, []
                    else:
                        held.append(piece)
                if end < 0:
                    break
                self.count += 1
                line = None if over else b"".join(held)
                if line is None or line.strip(b" \t\r"):
                    yield self.count, (line[:-1] if line is not None and line.endswith(b"\r") else line)
                held, size, over = [], 0, False
                start = end + 1
        if size or over:
            self.count += 1
            line = None if over else b"".join(held)
            if line is None or line.strip(b" \t\r"):
                yield self.count, (line[:-1] if line is not None and line.endswith(b"\r") else line)
