"""The one module that touches the filesystem. Only the CLI calls it.

Output files are written atomically (a temporary file in the same folder,
then a rename) with the mode any other tool would give them: ``0666`` less the
umask, or the mode of the file they replace when the caller asks to keep it.

A temporary file is named ``.NAME.PID.XXXXXXXX.tmp`` (the writer's process id,
8 random hex digits; NAME cut to its first 230 bytes when longer, so it fits).
A writer killed mid-write (SIGKILL, a power cut) leaves it; the next write of
``NAME`` into that folder removes it once it is *stale* (:func:`sweep_stale`):
its writer is no longer running and it is over a minute old (a folder shared
with another machine may hold a live writer's temporary file whose pid means
nothing here, and no write takes a minute), or it is over an hour old whatever
its pid says (pids are reused). Nothing else is touched: only names of that
exact form, only for ``NAME``.

An output folder that several files make up together (``score``'s
``validation.json`` and ``report.json``, a batch's ``summary.json`` and its
folders) is held under :func:`locked_folder` while it is written, so two runs
into one folder take turns and never mix their files, and a killed run's
temporary files are swept away by the next run.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import stat
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from curator_io.errors import ConfigError

__all__ = [
    "read_bytes",
    "read_bytes_if_present",
    "write_atomic",
    "refuse_folder_name",
    "flush_to_disk",
    "remove_if_present",
    "sweep_stale",
    "STALE_AFTER",
    "ABANDONED_AFTER",
    "locked_folder",
    "LOCK_NAME",
]

#: The lock file in an output folder; hidden, so no folder scan takes it for a bundle.
LOCK_NAME = ".evidence-rank.lock"


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes; a path that cannot be read is a usage error (exit 2)."""
    try:
        return _read(path)
    except OSError as e:
        raise ConfigError("usage.unreadable", f"cannot read {os.fspath(path)!r}: {e.strerror}") from e


def _read(path: str | os.PathLike[str]) -> bytes:
    """Read a file, a pipe or a FIFO (``<(...)``, ``/dev/stdin``) whole; refuse a device that is not a
    terminal: ``/dev/zero`` or a disk never ends, and reading it would fill the memory."""
    with open(path, "rb") as f:
        mode = os.fstat(f.fileno()).st_mode
        if (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) and not f.isatty():
            raise ConfigError("usage.unreadable", f"cannot read {os.fspath(path)!r}: a device, not a file")
        return f.read()


