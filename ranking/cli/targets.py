"""Where a command writes: never over one of its own inputs.

An output path that names an input file (the same path, a symlink to it, a
hard link of it, or a path through a symlinked folder) would replace the input
with the output: ``apply B R --out B`` turns the bundle into memory, and a
later run has nothing to read. Every command that writes a file checks its
``--out`` (or ``--out-dir``'s files) against everything it reads, before it
writes anything, and refuses with ``usage.invalid_option`` (exit 2).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from curator_io.errors import ConfigError

__all__ = ["Named", "same_file", "refuse_input_as_output", "refuse_input_inside", "ledger_files"]

Named = tuple[str, str | os.PathLike[str] | None]
"""What the input is called on the command line (``BUNDLE``, ``--config``), and its path."""


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether ``a`` and ``b`` name one file: the same inode on the same device (a hard
    link, a symlink to it), or the same path once every symlink is resolved."""
    try:
        sa, sb = os.stat(a), os.stat(b)
    except (OSError, ValueError):
        pass
    else:
        if (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino):
            return True
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def refuse_input_as_output(
    out: str | os.PathLike[str], inputs: Iterable[Named], *, option: str = "--out", append: bool = False
) -> None:
    """Refuse ``out`` when it is one of ``inputs`` (``-``, standard input, is never a file of ours);
    ``append``: the run appends to ``out`` rather than replacing it."""
    for what, path in inputs:
        if path is None or os.fspath(path) == "-":
            continue
        if same_file(out, path):
            raise ConfigError(
                "usage.invalid_option",
                f"{option} {os.fspath(out)!r} is {what} {os.fspath(path)!r}, which this run reads: "
                f"{'appending to it would change' if append else 'writing it would replace'} the input; "
                f"choose another {option}",
            )


def refuse_input_inside(folder: str | os.PathLike[str], inputs: Iterable[Named], *, option: str) -> None:
    """Refuse an input that lies in ``folder`` or below it (a folder the run clears), symlinks resolved."""
    try:
        real = os.path.realpath(folder)
    except (OSError, ValueError):
        return
    for what, path in inputs:
        if path is None or os.fspath(path) == "-":
            continue
        try:
            inside = os.path.realpath(path).startswith(real + os.sep)
        except (OSError, ValueError):
            continue
        if inside:
            raise ConfigError(
                "usage.invalid_option",
                f"{what} {os.fspath(path)!r} is inside {os.fspath(folder)!r}, which this run replaces: "
                f"move it elsewhere first or choose another {option}",
            )


def ledger_files(path: str | os.PathLike[str]) -> list[Named]:
    """A ledger and the files SQLite keeps beside it, as inputs: writing any of them breaks the ledger."""
    base = os.fspath(path)
    files: list[Named] = [("the ledger", base)]
    return files + [(f"the ledger's {s} file", f"{base}-{s}") for s in ("wal", "shm", "journal")]
