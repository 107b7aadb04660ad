"""The structure of one proposal (SPEC §3.1) and its fingerprint (§3.6).

A proposal is a raw JSON value checked on its own: a malformed one becomes a
``proposal.incomplete`` reason, never an error that refuses the bundle.
"""

from __future__ import annotations

from operator import attrgetter, itemgetter
from typing import Any, NamedTuple

from curator_io import grammar as g
from curator_io.canonical import digest
from curator_io.catalogue import DIGEST_PREFIX
from curator_io.kinds import OPERATIONS, PROPOSAL, parse_scope
from curator_io.models import Bundle, Scope

__all__ = [
    "Operation",
    "Proposal",
    "Incomplete",
    "check_structure",
    "proposals_of",
    "fingerprint",
    "edit_of",
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


# The members SPEC §1 gives a proposal and each operation, as the published schema states them.
_OPERATION_MEMBERS = {action: kind.names for action, kind in OPERATIONS.items()}
_KNOWN = PROPOSAL.names
#: SPEC §1's rules for a proposal's members, as the loader and the published schema state them.
_RULES = dict(PROPOSAL.members)
_CONFIDENCE, _RATIONALE = _RULES["confidence"], _RULES["rationale"]
_BY_KEY = attrgetter("key")
_RAW_BY_KEY = itemgetter("key")


def _operation(raw: Any) -> Operation | None:
    if type(raw) is not dict:
        return None
    action = raw.get("action")
    members = _OPERATION_MEMBERS.get(action) if type(action) is str else None
    if members is None or raw.keys() != members or not g.is_id(raw["key"]):
        return None
    text = raw.get("text")
    if "text" in members and (type(text) is not str or text == ""):
        return None
    expected = raw.get("expected_digest")
    if "expected_digest" in members and not g.is_digest(expected):
        return None
    return Operation(raw["action"], raw["key"], text, expected)


def _operations(raw: Any) -> tuple[Operation, ...] | None:
    if type(raw) is not list or not raw:
        return None
    ops = []
    for item in raw:
        op = _operation(item)
        if op is None:
            return None
        ops.append(op)
    if len({op.key for op in ops}) != len(ops):
        return None
    ops.sort(key=_BY_KEY)
    return tuple(ops)


def _ids(raw: Any, *, non_empty: bool) -> tuple[str, ...] | None:
    if type(raw) is not list or (non_empty and not raw) or not all(map(g.is_id, raw)):
        return None
    return tuple(raw) if len(set(raw)) == len(raw) else None


def _incomplete(raw: dict[str, Any], index: int, subject: str) -> Incomplete:
    return Incomplete(index, reported_id(raw, index), subject)


def check_structure(raw: Any, index: int) -> Proposal | Incomplete:
    """SPEC §3.1: a complete Proposal, or the first offending member.

    The members are checked in the spec's order, so the first that fails is the
    subject; a missing member reads as ``None``, which fails every check.
    """
    if type(raw) is not dict:
        return Incomplete(index, reported_id(raw, index), None)
    get = raw.get
    pid = get("id")
    if not g.is_id(pid):
        return _incomplete(raw, index, "id")
    lesson = get("lesson")
    if not g.is_id(lesson):
        return _incomplete(raw, index, "lesson")
    scope = parse_scope(get("scope"))
    if scope is None:
        return _incomplete(raw, index, "scope")
    confidence: Any = get("confidence")
    if not _CONFIDENCE.holds(confidence):
        return _incomplete(raw, index, "confidence")
    rationale = get("rationale", "")  # §1: optional, "" when absent; null is not absent
    if not _RATIONALE.holds(rationale):
        return _incomplete(raw, index, "rationale")
    base_memory_version = get("base_memory_version")
    if not g.is_int(base_memory_version):
        return _incomplete(raw, index, "base_memory_version")
    operations = _operations(get("operations"))
    if operations is None:
        return _incomplete(raw, index, "operations")
    support = _ids(get("support"), non_empty=True)
    if support is None:
        return _incomplete(raw, index, "support")
    contradict = _ids(get("contradict"), non_empty=False)
    if contradict is None:
        return _incomplete(raw, index, "contradict")
    if not _KNOWN.issuperset(raw):
        return _incomplete(raw, index, min(name for name in raw if name not in _KNOWN))
    # §3.6 from the checked JSON itself: the scope and each operation have exactly
    # their members, so this is fingerprint(scope, operations) without rebuilding them.
    fp = digest({"scope": raw["scope"], "operations": sorted(raw["operations"], key=_RAW_BY_KEY)})
    return Proposal(
        index=index,
        id=pid,
        lesson=lesson,
        scope=scope,
        confidence=float(confidence),
        rationale=rationale,
        base_memory_version=int(base_memory_version),
        operations=operations,
        support=support,
        contradict=contradict,
        fingerprint=fp,
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
