"""Temporary files: how an output file is written, and what a killed writer leaves.

Every output file is written by :func:`write_file`: a temporary file in the
same folder, named ``.NAME.PID.XXXXXXXX.tmp`` (the writer's process id, 8
random hex digits; NAME cut to its first 230 bytes when longer, so it fits), then
renamed over ``NAME`` (:func:`~ranking.running.outputs.atomic.write_atomic`).

A writer killed mid-write (SIGKILL, a power cut) leaves its temporary file;
the next write of ``NAME`` into that folder removes it once it is *stale*
(:func:`sweep_stale`): its writer is no longer running and it is over a minute
old (a folder shared with another machine may hold a live writer's temporary
file whose pid means nothing here, and no write takes a minute), or it is over
an hour old whatever its pid says (pids are reused). Nothing else is touched:
only names of that exact form, only for ``NAME``. Under an output folder's lock
no live writer owns one, so :func:`sweep_leftovers` removes them all.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable
from pathlib import Path

from curator_io.errors import ConfigError
from ranking.running.outputs.atomic import refuse_folder_name, write_atomic

__all__ = [
    "write_file",
    "remove_if_present",
    "flush_to_disk",
    "sweep_stale",
    "sweep_leftovers",
    "is_leftover_of",
    "STALE_AFTER",
    "ABANDONED_AFTER",
]

#: Seconds after which a temporary file whose writer is not running is stale.
STALE_AFTER = 60.0
#: Seconds after which any temporary file of ours is stale, whatever its pid (pids are reused).
ABANDONED_AFTER = 3600.0

#: :func:`_create_temporary`'s names: ``.NAME.PID.XXXXXXXX.tmp``, or ``.NAME.XXXXXXXX.tmp`` as
#: written before the pid was part of the name.
_TEMPORARY = re.compile(r"\.(?P<name>.+?)\.(?:(?P<pid>[0-9]{1,10})\.)?[0-9a-f]{8}\.tmp")

#: A file name's most bytes (NAME_MAX on Linux and macOS), less what a temporary adds to NAME:
#: ``.`` before it, and ``.PID.XXXXXXXX.tmp`` (a pid has at most 10 digits) after.
_STEM_BYTES = 255 - 1 - 24


def _stem(name: str) -> str:
    """NAME as its temporary file holds it: cut to what fits, so that a name as long as a name
    may be can still be written (its temporary would otherwise be too long to create)."""
    raw = os.fsencode(name)
    return name if len(raw) <= _STEM_BYTES else os.fsdecode(raw[:_STEM_BYTES])


def write_file(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    durable: bool = True,
    keep_mode: bool = False,
    mode: int | None = None,
    replace: bool = True,
    sweep: bool = True,
) -> None:
    """Write one output file atomically (:func:`~ranking.running.outputs.atomic.write_atomic`: ``keep_mode``,
    ``mode`` and ``replace`` are its), named as this module says; a killed writer's stale
    temporary file of ``path`` is removed first, unless ``sweep`` is false (a caller writing
    many files sweeps their folder once)."""
    refuse_folder_name(path)  # before Path() drops the slash of a folder's name
    target = Path(path)
    if sweep:
        sweep_stale(target.parent, target.name)
    write_atomic(
        target,
        data,
        create_temporary=_create_temporary,
        durable=durable,
        keep_mode=keep_mode,
        mode=mode,
        replace=replace,
    )


def _create_temporary(target: Path) -> tuple[int, Path]:
    """A new, empty ``.NAME.PID.XXXXXXXX.tmp`` beside ``target``, open for writing, owner-only
    until written.

    What ``tempfile.mkstemp`` does, without importing it (3 ms of every
    command's start-up, bench/RESULTS.md): a random name, created only if it
    does not exist, tried again if it does.
    """
    while True:
        tmp = target.with_name(f".{_stem(target.name)}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), tmp
        except FileExistsError:
            continue


def flush_to_disk() -> None:
    """Flush every written file to disk: one wait instead of one per file."""
    os.sync()


def remove_if_present(path: str | os.PathLike[str]) -> None:
    try:
        Path(path).unlink(missing_ok=True)
    except OSError as e:
        raise ConfigError("usage.unwritable", f"cannot remove {os.fspath(path)!r}: {e.strerror}") from e


def is_leftover_of(file_name: str, name: str) -> bool:
    """Whether ``file_name`` may be a temporary file of a write of ``name`` (``.NAME.*.tmp``)."""
    return file_name.startswith(f".{_stem(name)}.") and file_name.endswith(".tmp")


def sweep_leftovers(folder: Path, names: Iterable[str]) -> None:
    """Remove the temporary files a killed writer of ``names`` left in ``folder``
    (``.NAME.*.tmp``). Only under the folder's lock: then no live writer owns one."""
    for name in names:
        for leftover in folder.glob(f".{_glob_escape(_stem(name))}.*.tmp"):
            remove_if_present(leftover)


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def sweep_stale(folder: Path, name: str | None = None) -> None:
    """Remove the stale temporary files (see the module's docstring) that writes of ``name``
    (of any name, when ``None``) left in ``folder``. Never fails: a file that cannot be
    removed is left, and a folder that cannot be listed has nothing to sweep."""
    now = time.time()
    try:
        listing = os.scandir(folder)
    except OSError:
        return
    with listing:
        for entry in listing:
            found = _TEMPORARY.fullmatch(entry.name)
            if found is None or (name is not None and found["name"] != _stem(name)):
                continue
            try:
                age = now - entry.stat(follow_symlinks=False).st_mtime
                if _is_stale(found["pid"], age):
                    os.unlink(entry.path)
            except OSError:
                continue  # gone already (another run swept it), or not ours to remove


def _is_stale(pid: str | None, age: float) -> bool:
    if age >= ABANDONED_AFTER:
        return True
    return pid is not None and age >= STALE_AFTER and not _running(int(pid))


def _running(pid: int) -> bool:
    """Whether a process with this id runs here. Elsewhere than POSIX, ``os.kill(pid, 0)``
    would send a signal: there, every writer counts as running until its file is abandoned."""
    if os.name != "posix" or pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True  # another user's process (EPERM), or an id no process can have
    return True
