"""Tamper evidence (SPEC §7): the invariants every ranking report satisfies,
replay against the bundle, and the recomputation of a validation report.

For callers that receive reports from elsewhere:

* :func:`check_report` — every invariant that the report alone can show;
  ``conflict_free`` too when the bundle's proposals are given.
* :func:`replay_report` — recompute from the bundle and compare canonical bytes
  (:func:`replay` returns the whole run).
* :func:`check_validation` — SPEC §7 "scoring recomputes validation".

jsonschema is imported only to describe a report the compiled predicate
(``curator_io._fast.conformance``) refuses: it is a large share of a short run's start-up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any

from curator_io.canonical import canon, is_sealed
from curator_io.catalogue import (
    ACCEPTED,
    COMPONENTS,
    FINAL_OF_ACCEPTED,
    INVARIANTS,
    MAXIMA,
)
from curator_io.config import MAX_SELECTED, Config, parse_config
from curator_io.errors import ConfigError, InvariantError, TamperError, pointer_of
from curator_io.models import SIGNAL_WEIGHTS, Bundle
from curator_io.published import published_schema
from curator_io.reference import off
from curator_io.report_model import RankingReport, RankingReportEntry, ReportScore, ranking_report_of
from ranking.checking.diffing import differences
from ranking.pipeline import Result, rank, selection
from ranking.pipeline.report import report_counts
from ranking.pipeline.scoring import contradiction_penalty, recurrence, scope_coverage
from ranking.pipeline.selection import conflicts
from validator import Proposal, Validation, validate

if TYPE_CHECKING:
    import jsonschema

__all__ = ["INVARIANTS", "check_report", "report_order_key", "replay", "replay_report", "check_validation"]


_SIGNAL_HUNDREDTHS = frozenset(100 * weight for weight in SIGNAL_WEIGHTS.values())
# Every scope_coverage §4 can give a scored proposal: V holds at least one item (min_lineages >= 1),
# so M >= 1, and R <= M; from M = 2 and R = 2 on, neither term grows.
_COVERAGES = frozenset(scope_coverage(m, r) for m in (1, 2) for r in range(1, m + 1))


def _first_schema_error(report: Mapping[str, Any]) -> jsonschema.ValidationError | None:
    """jsonschema's verdict, with its best error: what ``invariant.schema`` says and points at.

    Unless on the reference path (``EVIDENCE_RANK_REFERENCE=1``), the predicate compiled
    from the same schema answers first and accepts exactly what jsonschema accepts
    (``curator_io._fast.conformance``); jsonschema walks the report only to describe a
    failure, which costs it many times more than the verdict.
    """
    if not off("conformance") and _report_conforms()(report):
        return None
    # Imported on first use, not with the module: jsonschema is a large share of the
    # command line's start-up, and only a report that fails needs it.
    import jsonschema

    error: jsonschema.ValidationError | None = jsonschema.exceptions.best_match(_report_validator().iter_errors(report))
    return error  # best_match is unannotated in types-jsonschema


@cache
def _report_conforms() -> Callable[[Any], bool]:
    from curator_io._fast.conformance import compile_schema

    return compile_schema(published_schema("report"))


@cache
def _report_validator() -> jsonschema.Draft202012Validator:
    import jsonschema

    return jsonschema.Draft202012Validator(published_schema("report"))


def _fail(name: str, detail: str, *path: str | int) -> InvariantError:
    return InvariantError(f"invariant.{name}", detail, pointer=pointer_of(*path))


def check_report(report: Mapping[str, Any], *, proposals: Mapping[str, Proposal] | None = None) -> RankingReport:
    """Raise ``invariant.<name>`` for the first SPEC §7 invariant ``report`` violates;
    return the report as its type, for the caller to read.

    ``conflict_free`` needs the proposals' operations, which a report does not
    carry: it is checked when ``proposals`` (see :func:`validator.proposals_of`) is given.
    """
    # sealed
    if not isinstance(report, Mapping) or not is_sealed(report):
        raise _fail("sealed", "the report's digest does not seal its content", "digest")
    # schema
    error = _first_schema_error(report)
    if error is not None:
        raise _fail("schema", error.message[:300], *error.absolute_path)
    try:
        config = parse_config(report["config"])
    except ConfigError as bad:
        # The schema gives config its members' types; SPEC §2 gives their ranges.
        pointer = "/config" + (bad.pointer or "")
        raise InvariantError("invariant.schema", f"config: {bad.detail}", pointer=pointer) from bad
    # Cannot fail: the document conforms to the schema the model's is generated from.
    model = ranking_report_of(report)
    entries = model.proposals
    by_id = {e.id: e for e in entries}
    _check_partition(model, by_id)
    for i, e in enumerate(entries):
        _check_components(e, i)
    _check_threshold(entries, config)
    _check_order(model.ranking, by_id)
    _check_limit(model, config)
    _check_selection(model, by_id, config)
    _check_unique(model.selected, by_id)
    if proposals is not None:
        _check_conflict_free(model.selected, proposals)
    return model


def _check_partition(report: RankingReport, by_id: Mapping[str, RankingReportEntry]) -> None:
    entries = report.proposals
    ids = [e.id for e in entries]
    if len(by_id) != len(entries):
        raise _fail("partition", "two proposals share an id", "proposals")
    if ids != sorted(ids):
        raise _fail("partition", "proposals are not sorted by id", "proposals")
    for i, e in enumerate(entries):
        validation, disposition = e.validation, e.disposition
        ok = disposition in FINAL_OF_ACCEPTED if validation == ACCEPTED else disposition == validation
        if not ok:
            raise _fail(
                "partition",
                f"proposal {e.id}: validation {validation} cannot end {disposition}",
                "proposals",
                i,
                "disposition",
            )
    counts = report.counts
    validations: list[str] = [e.validation for e in entries]
    dispositions: list[str] = [e.disposition for e in entries]
    expected = report_counts(validations, dispositions, len(report.ranking))
    for name, value in expected.items():
        written = getattr(counts, name)
        if written != value:
            raise _fail("partition", f"counts.{name} is {written}, the proposals make it {value}", "counts", name)
    ranked = {e.id for e in entries if e.rank is not None}
    if set(report.ranking) != ranked or len(report.ranking) != len(ranked):
        raise _fail("partition", "ranking does not list exactly the ranked proposals", "ranking")
    if {e.id for e in entries if e.disposition == "selected"} != set(report.selected):
        raise _fail("partition", "selected does not list exactly the selected proposals", "selected")
    if (report.outcome == "selected") != bool(report.selected):
        raise _fail("partition", f"outcome {report.outcome} with {len(report.selected)} selected", "outcome")


def _hundredths(x: int | float) -> int | Fraction:
    """100 times the number a report wrote, exactly: ``Fraction(repr(x)) * 100`` for a float.

    Every §4 component is a whole number of hundredths, so this is almost always
    an ``int``, and the checks below compare and add ints, not fractions. Why the
    shortcut is exact: when ``k / 100 == x`` with ``|k| < 10**15``, ``x`` is the
    binary64 nearest ``k / 100``, a decimal of at most 15 significant digits;
    ``repr(x)`` is the shortest decimal that rounds to ``x``, and two decimals of
    at most 15 significant digits never round to the same binary64 (DBL_DIG), so
    ``repr(x)`` is ``k / 100``. Otherwise the fraction is built, as before.
    """
    if type(x) is int:
        return 100 * x
    if type(x) is float and abs(x) < 1e12:
        k = round(x * 100)
        if k / 100 == x:
            return k
    return Fraction(repr(x)) * 100 if type(x) is float else Fraction(x) * 100


_SCORE_MEMBERS = tuple(ReportScore.__dataclass_fields__)


def _check_components(e: RankingReportEntry, i: int) -> None:
    """SPEC §4, as far as the report's own support summary determines it (in hundredths)."""
    score, support, pid = e.score, e.support, e.id
    if (score is not None) != (e.validation == "accepted"):
        raise _fail(
            "components", f"proposal {pid}: a score goes with accepted validation only", "proposals", i, "score"
        )
    if score is None:
        return
    if support is None:
        # SPEC §3.5 runs for every accepted proposal: its support summary is what §4's components come from.
        raise _fail("components", f"proposal {pid}: a score without its support summary", "proposals", i, "support")
    c = {name: _hundredths(getattr(score, name)) for name in _SCORE_MEMBERS}
    expected = {
        "recurrence": recurrence(support.lineages),
        "completeness": 100 * MAXIMA["completeness"],
        # At least 1: a report may claim counterevidence with no strength, which no accepted
        # proposal has (SPEC §3.5.8 rejects Cs >= Ss); checking it must not divide by zero.
        "contradiction_penalty": contradiction_penalty(support.contradiction, max(support.strength, 1)),
    }
    for name, value in expected.items():
        if c[name] != value:
            raise _fail(
                "components",
                f"proposal {pid}: {name} is {getattr(score, name)}, SPEC §4 makes it {Fraction(value, 100)}",
                "proposals",
                i,
                "score",
                name,
            )
    if c["source_signal"] not in _SIGNAL_HUNDREDTHS or c["scope_coverage"] not in _COVERAGES:
        raise _fail(
            "components",
            f"proposal {pid}: source_signal or scope_coverage is not a value §4 can give",
            "proposals",
            i,
            "score",
        )
    for name in ("provenance", "confidence"):
        if c[name] % 1 != 0:
            raise _fail(
                "components", f"proposal {pid}: {name} is not rounded to 2 decimals", "proposals", i, "score", name
            )
    parts = sum(c[k] for k in COMPONENTS)
    total = max(0, parts - c["contradiction_penalty"])
    if c["final"] != total:
        raise _fail(
            "components",
            f"proposal {pid}: final is {score.final}, its components make {float(Fraction(total, 100)):g}",
            "proposals",
            i,
            "score",
            "final",
        )


