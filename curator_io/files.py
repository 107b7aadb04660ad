"""The one module that touches the filesystem. Only the CLI calls it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from curator_io.errors import ConfigError

__all__ = ["read_bytes", "write_atomic", "flush_to_disk", "remove_if_present"]


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes; a path that cannot be read is a usage error (exit 2)."""
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise ConfigError("usage.unreadable", f"cannot read {os.fspath(path)!r}: {e.strerror}") from e


def write_atomic(path: str | os.PathLike[str], data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the whole new one.

    The bytes go to a temporary file in the same folder, are flushed to disk
    (unless ``durable`` is false), and the file is renamed over ``path``: never
    a partial or corrupt file. A caller that writes many files with
    ``durable=False`` makes them durable at once with :func:`flush_to_disk`
    before it writes the file that records them.
    """
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as e:
        raise ConfigError("usage.unwritable", f"cannot write {os.fspath(path)!r}: {e.strerror}") from e
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, target)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise ConfigError("usage.unwritable", f"cannot write {os.fspath(path)!r}: {e.strerror}") from e
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def flush_to_disk() -> None:
    """Flush every written file to disk: one wait instead of one per file."""
    os.sync()


def remove_if_present(path: str | os.PathLike[str]) -> None:
    Path(path).unlink(missing_ok=True)
