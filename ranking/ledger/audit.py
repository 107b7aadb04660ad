"""``ledger verify``'s comparisons, pure: a stored report against its seal and
invariants, stored rows against the rows derived from that report.

A finding names the report (its digest) and a JSON Pointer into it, so
``evidence-rank explain`` and ``jq`` can show what the row should say.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import groupby
from typing import TYPE_CHECKING, NamedTuple

from curator_io.canonical import canon, sha256_digest
from curator_io.catalogue import SELECTED
from curator_io.errors import EvidenceRankError, InputError, TamperError, pointer_of
from curator_io.jsonio import parse_json
from ranking.ledger.fate import COMMITTED
from ranking.ledger.records import DecisionRow, Outcome, decisions_of, outcome_key
from ranking.signing.signers import Signer

if TYPE_CHECKING:
    from ranking.checking.acceptance import Accepted

__all__ = [
    "AuditFinding",
    "audit_ledger",
    "audit_report",
    "audit_outcome",
    "stored_report",
    "unbacked_outcome",
    "edit_fault",
]

# Where each column of a decision comes from in its report (SPEC §6).
_SOURCE = {
    "report": ("digest",),
    "run": ("run",),
    "proposal": ("id",),
    "score": ("score", "final"),
}
_REPORT_MEMBERS = frozenset({"report", "run"})  # members of the report, not of its entry


class AuditFinding(NamedTuple):
    """One thing in the ledger that its reports do not vouch for."""

    where: str
    """The report's digest (or ``outcome <key>``)."""
    pointer: str | None
    """JSON Pointer into the report, when the finding is about one member."""
    detail: str

    def __str__(self) -> str:
        at = f" at {self.pointer!r}" if self.pointer is not None else ""
        return f"{self.where}{at}: {self.detail}"


def audit_ledger(
    reports: Iterable[tuple[int, str, bytes]],
    decisions: Iterable[tuple[int, DecisionRow]],
    outcomes: Iterable[tuple[str, Outcome]],
    signers: Iterable[tuple[int, str, Signer]] = (),
    edits: Iterable[tuple[str, bytes]] = (),
) -> tuple[tuple[int, int, int], list[AuditFinding]]:
    """``ledger verify`` over a ledger's rows, each table in one pass: reports (seq, digest, body)
    by seq, decisions (report_seq, decision) by report_seq and position, outcomes (key, outcome),
    signers (rowid, report, signer), edits (fingerprint, edit); ((reports, decisions, outcomes)
    checked, findings).

    A signer is an attestation: its form was checked when its row was read, and here only
    that it is about a stored report; whether that key signed that bundle cannot be derived.
    An edit is checked against its fingerprint (:func:`edit_fault`)."""
    findings: list[AuditFinding] = []
    counted = [0, 0, 0]
    decided: dict[tuple[str, str], str] = {}
    stored_digests: set[str] = set()
    grouped = groupby(decisions, key=lambda row: row[0])
    group = next(grouped, None)
    for seq, digest, body in reports:
        while group is not None and group[0] < seq:
            findings.append(AuditFinding("decisions", None, f"rows of report_seq {group[0]} belong to no report"))
            group = next(grouped, None)
        stored = [d for _, d in group[1]] if group is not None and group[0] == seq else []
        if stored:
            group = next(grouped, None)
        findings += audit_report(digest, body, stored)
        decided.update(((d.report, d.proposal), d.disposition) for d in stored)
        stored_digests.add(digest)
        counted[0] += 1
        counted[1] += len(stored)
    while group is not None:
        findings.append(AuditFinding("decisions", None, f"rows of report_seq {group[0]} belong to no report"))
        group = next(grouped, None)
    for key, outcome in outcomes:
        findings += audit_outcome(key, outcome)
        problem = unbacked_outcome(outcome, decided.get((outcome.report, outcome.proposal)))
        if problem is not None:
            findings.append(AuditFinding(f"outcome {key}", None, problem))
        counted[2] += 1
    for fingerprint, edit in edits:
        fault = edit_fault(fingerprint, edit)
        if fault is not None:
            findings.append(AuditFinding(f"edits row {fingerprint}", None, fault))
    for rowid, report, _ in signers:
        if report not in stored_digests:
            findings.append(
                AuditFinding(f"signers row {rowid}", None, f"it names report {report}, which the ledger does not hold")
            )
    return (counted[0], counted[1], counted[2]), findings