def _check_threshold(entries: Sequence[RankingReportEntry], config: Config) -> None:
    threshold = config.threshold_hundredths
    for i, e in enumerate(entries):
        if e.score is None:
            continue
        final = _hundredths(e.score.final)
        if e.rank is not None and final < threshold:
            raise _fail(
                "threshold",
                f"proposal {e.id} is ranked with {e.score.final} < {config.threshold}",
                "proposals",
                i,
            )
        below = e.disposition == "deferred"
        if below and final >= threshold:
            raise _fail("threshold", f"proposal {e.id} is below_threshold with {e.score.final}", "proposals", i)
        if below != (e.rank is None):
            raise _fail(
                "threshold",
                f"proposal {e.id}: accepted, so ranked exactly when not below the threshold",
                "proposals",
                i,
                "rank",
            )


def report_order_key(e: RankingReportEntry) -> tuple[int | Fraction, int, str, str]:
    """SPEC §5.2's :func:`~ranking.pipeline.selection.order_key` of a ranked proposal of a report
    (one with a score and ``support.earliest``): what the ``order`` check compares, and what
    ``explain`` names the tie-breaker from."""
    # Cannot fail: _check_order calls it once every ranked proposal has a score and support.earliest.
    assert e.score is not None and e.support is not None and e.support.earliest is not None
    # Looked up when called, as the pipeline's own sort does: a change to §5.2's key reaches every reader.
    return selection.order_key(_hundredths(e.score.final), e.support.lineages, e.support.earliest, e.id)


