"""The structure of one proposal (SPEC §3.1) and its fingerprint (§3.6).

A proposal is a raw JSON value checked on its own: a malformed one becomes a
``proposal.incomplete`` reason, never an error that refuses the bundle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from curator_io import grammar as g
from curator_io.bundle import parse_scope
from curator_io.canonical import digest
from curator_io.models import Scope

__all__ = ["Operation", "Proposal", "Incomplete", "check_structure", "reported_id"]


@dataclass(frozen=True, slots=True)
class Operation:
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


@dataclass(frozen=True, slots=True)
class Proposal:
    """A structurally complete proposal."""

    index: int
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


@dataclass(frozen=True, slots=True)
class Incomplete:
    """A proposal rejected by §3.1, reported under ``reported_id``."""

    index: int
    id: str
    subject: str | None


def reported_id(raw: Any, index: int) -> str:
    """Its ``id`` when that is a valid ID, else ``@<index>`` (SPEC §3.1)."""
    pid = raw.get("id") if type(raw) is dict else None
    return pid if g.is_id(pid) else f"@{index}"


_OPERATION_MEMBERS = {
    "add": frozenset({"action", "key", "text"}),
    "replace": frozenset({"action", "key", "text", "expected_digest"}),
    "remove": frozenset({"action", "key", "expected_digest"}),
}


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
    return Operation(action, raw["key"], text, expected)


def _operations(raw: Any) -> tuple[Operation, ...] | None:
    if type(raw) is not list or not raw:
        return None
    ops = [_operation(item) for item in raw]
    if any(op is None for op in ops):
        return None
    keys = {op.key for op in ops}  # type: ignore[union-attr]
    if len(keys) != len(ops):
        return None
    return tuple(sorted(ops, key=lambda op: op.key))  # type: ignore[union-attr,arg-type]


def _ids(raw: Any, *, non_empty: bool) -> tuple[str, ...] | None:
    if type(raw) is not list or (non_empty and not raw) or not all(g.is_id(x) for x in raw):
        return None
    return tuple(raw) if len(set(raw)) == len(raw) else None


def _confidence(raw: Any) -> float | None:
    return float(raw) if g.is_number(raw) and 0 <= raw <= 1 else None


def _rationale(raw: Any) -> str | None:
    return raw if type(raw) is str and g.utf8_len(raw) <= 2000 else None


# SPEC §3.1: the order in which the first offending member is named.
_CHECKS: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("id", lambda v: v if g.is_id(v) else None),
    ("lesson", lambda v: v if g.is_id(v) else None),
    ("scope", parse_scope),
    ("confidence", _confidence),
    ("rationale", _rationale),
    ("base_memory_version", lambda v: int(v) if g.is_int(v) else None),
    ("operations", _operations),
    ("support", lambda v: _ids(v, non_empty=True)),
    ("contradict", lambda v: _ids(v, non_empty=False)),
)
_KNOWN = frozenset(name for name, _ in _CHECKS)


def check_structure(raw: Any, index: int) -> Proposal | Incomplete:
    """SPEC §3.1: a complete Proposal, or the first offending member."""
    pid = reported_id(raw, index)
    if type(raw) is not dict:
        return Incomplete(index, pid, None)
    values: dict[str, Any] = {}
    for name, check in _CHECKS:
        if name not in raw:
            if name == "rationale":
                values[name] = ""
                continue
            return Incomplete(index, pid, name)
        value = check(raw[name])
        if value is None:
            return Incomplete(index, pid, name)
        values[name] = value
    unknown = sorted(name for name in raw if name not in _KNOWN)
    if unknown:
        return Incomplete(index, pid, unknown[0])
    return Proposal(index=index, fingerprint=fingerprint(values["scope"], values["operations"]), **values)


def fingerprint(scope: Scope, operations: tuple[Operation, ...]) -> str:
    """SPEC §3.6: the digest of the scope and the key-sorted operations, nothing else."""
    return digest({"scope": scope.to_json(), "operations": [op.to_json() for op in operations]})
