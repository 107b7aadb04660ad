"""The base of a commit: a file as git's ``HEAD`` holds it (``evidence-rank hook pre-commit``), read
through the door in (:func:`~ranking.running.inputs.read_stream`, bounded as every input is).
"""

from __future__ import annotations

import os
import subprocess
from typing import BinaryIO, cast

from curator_io.errors import ConfigError
from ranking.running.inputs import read_stream

__all__ = ["read_head_file"]


def read_head_file(path: str) -> bytes | None:
    """``path`` (as the working directory names it) as ``HEAD`` holds it; None when ``HEAD`` has no
    such file (a new file, or a repository with no commit yet). Raises ``usage.unreadable`` when git
    cannot be run, or says something else is wrong (not a repository)."""
    folder = os.path.dirname(os.path.abspath(path))
    spec = "HEAD:./" + os.path.basename(path)
    argv = ["git", "-C", folder, "cat-file", "blob", spec]
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise ConfigError("usage.unreadable", f"cannot run git to read {path!r} from HEAD: {e.strerror}") from e
    assert proc.stdout is not None and proc.stderr is not None  # Cannot fail: both are pipes.
    with proc:
        data = read_stream(cast(BinaryIO, proc.stdout), spec)
        said = proc.stderr.read().decode("utf-8", "replace").strip()
    if proc.returncode == 0:
        return data
    if _in_work_tree(folder):
        return None  # git ran in a repository and found no such file in HEAD (or no HEAD)
    why = said.splitlines()[-1] if said else "no reason given"
    raise ConfigError("usage.unreadable", f"git cannot read {path!r} from HEAD: {why}")


def _in_work_tree(folder: str) -> bool:
    """Whether ``folder`` is in a git work tree: then a failed read is a file ``HEAD`` lacks."""
    argv = ["git", "-C", folder, "rev-parse", "--is-inside-work-tree"]
    inside = subprocess.run(argv, capture_output=True, check=False)
    return inside.returncode == 0 and inside.stdout.strip() == b"true"
