"""The ranking report (SPEC §6): validation entries plus score, rank and final disposition."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from curator_io.canonical import seal_canonical
from curator_io.catalogue import (
    ACCEPTED,
    COUNTS_MEMBERS,
    DEFERRED,
    NO_OP,
    RANKING_ENTRY_MEMBERS,
    RANKING_REPORT_MEMBERS,
    REPORT_SCHEMA,
    SELECTED,
    SUPERSEDED,
    UNSELECTED,
    VALIDATION_DISPOSITIONS,
)
from ranking.pipeline.scoring import Score
from ranking.pipeline.selection import Decision
from validator import Validation, ValidationEntry
from validator.members import json_object
from validator.reasons import reasons_json, sort_reasons

__all__ = ["REPORT_SCHEMA", "build_report", "ranking_entry", "report_counts"]


def report_counts(validations: Sequence[str], dispositions: Sequence[str], eligible: int) -> dict[str, int]:
    """SPEC §6 ``counts`` from each proposal's validation and final disposition, in the same
    order: validation dispositions, ``eligible`` (len(ranking)), ``below_threshold`` (the
    accepted proposals §5.1 deferred), and the final ``selected``/``superseded``/``unselected``."""
    below_threshold = sum(1 for v, d in zip(validations, dispositions, strict=True) if v == ACCEPTED and d == DEFERRED)
    return _COUNTS(
        len(validations),
        *map(validations.count, VALIDATION_DISPOSITIONS),
        eligible,
        below_threshold,
        *map(dispositions.count, (SELECTED, SUPERSEDED, UNSELECTED)),
    )


def ranking_entry(
    entry: ValidationEntry,
    validated: Mapping[str, Any],
    score: Score | None,
    rank: int | None,
    decision: Decision | None,
) -> dict[str, Any]:
    """SPEC §6: the entry as the validation report wrote it (``validated``), plus the ranking's members."""
    pid, lesson, fingerprint, validation, _, support = validated.values()  # as the validator wrote them
    reasons = entry.reasons if decision is None else sort_reasons(entry.reasons + (decision.reason,))
    # Fresh containers: the two reports share nothing that can be changed.
    return _ENTRY(
        pid,
        lesson,
        fingerprint,
        validation,
        reasons_json(reasons),
        None if support is None else dict(support),
        validation if decision is None else decision.disposition,
        None if score is None else score.to_json(),
        rank,
        None if decision is None else decision.superseded_by,
        entry.rationale,
    )


def build_report(
    validation: Validation,
    scores: dict[str, Score],
    ranking: list[str],
    decisions: dict[str, Decision],
    selected: tuple[str, ...],
) -> tuple[dict[str, Any], bytes]:
    """Assemble and seal the ``evidence-ranking-v1`` report: the report, and its canonical bytes.

    ``scores`` holds every accepted proposal; ``ranking`` the eligible ones in
    rank order; ``decisions`` the final disposition of every accepted one (§5),
    and ``selected`` the ones it selects, in rank order.
    """
    rank_of = {pid: i for i, pid in enumerate(ranking, start=1)}
    entries = []
    # Both are sorted by reported id (§3.7), so they pair up.
    for e, validated in zip(validation.entries, validation.report["proposals"], strict=True):
        decision = decisions.get(e.id)
        entries.append(ranking_entry(e, validated, scores.get(e.id), rank_of.get(e.id), decision))
    counts = report_counts(
        [e.validation for e in validation.entries], [x["disposition"] for x in entries], len(ranking)
    )
    return seal_canonical(
        _REPORT(
            REPORT_SCHEMA,
            validation.run,
            validation.input_digest,
            dict(validation.report["config"]),  # the same config, as the validation report wrote it
            validation.report["digest"],
            entries,
            ranking,
            list(selected),
            SELECTED if selected else NO_OP,
            counts,
        )
    )


_COUNTS = json_object(COUNTS_MEMBERS)
_ENTRY = json_object(RANKING_ENTRY_MEMBERS)
_REPORT = json_object(RANKING_REPORT_MEMBERS[:-1])  # the seal adds the last, digest
