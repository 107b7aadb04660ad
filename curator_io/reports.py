"""The JSON Schemas (Draft 2020-12) published in ``curator_io/schemas/``: the
bundle's generated from its description in :mod:`curator_io.kinds`, each
report's from its pydantic model here.

The published files are generated (``python -m curator_io.reports``) and a
test fails when they and their sources drift apart. The schemas describe the
shape of a document; the rules no schema can state (calendar dates, UTF-8 byte
lengths, seals, the invariants of SPEC §7) are checked by the loader and by
:mod:`ranking.verification`.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from curator_io import grammar as g
from curator_io.catalogue import (
    MAXIMA,
    PENALTY_MAXIMUM,
    FinalDisposition,
    Outcome,
    RankingSchema,
    ValidationDisposition,
    ValidationSchema,
)
from curator_io.kinds import BUNDLE, DEFINITIONS, Kind
from curator_io.published import SCHEMA_IDS, published_schema

__all__ = [
    "ValidationReportModel",
    "RankingReportModel",
    "SCHEMA_MODELS",
    "published_schema",
    "generate_schema",
]

# SPEC §0's values, from their rules (curator_io.grammar).
ID = Annotated[str, Field(pattern=g.ID.schema["pattern"])]
DIGEST = Annotated[str, Field(pattern=g.DIGEST.schema["pattern"])]
TIMESTAMP = Annotated[str, Field(pattern=g.TIMESTAMP.schema["pattern"])]
INT = Annotated[int, Field(ge=0, le=g.MAX_INT)]
Number = int | float


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# -- evidence-validation-v1 (SPEC §3.7) -------------------------------------------------


class ConfigModel(_Frozen):
    threshold: Annotated[Number, Field(ge=0, le=100)]
    max_selected: Annotated[int, Field(ge=1, le=5)]
    max_operations: Annotated[int, Field(ge=1)]
    max_operation_bytes: Annotated[int, Field(ge=1)]
    max_delta_bytes: Annotated[int, Field(ge=1)]
    min_lineages: Annotated[int, Field(ge=1)]
    min_lineages_broad: Annotated[int, Field(ge=1)]
    min_lineages_user: Annotated[int, Field(ge=1)]


class ReasonModel(_Frozen):
    code: Annotated[str, Field(pattern=r"^[a-z_]+\.[a-z_]+$")]
    subject: str | None


class SupportModel(_Frozen):
    lineages: INT
    required: Annotated[int, Field(ge=1)]
    strength: INT
    contradiction: INT
    verified: INT
    quarantined: INT
    earliest: TIMESTAMP | None


# SPEC §3.1: an ID, or "@<index>" for a proposal without a usable one.
_ID_PATTERN = g.ID.schema["pattern"].removeprefix("^").removesuffix("$")
ReportedId = Annotated[str, Field(pattern=rf"^({_ID_PATTERN}|@(0|[1-9][0-9]*))$")]


class ValidationEntryModel(_Frozen):
    id: ReportedId
    lesson: ID | None
    fingerprint: DIGEST | None
    validation: ValidationDisposition
    reasons: list[ReasonModel]
    support: SupportModel | None


class ValidationReportModel(_Frozen):
    """``evidence-validation-v1``."""

    schema_: ValidationSchema = Field(alias="schema")
    run: ID
    input_digest: DIGEST
    config: ConfigModel
    proposals: list[ValidationEntryModel]
    digest: DIGEST


# -- evidence-ranking-v1 (SPEC §6) -------------------------------------------------------


def _upto(hi: int) -> Any:
    """A score part's bounds, as ``Annotated`` metadata: a type checker refuses a call where a type goes."""
    return Field(ge=0, le=hi)


class ScoreModel(_Frozen):
    recurrence: Annotated[Number, _upto(MAXIMA["recurrence"])]
    provenance: Annotated[Number, _upto(MAXIMA["provenance"])]
    source_signal: Annotated[Number, _upto(MAXIMA["source_signal"])]
    scope_coverage: Annotated[Number, _upto(MAXIMA["scope_coverage"])]
    confidence: Annotated[Number, _upto(MAXIMA["confidence"])]
    completeness: Annotated[Number, _upto(MAXIMA["completeness"])]
    contradiction_penalty: Annotated[Number, _upto(PENALTY_MAXIMUM)]
    final: Annotated[Number, _upto(100)]


class RankingEntryModel(ValidationEntryModel):
    disposition: FinalDisposition
    score: ScoreModel | None
    rank: Annotated[int, Field(ge=1)] | None
    superseded_by: ID | None
    rationale: str


class CountsModel(_Frozen):
    proposals: INT
    accepted: INT
    deferred: INT
    quarantined: INT
    rejected: INT
    eligible: INT
    below_threshold: INT
    selected: Annotated[int, Field(ge=0, le=5)]
    superseded: INT
    unselected: INT


class RankingReportModel(_Frozen):
    """``evidence-ranking-v1``."""

    schema_: RankingSchema = Field(alias="schema")
    run: ID
    input_digest: DIGEST
    config: ConfigModel
    validation_digest: DIGEST
    proposals: list[RankingEntryModel]
    ranking: list[ID]
    selected: Annotated[list[ID], Field(max_length=5)]
    outcome: Outcome
    counts: CountsModel
    digest: DIGEST


#: Each report's name (as ``evidence-rank schema NAME`` takes it) and its model.
SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "validation": ValidationReportModel,
    "report": RankingReportModel,
}


def _object_schema(kind: Kind) -> dict[str, Any]:
    """A kind's table as the schema of an object, written as pydantic writes a model's."""
    properties = {}
    for name, rule in kind.members:
        fragment = dict(rule.schema)
        if "$ref" not in fragment:
            fragment["title"] = name.replace("_", " ").title()
        properties[name] = fragment
    out: dict[str, Any] = {
        "type": "object",
        "title": kind.title,
        "additionalProperties": not kind.closed,
        "properties": properties,
        "required": [name for name, _ in kind.members if name not in kind.optional],
    }
    if kind.description is not None:
        out["description"] = kind.description
    return out


def generate_schema(name: str) -> dict[str, Any]:
    """The Draft 2020-12 schema of ``name``: the bundle's from its kinds, a report's from its model."""
    if name == "bundle":
        body = {"$defs": {kind.title: _object_schema(kind) for kind in DEFINITIONS}, **_object_schema(BUNDLE)}
    else:
        body = SCHEMA_MODELS[name].model_json_schema(by_alias=True, mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:evidence-rank:schema:{SCHEMA_IDS[name]}",
        **body,
    }


if __name__ == "__main__":  # regenerate the published files: python -m curator_io.reports
    from pathlib import Path

    folder = Path(__file__).with_name("schemas")
    for schema_name, schema_file in SCHEMA_IDS.items():
        text = json.dumps(generate_schema(schema_name), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        (folder / f"{schema_file}.json").write_text(text, "utf-8")
        print(f"wrote {folder / schema_file}.json")
