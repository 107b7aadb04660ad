"""Writing one file atomically: a reader sees the old file or the whole new one.

A file is written to a temporary file in the same folder, flushed to disk, and
renamed over the target. It gets the mode any other tool would give it:
``0666`` less the umask, or the mode of the file it replaces when the caller
asks to keep it. :mod:`ranking.running.outputs.temporaries` names the temporary
files and is the only caller.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable
from pathlib import Path

from curator_io.errors import ConfigError

__all__ = ["write_atomic", "refuse_folder_name", "refuse_special_file", "new_file_mode"]


@functools.cache
def new_file_mode() -> int:
    """``0666`` less the umask: what ``open(path, "w")`` would create.

    The umask can only be read by setting it; this process is single-threaded
    when it writes files, and sets it back at once.
    """
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    create_temporary: Callable[[Path], tuple[int, Path]],
    durable: bool = True,
    keep_mode: bool = False,
    mode: int | None = None,
    replace: bool = True,
) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the whole new one.

    The bytes go to the temporary file ``create_temporary(path)`` opens (a new
    file in the same folder: a descriptor open for writing, and its path), are
    flushed to disk (unless ``durable`` is false), and the file is renamed over
    ``path``: never a partial or corrupt file. On failure the temporary file is
    removed. A caller that writes many files with ``durable=False`` makes them
    durable at once (``os.sync``) before it writes the file that records them.

    The new file gets ``0666`` less the umask, or, with ``keep_mode``, the mode
    of the file it replaces, or ``mode`` when given (a private key: ``0o600``).
    With ``replace`` false an existing ``path`` is never replaced: the file is
    linked into place, which fails when the name is taken. Any file or folder
    that cannot be written is ``usage.unwritable``.
    """
    refuse_folder_name(path)
    refuse_special_file(path)
    target = Path(path)
    mode = new_file_mode() if mode is None else mode
    try:
        if keep_mode:
            mode = target.stat().st_mode & 0o7777
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = create_temporary(target)
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


_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def refuse_special_file(path: str | os.PathLike[str]) -> None:
    """Refuse an output path that names, or links to, anything but a regular file: a device, a
    FIFO, a socket or a folder is never replaced by a file (as root, a rename over ``/dev/null``
    would make it one), nor is a link to one (``/proc/self/fd/1``). A path that does not exist
    yet, a regular file and a link to one are written as ever."""
    try:
        found = os.stat(path)  # follows a link: what the name leads to is what would be lost
    except OSError:
        return  # nothing there yet (or a dangling link): the write says what is wrong, if anything
    for holds, kind in _KINDS:
        if holds(found.st_mode):
            text = os.fspath(path)
            raise ConfigError(
                "usage.unwritable",
                f"cannot write {text!r}: it is {kind}, not a regular file, and evidence-rank replaces only files"
                " (to print, leave out --out)",
            )