def _check_order(ranking: Sequence[str], by_id: Mapping[str, RankingReportEntry]) -> None:
    for i, pid in enumerate(ranking):
        # support is there (a ranked proposal is scored, and a score has its support: components). SPEC §5.2
        # orders by support.earliest, which is null only when no support is verified: never when ranked.
        e = by_id[pid]
        if e.score is None:
            raise _fail("order", f"proposal {pid} is ranked without a score", "ranking", i)
        if e.support is None or e.support.earliest is None:
            raise _fail("order", f"proposal {pid} is ranked without support.earliest", "ranking", i)
    keys = [report_order_key(by_id[pid]) for pid in ranking]
    for i in range(1, len(keys)):
        if keys[i - 1] >= keys[i]:
            raise _fail("order", f"{ranking[i - 1]} is ranked before {ranking[i]} against SPEC §5.2", "ranking", i)
    for position, pid in enumerate(ranking, start=1):
        if by_id[pid].rank != position:
            raise _fail(
                "order", f"proposal {pid} has rank {by_id[pid].rank} at position {position}", "ranking", position - 1
            )


def _check_limit(report: RankingReport, config: Config) -> None:
    if not len(report.selected) <= config.max_selected <= MAX_SELECTED:
        raise _fail("limit", f"{len(report.selected)} selected, max_selected is {config.max_selected}", "selected")


