"""A batch's inputs: what each PATH given to ``evidence-rank batch`` stands for.

- A regular file is one bundle, or a JSONL stream of them when its name ends in
  ``.jsonl``.
- A folder is the files in it and below that its :class:`Selection` takes (by
  default ``*.json`` and ``*.jsonl``), in order of their path relative to the
  folder. A name there that is not a regular file (a FIFO, a socket, a device)
  is skipped with a warning: opening a FIFO would wait for a writer forever.
  Symbolic links to folders are not followed.
- A stream is read as JSONL, line by line: ``-`` (standard input), and a PATH
  that is neither a regular file nor a folder (a FIFO, ``<(...)``, a terminal),
  or that names a descriptor (``/dev/stdin``, ``/dev/fd/N``), whatever it is.
- A URL (``scheme://``) is read through fsspec.

The batch's own output is never read back: DIR is not entered when it lies in
a folder, and when DIR is a folder given as PATH (or lies above one), its
``summary.json`` and ``reports/`` are skipped.

A *display name* is how a path is written in summary.json, the table and
messages: the path as given (joined to its folder), as text. Bytes of a file
name that are not UTF-8 are written ``\\xNN`` (so ``caf\\xe9.json`` for a
Latin-1 ``café.json``): summary.json is canonical UTF-8 and cannot hold them.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from curator_io.errors import ConfigError
from ranking.running.inputs import STDIN, open_input, refuse_device, unreadable
from ranking.running.outputs import LOCK_NAME, REPORTS, SUMMARY, is_leftover_of

__all__ = ["Input", "Selection", "find_inputs", "display_name"]

_SUFFIXES = (".json", ".jsonl")
#: Paths that name a descriptor: read as a stream even when it is a redirected file.
_DESCRIPTORS = ("/dev/stdin", "/dev/fd/", "/proc/self/fd/")


@dataclass(frozen=True, slots=True)
class Input:
    """One file to read: a JSON document, or a JSONL stream of them."""

    display: str
    jsonl: bool
    opener: Callable[[], AbstractContextManager[BinaryIO]]
    name: str | None = None
    """The path from the PATH it was found under, which its bundles' folders are named after."""
    path: str | None = None
    """Where it is on this machine's disk, when it is a regular file there (a batch's progress
    reads its size); None for a stream, standard input or a URL."""
    size: int | None = None
    """Its size in bytes, once the batch's progress has read it from ``path``."""


def _translate(pattern: str) -> re.Pattern[str]:
    """A glob as a regex over a ``/``-separated path: ``*`` and ``?`` stop at ``/``, ``**``
    crosses folders (``a/**/b`` also matches ``a/b``), ``[...]`` is one character of a set."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] in "*?":
            out.append("[^/]*" if pattern[i] == "*" else "[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            negate = body.startswith("!")
            body = re.escape(body[1:] if negate else body).replace("\\-", "-")
            out.append(f"(?!/)[{'^' if negate else ''}{body}]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)


@dataclass(frozen=True)
class Selection:
    """Which files of a folder a batch reads (``--glob``, ``--exclude``).

    Patterns are matched against a file's path relative to the folder given as
    PATH, with ``/`` between folders (``cases/001-basic/bundle.json``). A pattern
    without ``/`` is matched against the last part alone, at any depth
    (``bundle.json``, ``expected*.json``); one with ``/`` against the whole
    relative path (``cases/*/bundle.json``, ``**/bundle.json``); a trailing ``/``
    is dropped. A file is read when it matches a ``glob`` (by default: a name
    ending in ``.json`` or ``.jsonl``, in any case) and no ``exclude``; a folder
    that matches an ``exclude`` is not entered.
    """

    glob: Sequence[str] = ()
    exclude: Sequence[str] = ()
    _globs: list[tuple[bool, re.Pattern[str]]] = field(init=False, repr=False, compare=False)
    _excludes: list[tuple[bool, re.Pattern[str]]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_globs", [self._compiled(p) for p in self.glob])
        object.__setattr__(self, "_excludes", [self._compiled(p) for p in self.exclude])

    @staticmethod
    def _compiled(pattern: str) -> tuple[bool, re.Pattern[str]]:
        pattern = pattern.rstrip("/") or pattern
        return "/" in pattern, _translate(pattern)

    @staticmethod
    def _matches(patterns: list[tuple[bool, re.Pattern[str]]], rel: str) -> bool:
        name = rel.rpartition("/")[2]
        return any(regex.fullmatch(rel if whole else name) for whole, regex in patterns)

    def takes(self, rel: str) -> bool:
        """Whether the file at ``rel`` is read."""
        taken = self._matches(self._globs, rel) if self.glob else rel.lower().endswith(_SUFFIXES)
        return taken and not self._matches(self._excludes, rel)

    def enters(self, rel: str) -> bool:
        """Whether the folder at ``rel`` is searched."""
        return not self._matches(self._excludes, rel)


def display_name(path: str) -> str:
    """``path`` as text for summary.json and people: bytes that are not UTF-8 become ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


