"""The structure of one proposal (SPEC §3.1) and its fingerprint (§3.6).

A proposal is a raw JSON value checked on its own: a malformed one becomes a
``proposal.incomplete`` reason, never an error that refuses the bundle.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, NamedTuple

from curator_io import grammar as g
from curator_io.canonical import digest
from curator_io.catalogue import DIGEST_PREFIX
from curator_io.kinds import PROPOSAL, is_scope
from curator_io.models import Bundle, Scope

__all__ = [
    "Operation",
    "Proposal",
    "Incomplete",
    "check_structure",
    "proposals_of",
    "fingerprint",
    "edit_of",
    "edit_fault",
    "short_fingerprint",
    "reported_id",
]


class Operation(NamedTuple):
    action: str
    key: str
    text: str | None
    expected_digest: str | None

    def to_json(self) -> dict[str, str]:
        """Exactly the members of its action (SPEC §3.6)."""
        out = {"action": self.action, "key": self.key}
        if self.text is not None:
            out["text"] = self.text
        if self.expected_digest is not None:
            out["expected_digest"] = self.expected_digest
        return out


class Proposal(NamedTuple):
    """A structurally complete proposal."""

    index: int  # type: ignore[assignment]  # shadows tuple.index on purpose: the bundle position
    id: str
    lesson: str
    scope: Scope
    confidence: float
    rationale: str
    base_memory_version: int
    operations: tuple[Operation, ...]
    """Sorted by key (ordinal): the order of the fingerprint and of apply (§8)."""
    support: tuple[str, ...]
    contradict: tuple[str, ...]
    fingerprint: str


class Incomplete(NamedTuple):
    """A proposal rejected by §3.1, reported under ``reported_id``."""

    index: int  # type: ignore[assignment]  # shadows tuple.index on purpose: the bundle position
    id: str
    subject: str | None


def reported_id(raw: Any, index: int) -> str:
    """Its ``id`` when that is a valid ID, else ``@<index>`` (SPEC §3.1)."""
    pid = raw.get("id") if type(raw) is dict else None
    return pid if g.is_id(pid) else f"@{index}"


_RAW_BY_KEY = itemgetter("key")


def check_structure(raw: Any, index: int) -> Proposal | Incomplete:
    """SPEC §3.1: a complete Proposal, or the first offending member.

    The rules are SPEC §1's, as :data:`curator_io.kinds.PROPOSAL` states them for the
    published schema too; it names the first member, in the spec's order, that is
    missing or breaks its rule, then the first unknown member.
    """
    if type(raw) is not dict:
        return Incomplete(index, reported_id(raw, index), None)
    offending = PROPOSAL.first_offending(raw)
    if offending is not None:
        return Incomplete(index, reported_id(raw, index), offending)
    # Cannot fail from here: every member holds. The operations sorted by key are the order
    # of the fingerprint and of apply (§8); the scope and each operation have exactly their
    # members, so §3.6 is the digest of the checked JSON itself, without rebuilding it.
    operations = sorted(raw["operations"], key=_RAW_BY_KEY)
    return Proposal(  # by position, in the order SPEC §1 lists the members (cheaper than by keyword)
        index,
        raw["id"],
        raw["lesson"],
        Scope(**raw["scope"]),  # it has exactly the members of its level: Scope's fields
        float(raw["confidence"]),
        raw.get("rationale", ""),  # §1: optional, "" when absent
        int(raw["base_memory_version"]),
        tuple([Operation(o["action"], o["key"], o.get("text"), o.get("expected_digest")) for o in operations]),
        tuple(raw["support"]),
        tuple(raw["contradict"]),
        digest({"scope": raw["scope"], "operations": operations}),
    )


def proposals_of(bundle: Bundle) -> dict[str, Proposal]:
    """The structurally complete proposals of a bundle, by id: what a report does not
    carry of them (their operations) for those that check it against the bundle."""
    out = {}
    for index, raw in enumerate(bundle.proposals):
        checked = check_structure(raw, index)
        if isinstance(checked, Proposal):
            out[checked.id] = checked
    return out


def fingerprint(scope: Scope, operations: tuple[Operation, ...]) -> str:
    """SPEC §3.6: the digest of the scope and the key-sorted operations, nothing else."""
    return digest(edit_of(scope, operations))


def short_fingerprint(fingerprint: str | None) -> str:
    """A fingerprint as tables show it: its first 12 hex digits (``-`` for none). ``ledger history
    --fingerprint`` takes them back; 48 bits tell apart every edit a ledger will hold."""
    return "-" if fingerprint is None else fingerprint.removeprefix(DIGEST_PREFIX)[:12]


def edit_of(scope: Scope, operations: tuple[Operation, ...]) -> dict[str, Any]:
    """The edit itself, without its argument: what the fingerprint (SPEC §3.6) is the digest of.
    The ledger keeps it, so that a note can say which edit was refused."""
    return {"scope": scope.to_json(), "operations": [op.to_json() for op in operations]}


def edit_fault(value: Any) -> str | None:
    """Why ``value`` is not an edit as :func:`edit_of` writes one, or None: an object of exactly
    ``scope`` (SPEC §1) and ``operations`` (a proposal's, §3.1), the operations in key order."""
    if type(value) is not dict or value.keys() != {"scope", "operations"}:
        return "it is not an object of exactly scope and operations"
    if not is_scope(value["scope"]):
        return "its scope is not a SPEC §1 scope"
    operations = value["operations"]
    if not PROPOSAL.rule("operations").holds(operations):
        return "its operations are not a proposal's (SPEC §3.1)"
    keys = [op["key"] for op in operations]
    if keys != sorted(keys):
        return "its operations are not in key order (SPEC §3.6)"
    return None
