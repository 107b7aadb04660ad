"""Pydantic models of the bundle and of both reports, and the JSON Schemas
(Draft 2020-12) published from them.

The published schema files in ``curator_io/schemas/`` are generated from these
models (``python -m curator_io.reports``) and a test fails when the two drift
apart. The schemas describe the shape of a document; the rules no schema can
state (calendar dates, UTF-8 byte lengths, seals, the invariants of SPEC §7)
are checked by the loader and by :mod:`ranking.verification`.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from curator_io.published import SCHEMA_IDS, published_schema

__all__ = [
    "BundleModel",
    "ValidationReportModel",
    "RankingReportModel",
    "SCHEMA_MODELS",
    "published_schema",
    "generate_schema",
]

ID = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$")]
DIGEST = Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")]
TIMESTAMP = Annotated[str, Field(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?Z$")]
INT = Annotated[int, Field(ge=0, le=2**53 - 1)]
Number = int | float


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Open(BaseModel):
    """SPEC §1: members not listed are allowed (and count in digests)."""

    model_config = ConfigDict(frozen=True, extra="allow")


# -- curator-bundle-v1 (SPEC §1) ------------------------------------------------------


class GlobalScope(_Frozen):
    level: Literal["global"]


class RepositoryScope(_Frozen):
    level: Literal["repository"]
    repository: Annotated[str, Field(min_length=1, max_length=200)]


class PathScope(_Frozen):
    level: Literal["path"]
    repository: Annotated[str, Field(min_length=1, max_length=200)]
    path: Annotated[str, Field(min_length=1, max_length=400)]


Scope = Annotated[GlobalScope | RepositoryScope | PathScope, Field(discriminator="level")]


class InstructionModel(_Open):
    key: ID
    text: Annotated[str, Field(min_length=1, max_length=4000)]
    scope: Scope
    origin: Literal["user", "curated", "repository"]
    digest: str


class MaterializationModel(_Open):
    id: ID
    repository: Annotated[str, Field(min_length=1, max_length=200)]
    source_revision: Annotated[str, Field(min_length=1, max_length=100)]
    status: Literal["compatible", "incompatible", "invalid"]
    digest: str


class TraceModel(_Open):
    id: ID
    lineage: ID
    """The root task; two traces are independent iff their lineages differ."""
    materialization: ID
    steps: Annotated[int, Field(ge=1, le=2**53 - 1)]
    completeness: Literal["complete", "partial"]
    verified_prefix: INT
    digest: str


class EvidenceModel(_Open):
    id: ID
    trace: ID
    step: INT
    signal: Literal["user", "deterministic", "tool", "observable", "self_assessment"]
    observed_at: TIMESTAMP
    path: Annotated[str, Field(min_length=1, max_length=400)] | None
    summary: Annotated[str, Field(max_length=1000)]
    digest: str


class LessonModel(_Open):
    id: ID
    text: Annotated[str, Field(min_length=1, max_length=2000)]
    evidence: Annotated[list[ID], Field(min_length=1, json_schema_extra={"uniqueItems": True})]
    digest: str


class RunModel(_Open):
    id: ID
    curator: str
    frozen_at: TIMESTAMP


class MemoryModel(_Open):
    version: INT
    instructions: list[InstructionModel]


class FrozenModel(_Open):
    digest: DIGEST


class BundleModel(_Open):
    """``curator-bundle-v1``. Proposals are checked one by one (SPEC §3.1), so any value is allowed here."""

    schema_: Literal["curator-bundle-v1"] = Field(alias="schema")
    run: RunModel
    memory: MemoryModel
    instructions: list[InstructionModel]
    materializations: list[MaterializationModel]
    traces: list[TraceModel]
    evidence: list[EvidenceModel]
    lessons: list[LessonModel]
    proposals: list[Any]
    frozen: FrozenModel


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


ReportedId = Annotated[str, Field(pattern=r"^([A-Za-z0-9][A-Za-z0-9._:/-]{0,127}|@(0|[1-9][0-9]*))$")]
ValidationDisposition = Literal["accepted", "deferred", "quarantined", "rejected"]


class ValidationEntryModel(_Frozen):
    id: ReportedId
    lesson: ID | None
    fingerprint: DIGEST | None
    validation: ValidationDisposition
    reasons: list[ReasonModel]
    support: SupportModel | None


class ValidationReportModel(_Frozen):
    """``evidence-validation-v1``."""

    schema_: Literal["evidence-validation-v1"] = Field(alias="schema")
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
    recurrence: Annotated[Number, _upto(30)]
    provenance: Annotated[Number, _upto(20)]
    source_signal: Annotated[Number, _upto(15)]
    scope_coverage: Annotated[Number, _upto(15)]
    confidence: Annotated[Number, _upto(10)]
    completeness: Annotated[Number, _upto(10)]
    contradiction_penalty: Annotated[Number, _upto(40)]
    final: Annotated[Number, _upto(100)]


class RankingEntryModel(ValidationEntryModel):
    disposition: Literal["selected", "superseded", "unselected", "deferred", "quarantined", "rejected"]
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

    schema_: Literal["evidence-ranking-v1"] = Field(alias="schema")
    run: ID
    input_digest: DIGEST
    config: ConfigModel
    validation_digest: DIGEST
    proposals: list[RankingEntryModel]
    ranking: list[ID]
    selected: Annotated[list[ID], Field(max_length=5)]
    outcome: Literal["selected", "no_op"]
    counts: CountsModel
    digest: DIGEST


#: The name ``evidence-rank schema NAME`` takes, and the model its schema is generated from.
SCHEMA_MODELS: dict[str, tuple[str, type[BaseModel]]] = {
    "bundle": (SCHEMA_IDS["bundle"], BundleModel),
    "validation": (SCHEMA_IDS["validation"], ValidationReportModel),
    "report": (SCHEMA_IDS["report"], RankingReportModel),
}


def generate_schema(name: str) -> dict[str, Any]:
    """The Draft 2020-12 schema of ``name``, generated from its model."""
    schema_id, model = SCHEMA_MODELS[name]
    body = model.model_json_schema(by_alias=True, mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:evidence-rank:schema:{schema_id}",
        **body,
    }


if __name__ == "__main__":  # regenerate the published files: python -m curator_io.reports
    from pathlib import Path

    folder = Path(__file__).with_name("schemas")
    for schema_name, (schema_file, _) in SCHEMA_MODELS.items():
        text = json.dumps(generate_schema(schema_name), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        (folder / f"{schema_file}.json").write_text(text, "utf-8")
        print(f"wrote {folder / schema_file}.json")