def _check_selection(report: RankingReport, by_id: Mapping[str, RankingReportEntry], config: Config) -> None:
    """``selected`` is the first survivors of ``ranking``; the superseded name an earlier survivor."""
    for i, e in enumerate(report.proposals):
        # SPEC §6: superseded_by is null unless the proposal was superseded (ranked or not).
        if e.superseded_by is not None and e.disposition != "superseded":
            raise _fail(
                "selection",
                f"proposal {e.id} names superseded_by but is {e.disposition}",
                "proposals",
                i,
                "superseded_by",
            )
    survivors: list[str] = []
    for pid in report.ranking:
        e = by_id[pid]
        if e.disposition == "superseded":
            blocker = e.superseded_by
            if blocker not in survivors:
                raise _fail(
                    "selection",
                    f"proposal {pid} is superseded by {blocker}, which is not an earlier survivor",
                    "proposals",
                )
            continue
        survivors.append(pid)
    if list(report.selected) != survivors[: config.max_selected]:
        raise _fail("selection", "selected is not the first survivors of ranking in rank order", "selected")
    for pid in survivors[config.max_selected :]:
        if by_id[pid].disposition != "unselected":
            raise _fail("selection", f"survivor {pid} beyond the limit must be unselected", "proposals")


def _check_unique(selected: Sequence[str], by_id: Mapping[str, RankingReportEntry]) -> None:
    seen: dict[str | None, str] = {}
    for i, pid in enumerate(selected):
        fp = by_id[pid].fingerprint
        if fp in seen:
            raise _fail("unique", f"{seen[fp]} and {pid} are both selected with fingerprint {fp}", "selected", i)
        seen[fp] = pid


def _check_conflict_free(selected: Sequence[str], proposals: Mapping[str, Proposal]) -> None:
    chosen = [proposals[pid] for pid in selected if pid in proposals]
    for i, a in enumerate(chosen):
        for b in chosen[:i]:  # at most five selected: pairwise is bounded
            if conflicts(a, b):
                raise _fail("conflict_free", f"selected {b.id} and {a.id} conflict", "selected", i)


def replay_report(bundle: Bundle, report: Mapping[str, Any], *, config: Config | None = None) -> dict[str, Any]:
    """Recompute the report from the bundle (with the report's own config unless
    one is given) and refuse ``report.tampered`` on any byte of difference."""
    return replay(bundle, report, config=config).report


def replay(bundle: Bundle, report: Mapping[str, Any], *, config: Config | None = None) -> Result:
    """:func:`replay_report`, returning the whole run, so that a caller that also needs
    the bundle's validation (``explain --bundle``) does not compute it twice."""
    if report.get("input_digest") != bundle.input_digest:
        raise TamperError(
            "report.tampered", "the report is not this bundle's: input_digest differs", pointer="/input_digest"
        )
    if config is None:
        try:
            config = parse_config(report.get("config"))
        except ConfigError as e:
            raise TamperError(
                "report.tampered", f"the report's config is invalid: {e.detail}", pointer="/config"
            ) from e
    result = rank(bundle, config)
    expected = result.report
    if canon(dict(report)) != canon(expected):
        where = _where(report, expected)
        raise TamperError(
            "report.tampered",
            f"the report differs from the replay at {', '.join(where) or '/'}",
            pointer=where[0] if where else "",
        )
    return result


def check_validation(bundle: Bundle, given: Mapping[str, Any], *, config: Config) -> Validation:
    """SPEC §7: recompute validation; refuse ``validation.tampered`` unless ``given`` is sealed and identical."""
    recomputed = validate(bundle, config=config)
    if not isinstance(given, Mapping) or not is_sealed(given):
        raise TamperError("validation.tampered", "the validation report is not sealed", pointer="/digest")
    if canon(dict(given)) != canon(recomputed.report):
        where = _where(given, recomputed.report)
        raise TamperError(
            "validation.tampered",
            f"the validation report differs from the recomputed one at {', '.join(where)}",
            pointer=where[0] if where else "",
        )
    return recomputed


def _where(given: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    """The first differing pointers, the seal last: a changed body changes the digest too."""
    return differences(_body(given), _body(expected)) or ["/digest"]


def _body(report: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in report.items() if name != "digest"}
