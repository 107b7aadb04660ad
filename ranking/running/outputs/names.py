"""What an output folder holds: every file and folder name the commands write.

- ``score DIR``: :data:`VALIDATION` and :data:`REPORT`, or :data:`ERROR`
  (:data:`BUNDLE_FILES`), and the hidden :data:`LOCK_NAME`;
- ``batch DIR``: :data:`SUMMARY`, and under :data:`REPORTS` one folder per
  bundle (:func:`bundle_folder`, matched by :data:`BUNDLE_FOLDER`) holding
  :data:`BUNDLE_FILES` as ``score`` would;
- ``render --batch DIR --out PAGE``: the run views in :func:`runs_folder`.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = [
    "VALIDATION",
    "REPORT",
    "ERROR",
    "BUNDLE_FILES",
    "SUMMARY",
    "REPORTS",
    "LOCK_NAME",
    "BUNDLE_FOLDER",
    "bundle_folder",
    "runs_folder",
]

VALIDATION = "validation.json"
REPORT = "report.json"
ERROR = "error.json"
BUNDLE_FILES = (VALIDATION, REPORT, ERROR)
"""Every file one bundle's outcome may write: the two reports, or the error."""

SUMMARY = "summary.json"
REPORTS = "reports"
"""The batch folder's sub-folder that holds a folder per bundle."""

LOCK_NAME = ".evidence-rank.lock"
"""The lock file in an output folder; hidden, so no folder scan takes it for a bundle."""

BUNDLE_FOLDER = re.compile(r"([0-9]{6,})-[A-Za-z0-9][A-Za-z0-9._-]*")
"""Every name :func:`bundle_folder` gives, and only those (group 1: the index): the folders a
run may remove, and the only ``output`` a summary may name. Never starting with ``.``, so
never ``..`` and never hidden."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_NAME_LENGTH = 64


def bundle_folder(index: int, name: str, line: int | None) -> str:
    """``reports/<index>-<name>[-L<line>]``: the folder of the ``index``-th bundle (1-based, input
    order), read from the file ``name`` (at ``line`` of it, for a JSONL stream).

    ``name`` is the source's path from the PATH it was found under, without the
    file's suffix, each run of characters outside ``A-Za-z0-9._-`` (``/``
    included) written ``_``: ``cases/001-basic/bundle.json`` is
    ``cases_001-basic_bundle``. The last 64 characters are kept (a file's own
    name says most) and no leading ``._-``, so a name is never hidden. The index
    keeps names unique.
    """
    parent, _, last = name.rpartition("/")
    stem = f"{parent}/{Path(last).stem}" if parent else Path(last).stem
    slug = _UNSAFE.sub("_", stem)[-_NAME_LENGTH:].strip("._-") or "bundle"
    suffix = "" if line is None else f"-L{line}"
    return f"{REPORTS}/{index:06d}-{slug}{suffix}"


def runs_folder(page: Path) -> Path:
    """Where ``render --batch`` writes the run views that ``page`` links to: ``<page's stem>-runs/``."""
    return page.parent / f"{page.stem}-runs"
