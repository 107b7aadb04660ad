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
    spec = "HEAD:./" + os.path.relpath(path).replace(os.sep, "/")
    try:
        proc = subprocess.Popen(["git", "cat-file", "blob", spec], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise ConfigError("usage.unreadable", f"cannot run git to read {path!r} from HEAD: {e.strerror}") from e
    assert proc.stdout is not None and proc.stderr is not None  # Cannot fail: both are pipes.
    with proc:
        data = read_stream(cast(BinaryIO, proc.stdout), spec)
        said = proc.stderr.read().decode("utf-8", "replace").strip()
    if proc.returncode == 0:
        return data
    if _missing(spec):
        return None
    raise ConfigError("usage.unreadable", f"git cannot read {spec}: {said.splitlines()[-1] if said else 'no reason'}")


def _missing(spec: str) -> bool:
    """Whether ``HEAD`` lacks the file (or there is no ``HEAD``), as opposed to git failing."""
    inside = subprocess.run(["git", "rev-parse", "--is-inside-work-tree"], capture_output=True, check=False)
    return inside.returncode == 0 and inside.stdout.strip() == b"true"
