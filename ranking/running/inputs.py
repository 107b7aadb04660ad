"""The one door every input comes in by: a bundle, a report, memory-after, the base, a
config, a trust file, a signature, a ledger to merge, a JSONL stream.

Every path is opened once, by the same rules, whatever it names:

1. ``-`` is standard input; a standard input that is closed is ``usage.unreadable``, and so
   is ``/dev/stdin`` (or ``/dev/fd/0``): :func:`hold_standard_streams`, called before anything
   opens a file, keeps a closed descriptor 0, 1 or 2 from being taken by the next file opened
   (the batch's lock file read as its input).
2. A character or block device that is not a terminal (``/dev/zero``, a disk) is
   refused before a byte is read: it never ends. This holds for ``-`` and
   ``/dev/stdin`` too, whatever they were redirected from.
3. A regular file, a pipe, a FIFO (``<(...)``) or a terminal is read to its end,
   and at most :data:`MAX_INPUT_BYTES`: a stream that goes on past that is
   refused (``usage.unreadable``), not held in memory until it runs out.
4. Anything that cannot be opened or read is ``usage.unreadable`` (exit 2), naming
   the path as given.

A caller reads each input once and keeps the bytes: whatever it needs later (a
line and column for an annotation, the document's text) comes from them, never
from the path again, so a FIFO or a file that changes meanwhile cannot give two
different answers. (tuf: the trusted set takes bytes; the updater fetches once.)
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, BinaryIO

from curator_io.errors import ConfigError

if TYPE_CHECKING:
    from curator_io.memory import MemoryFile
    from curator_io.transcripts.model import Transcript

__all__ = [
    "MAX_INPUT_BYTES",
    "STDIN",
    "hold_standard_streams",
    "read_input",
    "read_memory_file",
    "read_transcript_file",
    "read_if_present",
    "open_input",
    "refuse_device",
    "read_stream",
    "bounded_lines",
    "shown_path",
    "unreadable",
]

MAX_INPUT_BYTES = 1 << 30
"""The most an input may hold (1 GiB): the largest bundle measured (16,000 proposals) is 70 MB."""

STDIN = "-"
_CHUNK = 1 << 20


_STDIN_NAMES = ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
_closed_stdin = False


def hold_standard_streams() -> None:
    """Keep descriptors 0, 1 and 2 for what they are, before anything opens a file. A process
    started with one closed (``<&-``, ``>&-``) would give it to the first file it opens: the batch's
    lock file would be read as ``/dev/stdin``, a temporary file written as standard output. Each
    closed one is held by ``/dev/null``, and what it was for stays closed to this process: a
    closed standard input is remembered (``-`` and ``/dev/stdin`` are ``usage.unreadable``, it is
    closed) and a closed standard output is ``sys.stdout = None`` (writing to it is
    ``usage.unwritable``, as when Python starts without one); standard error's lines are lost."""
    global _closed_stdin
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if held != fd:  # pragma: no cover - the lowest free descriptor is the closed one
                os.dup2(held, fd)
                os.close(held)
            if fd == 0:
                _closed_stdin = True
                sys.stdin = None
            elif fd == 1:
                sys.stdout = None


def _refuse_closed_stdin(path: str | os.PathLike[str]) -> None:
    """Rule 1 for ``/dev/stdin`` and its other names when standard input was closed at start."""
    if _closed_stdin and os.fspath(path) in _STDIN_NAMES:
        raise unreadable(path, OSError(errno.EBADF, "it is closed"))


def shown_path(path: str | os.PathLike[str]) -> str:
    """How a message names an input: ``standard input`` for ``-``, else the path as given."""
    text = os.fspath(path)
    return "standard input" if text == STDIN else repr(text)


