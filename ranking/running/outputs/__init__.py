"""The output-folder protocol: the one owner of what the commands leave on disk (docs/outputs.md).

- :mod:`~ranking.running.outputs.names`: every file and folder name in an output
  folder (``validation.json``, ``report.json``, ``error.json``,
  ``summary.json``, ``reports/NNNNNN-NAME``, the lock, ``<page>-runs/``);
- :mod:`~ranking.running.outputs.temporaries`: every output file is written through
  :func:`write_file` (a ``.NAME.PID.XXXXXXXX.tmp`` renamed over ``NAME``), and
  a killed writer's temporary files are swept;
- :mod:`~ranking.running.outputs.lock`: the folder lock, so two runs take turns, and the lock
  a command holds from reading a file to writing it (``apply --out AGENTS.md``);
- :mod:`~ranking.running.outputs.folders`: the order of writes of ``score``,
  ``batch`` and ``render --batch``, and what is removed when a run fails.

- :mod:`~ranking.running.outputs.atomic`: the atomic write of one file, under them all;
- :mod:`~ranking.running.outputs.append`: appending to a file other steps write too
  (``$GITHUB_STEP_SUMMARY``), all of it or none.
"""

from __future__ import annotations

from ranking.running.outputs.append import append_whole
from ranking.running.outputs.folders import (
    BatchFolder,
    ScoreFolder,
    batch_folder,
    score_folder,
    write_bundle_files,
    write_pages,
)
from ranking.running.outputs.lock import locked_folder, locked_for_update
from ranking.running.outputs.names import (
    BUNDLE_FILES,
    BUNDLE_FOLDER,
    ERROR,
    LOCK_NAME,
    REPORT,
    REPORTS,
    SUMMARY,
    VALIDATION,
    bundle_folder,
    runs_folder,
)
from ranking.running.outputs.temporaries import (
    ABANDONED_AFTER,
    STALE_AFTER,
    flush_to_disk,
    is_leftover_of,
    remove_if_present,
    sweep_leftovers,
    sweep_stale,
    write_file,
)

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
    "write_file",
    "remove_if_present",
    "flush_to_disk",
    "sweep_stale",
    "sweep_leftovers",
    "is_leftover_of",
    "STALE_AFTER",
    "ABANDONED_AFTER",
    "locked_folder",
    "locked_for_update",
    "ScoreFolder",
    "score_folder",
    "write_bundle_files",
    "BatchFolder",
    "batch_folder",
    "write_pages",
    "append_whole",
]
