"""Locks: two runs into one output folder take turns and never mix their files, and two writes
of one file that read it first (``apply --out AGENTS.md``) take turns from the read to the
write, so the second reads what the first wrote."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from curator_io.errors import ConfigError
from ranking.running.outputs.atomic import new_file_mode
from ranking.running.outputs.names import LOCK_NAME
from ranking.running.outputs.temporaries import sweep_leftovers

__all__ = ["locked_folder", "locked_for_update"]


@contextlib.contextmanager
def locked_folder(
    folder: Path, names: Iterable[str] = (), *, waiting: Callable[[str], None] | None = None
) -> Iterator[Path]:
    """Hold ``folder``'s lock while a run writes it; sweep a killed run's leftovers of
    ``names`` first.

    A second run into the same folder waits for the first to finish (telling ``waiting``
    so, which the command line prints), so runs take turns and never mix their files.
    The lock is the kernel's: a killed holder releases it.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = _FolderLock(folder / LOCK_NAME)
        if not lock.acquire(wait=False):
            if waiting is not None:
                waiting(f"evidence-rank: waiting for another run writing {os.fspath(folder)!r}")
            lock.acquire(wait=True)
    except OSError as e:
        raise ConfigError("usage.unwritable", f"cannot write {os.fspath(folder)!r}: {e.strerror}") from e
    try:
        sweep_leftovers(folder, names)
        yield folder
    finally:
        lock.release()


@contextlib.contextmanager
def locked_for_update(path: str | os.PathLike[str], *, waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the lock of the folder that ``path`` is in (through a link, the folder of the file it
    names) while a command reads the file, checks it and writes it: a second command that updates
    a file there waits (telling ``waiting`` so), then reads what the first wrote.

    The lock is an ``flock`` on the folder itself, so no lock file is left beside the file (an
    AGENTS.md sits in a repository), a file that does not exist yet is locked as well, and the
    kernel releases it when its holder dies. POSIX only: elsewhere the write is not locked.
    """
    folder = os.path.dirname(os.path.realpath(path))
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no flock on a folder
        yield
        return
    try:
        os.makedirs(folder, exist_ok=True)  # the write would make it: a new AGENTS.md in a new folder
        fd = os.open(folder, os.O_RDONLY)
    except OSError as e:
        raise ConfigError("usage.unwritable", f"cannot write {os.fspath(path)!r}: {e.strerror}") from e
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting(f"evidence-rank: waiting for another command writing in {folder!r}")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


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
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, new_file_mode())
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

        self._other = FileLock(self.path, mode=new_file_mode())
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
