"""The pipeline, as its table of contents (SPEC §3-§6):

load -> validate -> score -> order -> select -> build reports
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from curator_io.bundle import load_bundle
from curator_io.config import DEFAULT_CONFIG, Config
from curator_io.models import Bundle
from ranking.report import build_report
from ranking.scoring import Score, score_entry
from ranking.selection import Ranked, order_eligible, select_survivors
from validator import Validation, validate

__all__ = ["Result", "rank", "rank_validation", "rank_bytes"]


@dataclass(frozen=True, slots=True)
class Result:
    validation: Validation
    report: dict[str, Any]
    """The sealed ``evidence-ranking-v1`` report."""

    @property
    def selected(self) -> list[str]:
        return list(self.report["selected"])


def rank_validation(validation: Validation) -> dict[str, Any]:
    """Score, order and select what :func:`validator.validate` produced."""
    config = validation.config
    scores: dict[str, Score] = {e.id: score_entry(e) for e in validation.entries if e.validation == "accepted"}
    threshold = config.threshold_exact
    eligible = [
        Ranked(e, scores[e.id].final) for e in validation.entries if e.id in scores and scores[e.id].final >= threshold
    ]
    ordered = order_eligible(eligible)
    decisions = select_survivors(ordered, config.max_selected)
    return build_report(validation, scores, [r.entry.id for r in ordered], decisions)


def rank(bundle: Bundle, config: Config = DEFAULT_CONFIG) -> Result:
    """The one entry point: validation and ranking reports for a loaded bundle."""
    validation = validate(bundle, config=config)
    return Result(validation, rank_validation(validation))


def rank_bytes(raw: bytes, config: Config = DEFAULT_CONFIG) -> Result:
    """Load (strictly) and rank one bundle document."""
    return rank(load_bundle(raw), config)