def read_input(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the input ``path`` names (rules 1-4 above)."""
    with open_input(path) as stream:
        return read_stream(stream, path)


def read_memory_file(path: str | os.PathLike[str], raw: bytes | None = None) -> MemoryFile:
    """A memory file (``gate``'s memory-after and base, ``apply --out FILE.md``, ``memory show``, the
    builder's next-day memory): its bytes read by :func:`read_input` (or ``raw``, when the caller
    read them already), in the form its name says (:func:`curator_io.memory.is_markdown_name`:
    ``.md`` is Markdown, anything else JSON, ``-`` included). ``.document`` reads it, through
    :func:`curator_io.memory.read_memory`, the one door every memory comes in by."""
    from curator_io.memory import MemoryFile, is_markdown_name  # only the commands that take a memory pay for it

    data = read_input(path) if raw is None else raw
    name = os.fspath(path)
    return MemoryFile(data, markdown=is_markdown_name(name), source=name)


def read_transcript_file(path: str | os.PathLike[str], *, form: str | None = None) -> Transcript:
    """An agent's log (docs/transcripts.md): a Claude Code session file or OTLP JSON spans, opened by
    rules 1, 2 and 4 and streamed a chunk at a time into :func:`curator_io.transcripts.reader.read_transcript`,
    which holds one line at a time (at most ``MAX_LINE_BYTES``): a log is read once, whatever its
    length, and is not held whole (rule 3's bound is on a line of it). Its name, as given, names it."""
    from curator_io.transcripts.reader import read_transcript  # only the commands that read logs pay for it

    with open_input(path) as stream:
        transcript = read_transcript(_chunks(stream, path), source=os.fspath(path), form=form)
    return transcript


def _chunks(stream: BinaryIO, path: str | os.PathLike[str]) -> Iterator[bytes]:
    try:
        while chunk := stream.read(_CHUNK):
            yield chunk
    except OSError as e:
        raise unreadable(path, e) from e


def read_if_present(path: str | os.PathLike[str]) -> bytes | None:
    """:func:`read_input`, or ``None`` when there is no such file (an optional input, such as
    the signature beside a bundle)."""
    try:
        return read_input(path)
    except ConfigError as e:
        if isinstance(e.__cause__, FileNotFoundError):
            return None
        raise


@contextlib.contextmanager
def open_input(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """``path`` opened for reading bytes by rules 1, 2 and 4, for a caller that reads it as a
    stream (a JSONL file, a line at a time); closed on leaving, except standard input."""
    _refuse_closed_stdin(path)
    if os.fspath(path) == STDIN:
        stream = _stdin()
        _refuse_device(stream, path)
        yield stream
        return
    try:
        stream = open(path, "rb")  # noqa: SIM115  # closed below, after the checks
    except OSError as e:
        raise unreadable(path, e) from e
    with stream:
        _refuse_device(stream, path)
        yield stream


def _stdin() -> BinaryIO:
    buffer: BinaryIO | None = getattr(sys.stdin, "buffer", None)  # None: Python started with it closed
    if buffer is None:
        raise unreadable(STDIN, OSError(errno.EBADF, "it is closed"))
    return buffer


def _refuse_device(stream: BinaryIO, path: str | os.PathLike[str]) -> None:
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except io.UnsupportedOperation:
        return  # no descriptor (a caller's own stream object): no device behind it
    except ValueError:  # a closed file object
        raise unreadable(path, OSError(errno.EBADF, "it is closed")) from None
    except OSError as e:  # EBADF: the descriptor was closed before this process started
        raise unreadable(path, OSError(e.errno, "it is closed")) from e
    if _is_device(mode) and not stream.isatty():
        raise _device(path)


def refuse_device(path: str, mode: int) -> None:
    """Rule 2 for a path not yet opened (``batch`` checks every PATH before it reads any): ``mode``
    is its ``os.stat``. A terminal is opened without waiting (``O_NONBLOCK``) to ask it."""
    _refuse_closed_stdin(path)
    if not _is_device(mode):
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        raise _device(path) from None
    try:
        if not os.isatty(fd):
            raise _device(path)
    finally:
        os.close(fd)


def _is_device(mode: int) -> bool:
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode)


def _device(path: str | os.PathLike[str]) -> ConfigError:
    return ConfigError("usage.unreadable", f"cannot read {shown_path(path)}: a device, not a file")


def read_stream(stream: BinaryIO, path: str | os.PathLike[str]) -> bytes:
    """The rest of ``stream`` (opened by :func:`open_input`, or a URL's), at most
    :data:`MAX_INPUT_BYTES`. A regular file is read in one piece (no second copy of a large
    bundle); a pipe, FIFO or terminal a chunk at a time, counting."""
    size = _regular_size(stream)
    try:
        if size is not None:
            if size > MAX_INPUT_BYTES:
                raise _too_large(path)
            return stream.read()
        chunks: list[bytes] = []
        size = 0
        while chunk := stream.read(_CHUNK):
            size += len(chunk)
            if size > MAX_INPUT_BYTES:
                raise _too_large(path)
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise unreadable(path, e) from e


def _regular_size(stream: BinaryIO) -> int | None:
    """The size of the regular file ``stream`` reads; None for anything else (a pipe, a URL's)."""
    try:
        status = os.fstat(stream.fileno())
    except (OSError, ValueError):  # io.UnsupportedOperation: a stream with no descriptor
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None


class bounded_lines:  # read as a function: it wraps a stream
    """``stream`` for a caller that reads it a line at a time (``readline``), each line at most
    :data:`MAX_INPUT_BYTES`: a JSONL stream may go on for ever, one line of it may not."""

    def __init__(self, stream: BinaryIO, path: str | os.PathLike[str]) -> None:
        self._stream, self._path = stream, path

    def readline(self) -> bytes:
        try:
            line = self._stream.readline(MAX_INPUT_BYTES + 1)
        except OSError as e:
            raise unreadable(self._path, e) from e
        if len(line) > MAX_INPUT_BYTES:
            raise _too_large(self._path, "a line of it")
        return line


def _too_large(path: str | os.PathLike[str], what: str = "it") -> ConfigError:
    return ConfigError(
        "usage.unreadable",
        f"cannot read {shown_path(path)}: {what} holds more than {MAX_INPUT_BYTES:,} bytes, the most an input may hold",
    )


def unreadable(path: str | os.PathLike[str], e: OSError) -> ConfigError:
    """``usage.unreadable`` for ``path``, with the system's reason."""
    return ConfigError("usage.unreadable", f"cannot read {shown_path(path)}: {e.strerror or e}")
