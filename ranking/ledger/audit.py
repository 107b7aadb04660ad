"""``ledger verify``'s comparisons, pure: a stored report against its seal and
invariants, stored rows against the rows derived from that report.

A finding names the report (its digest) and a JSON Pointer into it, so
``evidence-rank explain`` and ``jq`` can show what the row should say.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from curator_io.errors import EvidenceRankError, InputError, pointer_of
from curator_io.jsonio import parse_json
from ranking.ledger.records import Decision, Outcome, checked_report, decisions_of, outcome_key

__all__ = ["Finding", "audit_report", "audit_outcome"]

# Where each column of a decision comes from in its report (SPEC §6).
_SOURCE = {
    "report": ("digest",),
    "run": ("run",),
    "proposal": ("id",),
    "score": ("score", "final"),
}
_REPORT_MEMBERS = frozenset({"report", "run"})  # members of the report, not of its entry


class Finding(NamedTuple):
    """One thing in the ledger that its reports do not vouch for."""

    where: str
    """The report's digest (or ``outcome <key>``)."""
    pointer: str | None
    """JSON Pointer into the report, when the finding is about one member."""
    detail: str

    def __str__(self) -> str:
        at = f" at {self.pointer!r}" if self.pointer is not None else ""
        return f"{self.where}{at}: {self.detail}"


def audit_report(digest: str, body: bytes, stored: Sequence[Decision]) -> list[Finding]:
    """Findings for one stored report: its bytes, its seal and invariants (SPEC §7), its rows."""
    try:
        document = parse_json(body)
        canonical = checked_report(document)
    except (InputError, EvidenceRankError) as e:
        return [Finding(digest, e.pointer, f"the stored report is not sealed and valid: {e.message}")]
    if canonical != body:
        return [Finding(digest, None, "the stored bytes are not the report's canonical bytes")]
    if document["digest"] != digest:
        return [Finding(digest, "/digest", f"the report stored under this key is {document['digest']}")]
    return _compare(digest, decisions_of(document), stored)


def audit_outcome(key: str, outcome: Outcome) -> list[Finding]:
    if outcome_key(outcome) == key:
        return []
    return [Finding(f"outcome {key}", None, "the outcome's content does not match its key")]


def _compare(digest: str, derived: Sequence[Decision], stored: Sequence[Decision]) -> list[Finding]:
    findings = []
    by_position = {d.position: d for d in stored}
    if len(by_position) != len(stored):
        findings.append(Finding(digest, None, "two rows claim the same entry of the report"))
    for want in derived:
        got = by_position.pop(want.position, None)
        if got is None:
            findings.append(Finding(digest, pointer_of("proposals", want.position), "its decision row is missing"))
            continue
        for name, value in want._asdict().items():
            if getattr(got, name) == value:
                continue
            member = _SOURCE.get(name, (name,))
            path = member if name in _REPORT_MEMBERS else ("proposals", want.position, *member)
            said = f"row {want.position} ({want.proposal}) says {name} = {_show(getattr(got, name))}"
            findings.append(Finding(digest, pointer_of(*path), f"{said}, the report says {_show(value)}"))
    for position in sorted(by_position):
        findings.append(Finding(digest, None, f"row {position} has no entry in the report"))
    return findings


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"
