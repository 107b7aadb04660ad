"""Appending to a file other steps write too (``$GITHUB_STEP_SUMMARY``): all of it or none.

An output folder's files are replaced whole (:mod:`ranking.running.outputs.atomic`); a file
that other programs append to is not ours to replace, so the tool appends to it, and a
write that falls short is taken back, so that what the earlier steps wrote is left as it was.
"""

from __future__ import annotations

import errno
import os

from curator_io.errors import ConfigError

__all__ = ["append_whole"]


def append_whole(path: str, data: bytes, *, name: str) -> None:
    """Append ``data`` to ``path`` (created, ``0666`` less the umask, when missing), all of it or
    none of it: a full disk leaves the file as it was. ``name`` is what a message calls the file
    (``GITHUB_STEP_SUMMARY``); one that cannot be written is ``usage.unwritable``."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            size = os.fstat(fd).st_size
            try:
                if os.write(fd, data) != len(data):  # a short write: the disk filled up
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            except OSError:
                os.ftruncate(fd, size)  # half a Markdown table would break the earlier steps' too
                raise
        finally:
            os.close(fd)
    except OSError as e:
        raise ConfigError("usage.unwritable", f"cannot append to {name} {path!r}: {e.strerror}") from e