def read_bytes_if_present(path: str | os.PathLike[str]) -> bytes | None:
    """The file's bytes, or ``None`` when there is no such file (an optional input, such as a
    signature beside a bundle); any other failure to read it is a usage error (exit 2)."""
    try:
        return _read(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ConfigError("usage.unreadable", f"cannot read {os.fspath(path)!r}: {e.strerror}") from e


@functools.cache
def _new_file_mode() -> int:
    """``0666`` less the umask: what ``open(path, "w")`` would create.

    The umask can only be read by setting it; this process is single-threaded
    when it writes files, and sets it back at once.
    """
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


#: Seconds after which a temporary file whose writer is not running is stale.
STALE_AFTER = 60.0
#: Seconds after which any temporary file of ours is stale, whatever its pid (pids are reused).
ABANDONED_AFTER = 3600.0


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    durable: bool = True,
    keep_mode: bool = False,
    mode: int | None = None,
    replace: bool = True,
    sweep: bool = True,
) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the whole new one.

    The bytes go to a temporary file in the same folder, are flushed to disk
    (unless ``durable`` is false), and the file is renamed over ``path``: never
    a partial or corrupt file. A caller that writes many files with
    ``durable=False`` makes them durable at once with :func:`flush_to_disk`
    before it writes the file that records them.

    The new file gets ``0666`` less the umask, or, with ``keep_mode``, the mode
    of the file it replaces, or ``mode`` when given (a private key: ``0o600``).
    With ``replace`` false an existing ``path`` is never replaced: the file is
    linked into place, which fails when the name is taken (``usage.unwritable``).
    A killed writer's stale temporary file of ``path`` is removed first
    (:func:`sweep_stale`), unless ``sweep`` is false (a caller writing many
    files sweeps their folder once).
    """
    refuse_folder_name(path)
    target = Path(path)
    mode = _new_file_mode() if mode is None else mode
    try:
        if keep_mode:
            mode = target.stat().st_mode & 0o7777
        target.parent.mkdir(parents=True, exist_ok=True)
        if sweep:
            sweep_stale(target.parent, target.name)
        fd, tmp = _create_temporary(target)
    except OSError as e:
        raise ConfigError("usage.unwritable", f"cannot write {os.fspath(path)!r}: {e.strerror}") from e
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        if replace:
            os.replace(tmp, target)
        else:
            os.link(tmp, target)  # fails if target exists: no check-then-write race
            Path(tmp).unlink()
    except FileExistsError as e:
        Path(tmp).unlink(missing_ok=True)
        raise ConfigError("usage.unwritable", f"{os.fspath(path)!r} exists: it is not overwritten") from e
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise ConfigError("usage.unwritable", f"cannot write {os.fspath(path)!r}: {e.strerror}") from e
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def refuse_folder_name(path: str | os.PathLike[str]) -> None:
    """Refuse an output name that ends in ``/``: it names a folder, and ``Path`` would drop the
    slash and write a file of that name instead (``--out keys/`` wrote the key to ``keys``)."""
    text = os.fspath(path)
    if text.endswith(("/", os.sep)):
        raise ConfigError(
            "usage.unwritable", f"cannot write {text!r}: it ends in '/', so it names a folder, not a file"
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


#: A file name's most bytes (NAME_MAX on Linux and macOS), less what a temporary adds to NAME:
#: ``.`` before it, and ``.PID.XXXXXXXX.tmp`` (a pid has at most 10 digits) after.
_STEM_BYTES = 255 - 1 - 24


def _stem(name: str) -> str:
    """NAME as its temporary file holds it: cut to what fits, so that a name as long as a name
    may be can still be written (its temporary would otherwise be too long to create)."""
    raw = os.fsencode(name)
    return name if len(raw) <= _STEM_BYTES else os.fsdecode(raw[:_STEM_BYTES])


def flush_to_disk() -> None:
    """Flush every written file to disk: one wait instead of one per file."""
    os.sync()


def remove_if_present(path: str | os.PathLike[str]) -> None:
    try:
        Path(path).unlink(missing_ok=True)
    except OSError as e:
        raise ConfigError("usage.unwritable", f"cannot remove {os.fspath(path)!r}: {e.strerror}") from e


def sweep_leftovers(folder: Path, names: Iterable[str]) -> None:
    """Remove the temporary files a killed writer of ``names`` left in ``folder``
    (``write_atomic``'s ``.NAME.*.tmp``). Only under the folder's lock: then no
    live writer owns one."""
    for name in names:
        for leftover in folder.glob(f".{_glob_escape(_stem(name))}.*.tmp"):
            remove_if_present(leftover)


#: ``write_atomic``'s temporary names: ``.NAME.PID.XXXXXXXX.tmp``, or ``.NAME.XXXXXXXX.tmp`` as
#: written before the pid was part of the name.
_TEMPORARY = re.compile(r"\.(?P<name>.+?)\.(?:(?P<pid>[0-9]{1,10})\.)?[0-9a-f]{8}\.tmp")


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


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


@contextlib.contextmanager
def locked_folder(folder: Path, names: Iterable[str] = ()) -> Iterator[Path]:
    """Hold ``folder``'s lock while a run writes it; sweep a killed run's leftovers first.

    A second run into the same folder waits for the first to finish (saying so
    on stderr), so runs take turns and never mix their files. The lock is the
    kernel's: a killed holder releases it.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = _FolderLock(folder / LOCK_NAME)
        if not lock.acquire(wait=False):
            print(f"evidence-rank: waiting for another run writing {os.fspath(folder)!r}", file=sys.stderr)
            lock.acquire(wait=True)
    except OSError as e:
        raise ConfigError("usage.unwritable", f"cannot write {os.fspath(folder)!r}: {e.strerror}") from e
    try:
        sweep_leftovers(folder, names)
        yield folder
    finally:
        lock.release()


class _FolderLock:
    """An exclusive lock on a file that stays in the folder.

    POSIX: ``flock`` from the standard library; importing ``filelock`` would
    cost every ``score`` a sixth of its start-up for the same system call.
    Elsewhere (Windows): ``filelock``, installed there as a dependency.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._other: Any = None

    def acquire(self, *, wait: bool) -> bool:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return self._acquire_elsewhere(wait)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, _new_file_mode())
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def _acquire_elsewhere(self, wait: bool) -> bool:  # pragma: no cover - Windows
        from filelock import FileLock, Timeout

        self._other = FileLock(self.path, mode=_new_file_mode())
        try:
            self._other.acquire(timeout=-1 if wait else 0)
        except Timeout:
            return False
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor releases the flock
            self._fd = None
        elif self._other is not None:  # pragma: no cover - Windows
            self._other.release()