Warn = Callable[[str], None]


def find_inputs(
    paths: Iterable[str],
    *,
    exclude: Path | None = None,
    warn: Warn | None = None,
    select: Selection = Selection(),
) -> list[Input]:
    """Every file to read, in order: paths as given; a folder's files sorted by relative path.

    ``exclude`` is the batch's output folder (its own files are never inputs);
    ``warn`` is told about each special file a folder holds; ``select`` picks a
    folder's files (a file given as a PATH is read whatever its name). A path
    that does not exist is a usage error, raised before anything is read.
    """
    inputs: list[Input] = []
    for given in paths:
        if given == STDIN:
            inputs.append(Input(STDIN, True, partial(open_input, STDIN), "stdin"))
        elif "://" in given:
            inputs.extend(_url_inputs(given, select))
        else:
            inputs.extend(_local_inputs(given, _Own(exclude), warn or (lambda _: None), select))
    return inputs


def _binary(path: str) -> Callable[[], AbstractContextManager[BinaryIO]]:
    """Opens ``path`` by the reader's rules (:func:`ranking.running.inputs.open_input`), when
    called; picklable, for a pool's workers."""
    return partial(open_input, path)


def _joined(base: str, rel: str) -> str:
    """A folder's file named from the folder's last part: ``in`` + ``cases/a.json``."""
    return rel if base in ("", ".", "..") else f"{base}/{rel}"


def _local_inputs(given: str, own: _Own, warn: Warn, select: Selection) -> list[Input]:
    display = display_name(given)
    try:
        mode = os.stat(given).st_mode
    except FileNotFoundError:
        raise ConfigError("usage.unreadable", f"cannot read {display!r}: no such file or folder") from None
    except OSError as e:
        raise unreadable(display, e) from e
    refuse_device(given, mode)  # before anything is read: /dev/zero or a disk never ends
    opener = _binary(given)
    last = display_name(os.path.basename(given.rstrip("/")))
    if stat.S_ISDIR(mode):
        return [
            Input(
                display_name(os.path.join(given, rel)),
                rel.lower().endswith(".jsonl"),
                _binary(full),
                _joined(last, display_name(rel)),
                full,
            )
            for rel, full in _scan(given, own, warn, select)
        ]
    if stat.S_ISREG(mode) and not given.startswith(_DESCRIPTORS):
        return [Input(display, given.lower().endswith(".jsonl"), opener, last, given)]
    # A stream: read as JSONL, as `-` is. /dev/fd/63 is named fd63.
    return [Input(display, True, opener, f"fd{last}" if given.startswith(_DESCRIPTORS[1:]) else last)]


