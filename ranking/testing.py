"""Helpers for users' own tests of their curators.

:func:`snapshot_lines` turns a report into a compact, stable, reviewable text:
one line per proposal with its id, final disposition and reason codes. Put it
in a syrupy snapshot and a changed decision shows in the diff as a ``-`` line and a ``+``
line for each proposal it changed (and for the outcome, when the selection changed)::

    from ranking.testing import snapshot_lines, score_file

    def test_my_curator_reasons(snapshot):
        assert snapshot_lines(score_file("fixtures/example.json")) == snapshot
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from curator_io.catalogue import reason_label
from curator_io.config import DEFAULT_CONFIG, Config
from ranking.pipeline import rank_bytes
from ranking.running.inputs import read_input

__all__ = ["snapshot_lines", "score_file", "reason_codes", "example_bundle"]


def reason_codes(entry: Mapping[str, Any]) -> list[str]:
    """``code`` or ``code(subject)`` for each reason, in report order."""
    return [reason_label(r["code"], r["subject"]) for r in entry["reasons"]]


def snapshot_lines(report: Mapping[str, Any]) -> str:
    """One line per proposal, ``id  disposition  codes``, then the outcome.

    Works on a ranking report (final dispositions) or a validation report
    (validation dispositions). Contains no digests, so it survives a reseal
    and shows only decisions.
    """
    rows = []
    for entry in report["proposals"]:
        disposition = entry.get("disposition", entry["validation"])
        rows.append(f"{entry['id']}  {disposition}  {' '.join(reason_codes(entry))}")
    if "outcome" in report:
        rows.append(f"outcome: {report['outcome']}  selected: {' '.join(report['selected']) or '-'}")
    return "\n".join(rows) + "\n"


def score_file(path: str | os.PathLike[str], config: Config = DEFAULT_CONFIG) -> dict[str, Any]:
    """Rank the bundle at ``path`` and return its ranking report."""
    return rank_bytes(read_input(path), config).report


def example_bundle(name: str = "example.json") -> Path:
    """The path of an example bundle the package ships (the repository's ``fixtures/``), so the
    documented examples run from an installed package: ``score_file(example_bundle())``."""
    path = Path(__file__).parent / "example_bundles" / name
    if not path.is_file():
        shipped = sorted(p.name for p in path.parent.glob("*.json"))
        raise FileNotFoundError(f"no example bundle {name!r}; the package ships {', '.join(shipped)}")
    return path
