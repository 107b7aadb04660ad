"""Standard output and error, as a terminal, a pipe or a CI log takes them: the door out.

- Every line goes through the escaper (:mod:`ranking.views.terminal`) here, not where it
  was composed: :func:`emit` takes lines (a ``str`` is one line, a line break in it is
  escaped) and workflow commands, :func:`emit_json` a JSON document, :func:`say` a line
  on standard error.

- Text degrades rather than fails: on a stream whose encoding cannot hold a
  character (``PYTHONIOENCODING=ascii``, a cp1252 console), ``·`` becomes
  ``-``, ``≥`` becomes ``>=``, and anything else an escape such as ``\\u00e9``.
- A stdout that cannot take the output (a full disk, a closed descriptor) is a
  usage error (``usage.unwritable``, exit 2) reported in one line, never a
  traceback. A reader that went away (``| head``) is not an error.
- A document (a report, a memory, JSON) goes out as exact bytes, whatever the stream's
  encoding, into a regular file (``> memory.json``); anywhere else (a terminal, a pipe, a CI
  log) JSON is escaped by :func:`~ranking.views.terminal.printable_json` (the same value) and
  any other text line by line, so nothing in it is read as a command (:func:`emit_document`).
"""

from __future__ import annotations

import codecs
import os
import stat
import sys
from collections.abc import Iterable

from curator_io.errors import ConfigError
from ranking.views.terminal import Command, printable, printable_json

__all__ = [
    "prepare_streams",
    "emit",
    "emit_json",
    "emit_document",
    "say",
    "write_stdout",
    "flush_stdout",
    "detach_stdout",
    "StdoutUnwritable",
]

Line = str | Command
"""One line of output: text (escaped when printed), or a workflow command (built escaped)."""

_DEGRADE = "evidence-rank-degrade"
#: What a character that the stream cannot encode is written as, when it is one of ours.
_ASCII = {"·": "-", "≥": ">=", "≤": "<=", "×": "x", "→": "->", "Δ": "delta ", "—": "--", "…": "...", "✓": "ok"}


def _degrade(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    return "".join(_ASCII.get(c) or c.encode("ascii", "backslashreplace").decode("ascii") for c in text), error.end


def prepare_streams() -> None:
    """Make stdout and stderr degrade characters their encoding lacks instead of raising."""
    codecs.register_error(_DEGRADE, _degrade)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors=_DEGRADE)
            except OSError:
                pass  # a closed stream: the first write says so


class StdoutUnwritable(ConfigError):
    """stdout cannot take the output: a usage error like any unwritable path."""


def _unwritable(e: OSError | None) -> ConfigError:
    why = "it is closed" if e is None else e.strerror or str(e)
    return StdoutUnwritable("usage.unwritable", f"cannot write to standard output: {why}", pointer="")


def emit(lines: Line | Iterable[Line]) -> None:
    """Lines on stdout, each through the escaper: a ``str`` is one line, whatever it holds."""
    if sys.stdout is None:
        raise _unwritable(None)
    items = (lines,) if isinstance(lines, str | Command) else lines
    text = "\n".join(item.line() if isinstance(item, Command) else printable(item) for item in items)
    try:
        print(text)
    except BrokenPipeError:
        raise
    except OSError as e:
        raise _unwritable(e) from e


def emit_json(data: bytes) -> None:
    """A JSON document on stdout, on one line (:func:`emit_document`)."""
    emit_document(data + b"\n")


def emit_document(data: bytes, *, json: bool = True) -> None:
    """A document on stdout: its exact bytes when stdout is a regular file; otherwise, where a
    terminal or a CI runner reads it, JSON through :func:`~ranking.views.terminal.printable_json`
    (the same JSON value) and other text (``json=False``: Markdown) a line at a time through the
    escaper."""
    if _is_regular_file(sys.stdout):
        write_stdout(data)
    elif json:
        # A line at a time: a reviewable document is indented, and no JSON string holds a raw line break.
        write_stdout(b"\n".join(printable_json(line) for line in data.split(b"\n")))
    else:
        emit(data.decode("utf-8").splitlines())


def _is_regular_file(stream: object) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False  # no descriptor (a test's capture), or a closed one: read by someone


def say(line: str) -> None:
    """One line on standard error, through the escaper; nothing when it is closed: Python makes a
    closed stderr None, and ``print(file=None)`` would write the line to stdout, the report's stream."""
    if sys.stderr is not None:
        print(printable(line), file=sys.stderr)


def write_stdout(data: bytes) -> None:
    """Exact bytes on stdout, whatever its text encoding."""
    if sys.stdout is None:
        raise _unwritable(None)
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise _unwritable(e) from e


def flush_stdout() -> None:
    """Flush now, so a failure is reported by the command rather than at interpreter exit."""
    if sys.stdout is None:
        return
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise _unwritable(e) from e


def detach_stdout() -> None:
    """After stdout failed: point it at /dev/null so the interpreter's final flush cannot raise again."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