class _Own:
    """The batch's output folder, to recognise its files in a folder scan."""

    def __init__(self, out: Path | None) -> None:
        self.out = out.resolve() if out is not None else None
        self.reports = self.out / REPORTS if self.out is not None else None

    def skips_folder(self, path: str, *, top: bool) -> bool:
        """DIR itself (unless it is the folder given), and DIR/reports with all below it."""
        if self.out is None or self.reports is None:
            return False
        real = Path(path).resolve()
        return (real == self.out and not top) or real == self.reports or (top and real.is_relative_to(self.reports))

    def holds_summary(self, path: str) -> bool:
        return self.out is not None and Path(path).resolve() == self.out


def _is_own_file(name: str) -> bool:
    """In DIR: summary.json, the lock, and a killed run's temporary summary (a --glob may match them)."""
    return name in (SUMMARY, LOCK_NAME) or is_leftover_of(name, SUMMARY)


def _scan(root: str, own: _Own, warn: Warn, select: Selection) -> list[tuple[str, str]]:
    """``(relative path, path)`` of each file to read in ``root`` and below, sorted by relative path."""
    if own.skips_folder(root, top=True):
        return []
    found: list[tuple[str, str]] = []
    todo = [(root, "")]  # a stack, not recursion: a folder tree may be deeper than Python's stack
    while todo:
        folder, prefix = todo.pop()
        summary_here = own.holds_summary(folder)
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as e:
            raise unreadable(display_name(folder), e) from e
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                if select.enters(rel) and not own.skips_folder(entry.path, top=False):
                    todo.append((entry.path, rel + "/"))
            elif select.takes(rel) and not (summary_here and _is_own_file(entry.name)):
                if _readable_kind(entry, warn):
                    found.append((rel, entry.path))
    found.sort(key=lambda f: f[0])
    return found


_SPECIAL = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _readable_kind(entry: os.DirEntry[str], warn: Warn) -> bool:
    """Whether a folder's entry is read: a regular file, or a link to one. A link to nothing is
    read too, so that the read says what is wrong; a link to a folder is not followed, and a
    link that leads back to itself (a loop) is skipped with a warning."""
    try:
        if entry.is_file():
            return True
        mode = entry.stat().st_mode
    except FileNotFoundError:
        return True
    except OSError as e:
        if e.errno == errno.ELOOP:
            warn(f"skipped {display_name(entry.path)!r}: a loop of symbolic links")
            return False
        raise unreadable(display_name(entry.path), e) from e
    for test, kind in _SPECIAL:
        if test(mode):
            warn(f"skipped {display_name(entry.path)!r}: {kind}, not a regular file")
            return False
    return False  # a link to a folder


def _url_inputs(given: str, select: Selection) -> list[Input]:
    try:
        import fsspec
    except ImportError as e:
        raise ConfigError(
            "usage.missing_extra", f"reading {given!r} needs fsspec: pip install 'evidence-rank[dask]'"
        ) from e
    try:
        fs, root = fsspec.core.url_to_fs(given)
        last = PurePosixPath(root).name
        if fs.isfile(root):
            return [Input(given, root.lower().endswith(".jsonl"), partial(fs.open, root, "rb"), last)]
        if not fs.isdir(root):
            raise ConfigError("usage.unreadable", f"cannot read {given!r}: no such file or folder")
        found = sorted((PurePosixPath(p).relative_to(root).as_posix(), p) for p in fs.find(root))
    except OSError as e:
        raise unreadable(given, e) from e
    return [
        Input(fs.unstrip_protocol(p), rel.lower().endswith(".jsonl"), partial(fs.open, p, "rb"), _joined(last, rel))
        for rel, p in found
        if select.takes(rel) and _entered(rel, select)
    ]


def _entered(rel: str, select: Selection) -> bool:
    """Whether every folder on the way to ``rel`` is searched (a URL's files are listed at once)."""
    parts = rel.split("/")[:-1]
    return all(select.enters("/".join(parts[: i + 1])) for i in range(len(parts)))
