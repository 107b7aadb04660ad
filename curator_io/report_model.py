"""The reports as types: ``evidence-validation-v1`` (SPEC §3.7) and
``evidence-ranking-v1`` (SPEC §6), frozen slotted dataclasses.

One description serves two purposes. Code that reads a report reads these
attributes (``report.proposals[0].score.final``), not string keys; and
:mod:`curator_io.schema_generator` generates the published JSON Schemas from these same
classes through pydantic, so the schema and the type cannot drift apart. The
``Annotated`` metadata below is for the schema only: a dataclass checks nothing
when it is built. Each class's fields are the members :mod:`curator_io.catalogue`
names, in its order, which is what the validator and the pipeline write reports
with (without building these classes); importing this module checks the two agree.

Why dataclasses and not pydantic models: a report is read where it is checked
(``ranking.checking.verification.check_report``, or a byte-for-byte replay), so by the
time it is parsed here it already conforms to its schema, and validating it a
second time would cost ``verify`` and ``explain`` their CPU target against
``score`` (bench/RESULTS.md, "A typed report"). :func:`ranking_report_of`
builds the model from a conforming document without checking it again.

The numbers are kept as the report wrote them (``int`` or ``float``): SPEC §7's
checks compare them exactly, in hundredths (``ranking.checking.verification``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Annotated, Any

from curator_io import grammar as g
from curator_io.catalogue import (
    COUNTS_MEMBERS,
    MAXIMA,
    PENALTY_MAXIMUM,
    RANKING_ENTRY_MEMBERS,
    RANKING_REPORT_MEMBERS,
    REASON_MEMBERS,
    SCORE_MEMBERS,
    SUPPORT_MEMBERS,
    VALIDATION_ENTRY_MEMBERS,
    VALIDATION_REPORT_MEMBERS,
    FinalDisposition,
    Outcome,
    RankingSchema,
    ValidationDisposition,
    ValidationSchema,
)
from curator_io.config import INT_RANGES, MAX_SELECTED, THRESHOLD_RANGE

if TYPE_CHECKING:
    from pydantic import ConfigDict
    from pydantic_core import CoreSchema

__all__ = [
    "ReportConfig",
    "ReportReason",
    "ReportSupport",
    "ValidationReportEntry",
    "ValidationReport",
    "ReportScore",
    "RankingReportEntry",
    "ReportCounts",
    "RankingReport",
    "ranking_report_of",
]


class Field:
    """Constraints for the schema, as ``pydantic.Field`` takes them, handed to it only
    when the schema is generated: reading a report never imports pydantic (its
    start-up alone is a large share of ``verify``'s, and ``batch`` reads reports too).
    """

    __slots__ = ("constraints",)

    def __init__(self, **constraints: Any) -> None:
        self.constraints = constraints

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> CoreSchema:
        import pydantic

        schema: CoreSchema = handler(Annotated[source, pydantic.Field(**self.constraints)])
        return schema


# SPEC §0's values, from their rules (curator_io.grammar).
ID = Annotated[str, Field(pattern=g.ID.schema["pattern"])]
DIGEST = Annotated[str, Field(pattern=g.DIGEST.schema["pattern"])]
TIMESTAMP = Annotated[str, Field(pattern=g.TIMESTAMP.schema["pattern"])]
INT = Annotated[int, Field(ge=0, le=g.MAX_INT)]
Number = int | float

# Closed objects (additionalProperties: false), titled as the published schemas
# have always titled these definitions.


def _ranged(member: str) -> Field:
    """SPEC §2's range of an INT member of the config (:data:`curator_io.config.INT_RANGES`)."""
    least, most = INT_RANGES[member]
    return Field(ge=least) if most is None else Field(ge=least, le=most)


def _closed(title: str) -> ConfigDict:
    return {"extra": "forbid", "title": title}


# -- evidence-validation-v1 (SPEC §3.7) -------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReportConfig:
    # SPEC §2's configuration, as the report wrote it (curator_io.config.parse_config gives its ranges).
    # Comments, not docstrings, on these classes: a docstring is a description in the published schema.

    __pydantic_config__ = _closed("ConfigModel")

    threshold: Annotated[Number, Field(ge=THRESHOLD_RANGE[0], le=THRESHOLD_RANGE[1])]
    max_selected: Annotated[int, _ranged("max_selected")]
    max_operations: Annotated[int, _ranged("max_operations")]
    max_operation_bytes: Annotated[int, _ranged("max_operation_bytes")]
    max_delta_bytes: Annotated[int, _ranged("max_delta_bytes")]
    min_lineages: Annotated[int, _ranged("min_lineages")]
    min_lineages_broad: Annotated[int, _ranged("min_lineages_broad")]
    min_lineages_user: Annotated[int, _ranged("min_lineages_user")]

    def to_json(self) -> dict[str, Number]:
        """The members as the report wrote them (for sentences that name them)."""
        return {name: getattr(self, name) for name in _CONFIG_MEMBERS}


_CONFIG_MEMBERS = tuple(ReportConfig.__dataclass_fields__)


@dataclass(frozen=True, slots=True)
class ReportReason:
    __pydantic_config__ = _closed("ReasonModel")

    code: Annotated[str, Field(pattern=r"^[a-z_]+\.[a-z_]+$")]
    subject: str | None


@dataclass(frozen=True, slots=True)
class ReportSupport:
    # SPEC §3.5's support summary.

    __pydantic_config__ = _closed("SupportModel")

    lineages: INT
    required: Annotated[int, Field(ge=1)]
    strength: INT
    contradiction: INT
    verified: INT
    quarantined: INT
    earliest: TIMESTAMP | None


_ID_PATTERN = g.ID.schema["pattern"].removeprefix("^").removesuffix("$")
ReportedId = Annotated[str, Field(pattern=rf"^({_ID_PATTERN}|@(0|[1-9][0-9]*))$")]


@dataclass(frozen=True, slots=True)
class ValidationReportEntry:
    __pydantic_config__ = _closed("ValidationEntryModel")

    id: ReportedId
    """The proposal's id, or ``@<index>`` for a proposal without a usable one (SPEC §3.7)."""
    lesson: ID | None
    fingerprint: DIGEST | None
    validation: ValidationDisposition
    reasons: tuple[ReportReason, ...]
    support: ReportSupport | None


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """``evidence-validation-v1``."""

    __pydantic_config__ = _closed("ValidationReportModel")

    schema: ValidationSchema
    run: ID
    input_digest: DIGEST
    config: ReportConfig
    proposals: tuple[ValidationReportEntry, ...]
    digest: DIGEST


# -- evidence-ranking-v1 (SPEC §6) -------------------------------------------------------


def _upto(hi: int) -> Any:
    """A score part's bounds, as ``Annotated`` metadata: a type checker refuses a call where a type goes."""
    return Field(ge=0, le=hi)


@dataclass(frozen=True, slots=True)
class ReportScore:
    # SPEC §4's components and the final score, as written (rounded to 2 decimals).

    __pydantic_config__ = _closed("ScoreModel")

    recurrence: Annotated[Number, _upto(MAXIMA["recurrence"])]
    provenance: Annotated[Number, _upto(MAXIMA["provenance"])]
    source_signal: Annotated[Number, _upto(MAXIMA["source_signal"])]
    scope_coverage: Annotated[Number, _upto(MAXIMA["scope_coverage"])]
    confidence: Annotated[Number, _upto(MAXIMA["confidence"])]
    completeness: Annotated[Number, _upto(MAXIMA["completeness"])]
    contradiction_penalty: Annotated[Number, _upto(PENALTY_MAXIMUM)]
    final: Annotated[Number, _upto(100)]


@dataclass(frozen=True, slots=True)
class RankingReportEntry(ValidationReportEntry):
    __pydantic_config__ = _closed("RankingEntryModel")

    disposition: FinalDisposition
    score: ReportScore | None
    rank: Annotated[int, Field(ge=1)] | None
    superseded_by: ID | None
    rationale: str


@dataclass(frozen=True, slots=True)
class ReportCounts:
    __pydantic_config__ = _closed("CountsModel")

    proposals: INT
    accepted: INT
    deferred: INT
    quarantined: INT
    rejected: INT
    eligible: INT
    below_threshold: INT
    selected: Annotated[int, Field(ge=0, le=MAX_SELECTED)]
    superseded: INT
    unselected: INT


@dataclass(frozen=True, slots=True)
class RankingReport:
    """``evidence-ranking-v1``."""

    __pydantic_config__ = _closed("RankingReportModel")

    schema: RankingSchema
    run: ID
    input_digest: DIGEST
    config: ReportConfig
    validation_digest: DIGEST
    proposals: tuple[RankingReportEntry, ...]
    ranking: tuple[ID, ...]
    """The eligible proposals' ids in rank order (SPEC §5.2)."""
    selected: Annotated[tuple[ID, ...], Field(max_length=5)]
    outcome: Outcome
    counts: ReportCounts
    digest: DIGEST


# -- from a conforming document ------------------------------------------------------------


def _members(cls: type, names: tuple[str, ...]) -> tuple[str, ...]:
    """``names``, the catalogue's members of a report object, once checked to be ``cls``'s fields
    in order. The catalogue names them for the code that writes reports, which must not pay for
    building these classes (bench/RESULTS.md); this is where the two are held together."""
    assert tuple(f.name for f in fields(cls)) == names, cls.__name__
    return names


_SUPPORT = _members(ReportSupport, SUPPORT_MEMBERS)
_SCORE = _members(ReportScore, SCORE_MEMBERS)
_COUNTS = _members(ReportCounts, COUNTS_MEMBERS)
_ENTRY = _members(RankingReportEntry, RANKING_ENTRY_MEMBERS)
_REPORT = _members(RankingReport, RANKING_REPORT_MEMBERS)
_members(ReportReason, REASON_MEMBERS)
_members(ValidationReportEntry, VALIDATION_ENTRY_MEMBERS)
_members(ValidationReport, VALIDATION_REPORT_MEMBERS)


def ranking_report_of(document: Mapping[str, Any]) -> RankingReport:
    """The model of an ``evidence-ranking-v1`` document that already conforms to its schema.

    Nothing is checked here: call it where the report was checked
    (``ranking.checking.verification.check_report``) or replayed byte for byte. A
    document that does not conform raises ``KeyError`` or ``TypeError`` or
    builds a model that lies. Each model is built from its members in the order
    the dataclass states them, the catalogue's.
    """
    reasons: dict[tuple[str, str | None], ReportReason] = {}  # the same reason recurs across entries

    def reason(r: Mapping[str, Any]) -> ReportReason:
        key = (r["code"], r["subject"])
        found = reasons.get(key)
        if found is None:
            found = reasons[key] = ReportReason(*key)
        return found

    def entry(e: Mapping[str, Any]) -> RankingReportEntry:
        s, sc = e["support"], e["score"]
        members = {
            **e,
            "reasons": tuple(map(reason, e["reasons"])),
            "support": None if s is None else ReportSupport(*map(s.__getitem__, _SUPPORT)),
            "score": None if sc is None else ReportScore(*map(sc.__getitem__, _SCORE)),
        }
        return RankingReportEntry(*map(members.__getitem__, _ENTRY))

    c = document["config"]
    members = {
        **document,
        "config": ReportConfig(*map(c.__getitem__, _CONFIG_MEMBERS)),
        "proposals": tuple(map(entry, document["proposals"])),
        "ranking": tuple(document["ranking"]),
        "selected": tuple(document["selected"]),
        "counts": ReportCounts(*map(document["counts"].__getitem__, _COUNTS)),
    }
    return RankingReport(*map(members.__getitem__, _REPORT))
