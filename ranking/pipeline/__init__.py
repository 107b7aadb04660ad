"""The pipeline, as its table of contents (SPEC §3-§6):

load -> validate -> score -> order -> select -> build reports
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from curator_io.bundle import load_bundle
from curator_io.catalogue import NO_OP, SELECTED
from curator_io.config import DEFAULT_CONFIG, Config
from curator_io.models import Bundle
from ranking.pipeline.report import build_report
from ranking.pipeline.scoring import Score, score_entry
from ranking.pipeline.selection import Ranked, order_eligible, select_survivors, split_eligible
from validator import Validation, validate

__all__ = ["Result", "rank", "rank_bytes", "result_of"]


@dataclass(frozen=True, slots=True)
class Result:
    validation: Validation
    report: dict[str, Any]
    """The sealed ``evidence-ranking-v1`` report."""
    canonical: bytes = field(compare=False, repr=False)
    """``canon(report)``: the bytes written, made with the seal."""
    selected: tuple[str, ...]
    """The selected proposals' ids in rank order: the report's ``selected``."""

    @property
    def outcome(self) -> str:
        """The report's ``outcome``: ``selected``, or ``no_op`` when nothing was selected."""
        return SELECTED if self.selected else NO_OP


def result_of(validation: Validation) -> Result:
    """Score, order and select what :func:`validator.validate` produced: both reports."""
    config = validation.config
    scores: dict[str, Score] = {e.id: score_entry(e) for e in validation.entries if e.validation == "accepted"}
    accepted = (Ranked(e, scores[e.id].final) for e in validation.entries if e.id in scores)
    eligible, below_threshold = split_eligible(accepted, config.threshold_hundredths)
    ordered = order_eligible(eligible)
    decisions = select_survivors(ordered, config.max_selected) | below_threshold
    ranking = [r.entry.id for r in ordered]
    selected = tuple(pid for pid in ranking if decisions[pid].disposition == SELECTED)
    return Result(validation, *build_report(validation, scores, ranking, decisions, selected), selected)


def rank(bundle: Bundle, config: Config = DEFAULT_CONFIG) -> Result:
    """The one entry point: validation and ranking reports for a loaded bundle.

    The garbage collector is the caller's: a command turns it off for its whole
    process (:mod:`ranking.cli.collector`), a library call leaves it alone.
    """
    return result_of(validate(bundle, config=config))


def rank_bytes(raw: bytes, config: Config = DEFAULT_CONFIG) -> Result:
    """Load (strictly) and rank one bundle document."""
    # Ranking needs only the validation: the bundle is freed before the reports are built.
    return result_of(validate(load_bundle(raw), config=config))