def audit_report(digest: str, body: bytes, stored: Sequence[DecisionRow]) -> list[AuditFinding]:
    """Findings for one stored report: its bytes, its seal and invariants (SPEC §7), its rows."""
    # Imported here: score --ledger and batch --ledger record only reports this process produced
    # (no accepting), and would pay for acceptance's imports (the verifier, its schema).
    from ranking.checking.acceptance import accept

    try:
        accepted = accept(body)
    except EvidenceRankError as e:
        return [AuditFinding(digest, e.pointer, f"the stored report is not sealed and valid: {e.message}")]
    if accepted.canonical != body:
        return [AuditFinding(digest, None, "the stored bytes are not the report's canonical bytes")]
    if accepted.report.digest != digest:
        return [AuditFinding(digest, "/digest", f"the report stored under this key is {accepted.report.digest}")]
    return _compare(digest, decisions_of(accepted.document), stored)


def audit_outcome(key: str, outcome: Outcome) -> list[AuditFinding]:
    if outcome_key(outcome) == key:
        return []
    return [AuditFinding(f"outcome {key}", None, "the outcome's content does not match its key")]


def _compare(digest: str, derived: Sequence[DecisionRow], stored: Sequence[DecisionRow]) -> list[AuditFinding]:
    findings = []
    by_position = {d.position: d for d in stored}
    if len(by_position) != len(stored):
        findings.append(AuditFinding(digest, None, "two rows claim the same entry of the report"))
    for want in derived:
        got = by_position.pop(want.position, None)
        if got is None:
            findings.append(AuditFinding(digest, pointer_of("proposals", want.position), "its decision row is missing"))
            continue
        for name, value in want._asdict().items():
            if getattr(got, name) == value:
                continue
            member = _SOURCE.get(name, (name,))
            path: tuple[str | int, ...] = member if name in _REPORT_MEMBERS else ("proposals", want.position, *member)
            said = f"row {want.position} ({want.proposal}) says {name} = {_show(getattr(got, name))}"
            findings.append(AuditFinding(digest, pointer_of(*path), f"{said}, the report says {_show(value)}"))
    for position in sorted(by_position):
        findings.append(AuditFinding(digest, None, f"row {position} has no entry in the report"))
    return findings


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def unbacked_outcome(outcome: Outcome, disposition: str | None) -> str | None:
    """Why an outcome is not one the acceptance test can have recorded, or None: it must be about
    a decision of the ledger (``disposition``, None without one), and a ``committed`` one about a
    selected edit (agentdescent records outcomes of diffs a selected proposal backed)."""
    if disposition is None:
        where = f"{outcome.proposal} in report {outcome.report}"
        return f"it is about {where}, a decision the ledger does not hold"
    if outcome.category == COMMITTED and disposition != SELECTED:
        return f"a committed outcome of {outcome.proposal}, which its report {disposition}"
    return None


def stored_report(path: str, digest: str, body: bytes) -> Accepted:
    """A report stored in another ledger, accepted as ``ledger add`` accepts a file; errors name it."""
    from ranking.checking.acceptance import accept

    try:
        accepted = accept(body)
    except InputError as e:
        # A ledger holds canonical bytes only: anything else was put there by hand.
        raise TamperError("report.tampered", f"{path}: report {digest}: {e.detail}", pointer=e.pointer) from e
    except EvidenceRankError as e:
        raise type(e)(e.code, f"{path}: report {digest}: {e.detail}", pointer=e.pointer) from e
    if accepted.report.digest != digest:
        raise TamperError("report.tampered", f"{path}: the report stored as {digest} is {accepted.report.digest}")
    return accepted


def edit_fault(fingerprint: str, edit: bytes) -> str | None:
    """Why an ``edits`` row is not the edit its fingerprint stands for, or None: the edit must be
    canonical JSON (RFC 8785) whose digest is the fingerprint (SPEC §3.6)."""
    try:
        value = parse_json(edit)
    except InputError as e:
        return f"the edit is not JSON: {e.detail}"
    if canon(value) != edit:
        return "the edit is not canonical JSON"
    if sha256_digest(edit) != fingerprint:
        return "the edit's digest is not its fingerprint"
    return None
