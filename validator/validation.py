"""The validation stage (SPEC §3): a frozen bundle and a config in, an
``evidence-validation-v1`` report out. Pure: no files, no clock."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from curator_io.canonical import seal_canonical
from curator_io.catalogue import REJECTED, VALIDATION_ENTRY_MEMBERS, VALIDATION_REPORT_MEMBERS, VALIDATION_SCHEMA
from curator_io.config import Config
from curator_io.models import Bundle
from validator.closure import check_closure
from validator.context import make_context
from validator.delta import check_delta
from validator.members import json_object
from validator.proposal import Incomplete, Proposal, check_structure
from validator.reasons import Reason, reasons_json, sort_reasons, strongest
from validator.support import SupportFacts, check_support

__all__ = ["ValidationEntry", "Validation", "validate", "VALIDATION_SCHEMA"]


class ValidationEntry(NamedTuple):
    id: str
    """The reported id: the proposal's ``id``, or ``@<index>`` (§3.1)."""
    validation: str
    reasons: tuple[Reason, ...]
    proposal: Proposal | None
    """None when the proposal is structurally incomplete."""
    support: SupportFacts | None
    """None when §3.5 did not run."""

    @property
    def lesson(self) -> str | None:
        return self.proposal.lesson if self.proposal else None

    @property
    def fingerprint(self) -> str | None:
        return self.proposal.fingerprint if self.proposal else None

    @property
    def rationale(self) -> str:
        return self.proposal.rationale if self.proposal else ""

    def to_json(self) -> dict[str, Any]:
        support = None if self.support is None else self.support.to_json()
        return _ENTRY(self.id, self.lesson, self.fingerprint, self.validation, reasons_json(self.reasons), support)


_ENTRY = json_object(VALIDATION_ENTRY_MEMBERS)
_REPORT = json_object(VALIDATION_REPORT_MEMBERS[:-1])  # the seal adds the last, digest


@dataclass(frozen=True, slots=True)
class Validation:
    """What only :func:`validate` produces; ranking accepts nothing else."""

    run: str
    input_digest: str
    config: Config
    entries: tuple[ValidationEntry, ...]
    """Sorted by reported id (ordinal)."""
    report: dict[str, Any]
    """The sealed ``evidence-validation-v1`` report."""
    canonical: bytes = field(compare=False, repr=False)
    """``canon(report)``: the bytes written, made with the seal."""


def validate_proposal(raw: Any, index: int, ctx: Any) -> ValidationEntry:
    checked = check_structure(raw, index)
    if isinstance(checked, Incomplete):
        return ValidationEntry(checked.id, REJECTED, (("proposal.incomplete", checked.subject),), None, None)
    reasons, cited = check_closure(checked, ctx)
    reasons += check_delta(checked, ctx)
    facts = None
    if cited is not None:  # every reference resolved (§3.5)
        support_reasons, facts = check_support(checked, cited, ctx)
        reasons += support_reasons
    return ValidationEntry(checked.id, strongest(reasons), sort_reasons(reasons), checked, facts)


def validate(bundle: Bundle, *, config: Config) -> Validation:
    """SPEC §3 for every proposal of ``bundle``."""
    ctx = make_context(bundle, config)
    entries = sorted(
        (validate_proposal(raw, i, ctx) for i, raw in enumerate(bundle.proposals)),
        key=lambda e: e.id,
    )
    body = _REPORT(
        VALIDATION_SCHEMA, bundle.run_id, bundle.input_digest, config.to_json(), [e.to_json() for e in entries]
    )
    report, written = seal_canonical(body)
    return Validation(bundle.run_id, bundle.input_digest, config, tuple(entries), report, written)
