"""Frozen models of a curator bundle (SPEC §1).

An artifact keeps what validation reads of it, and its seal's verdict
(``seal``, SPEC §3.3; "integrity" here means only §3.5.2's points), settled when it was loaded: the seal covers every
member, the unknown ones included, so the verdict is the one place those
members still count. Only instructions keep their JSON object (``raw``):
applying a selection (SPEC §8) writes memory instructions back as they were.

The artifacts a bundle holds by the ten thousand (materializations, traces,
evidence, lessons) and scopes are named tuples, immutable as frozen dataclasses
are but built without a ``__setattr__`` per field (``tuple.__new__`` over a
chunk's columns; bench/RESULTS.md, "Third round", 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

#: SPEC §3.3, the verdict on one artifact's seal: a reason code, or None when it is sealed.
SealVerdict = Literal["artifact.invalid_digest", "artifact.digest_mismatch"] | None

__all__ = [
    "Scope",
    "Instruction",
    "Materialization",
    "Trace",
    "Evidence",
    "Lesson",
    "Bundle",
    "SIGNAL_WEIGHTS",
    "SealVerdict",
]

Level = Literal["global", "repository", "path"]

#: SPEC §1, the Signal table.
SIGNAL_WEIGHTS: Mapping[str, int] = {
    "user": 15,
    "deterministic": 12,
    "tool": 9,
    "observable": 6,
    "self_assessment": 3,
}


class Scope(NamedTuple):
    """Where an instruction applies."""

    level: Level
    repository: str | None = None
    path: str | None = None

    @property
    def is_broad(self) -> bool:
        return self.level == "global"

    def contains(self, other: Scope) -> bool:
        """SPEC §1: scope containment."""
        if self.level == "global":
            return True
        if self.level == "repository":
            return other.level != "global" and other.repository == self.repository
        return (
            other.level == "path"
            and other.repository == self.repository
            and other.path is not None
            and self.path is not None
            and (other.path == self.path or other.path.startswith(self.path + "/"))
        )

    def to_json(self) -> dict[str, str]:
        out: dict[str, str] = {"level": self.level}
        if self.repository is not None:
            out["repository"] = self.repository
        if self.path is not None:
            out["path"] = self.path
        return out


@dataclass(frozen=True, slots=True)
class Instruction:
    key: str
    text: str
    scope: Scope
    origin: str
    digest: str
    """The member as written; whether it is a DIGEST is a validation question (§3.3)."""
    seal: SealVerdict
    raw: Mapping[str, Any]


class Materialization(NamedTuple):
    id: str
    repository: str
    source_revision: str
    status: str
    seal: SealVerdict


class Trace(NamedTuple):
    id: str
    lineage: str
    """The root task; two traces are independent iff their lineages differ."""
    materialization: str
    steps: int
    completeness: str
    verified_prefix: int
    seal: SealVerdict


class Evidence(NamedTuple):
    id: str
    trace: str
    step: int
    signal: str
    observed_at: str
    path: str | None
    seal: SealVerdict


class Lesson(NamedTuple):
    id: str
    text: str
    evidence: tuple[str, ...]
    seal: SealVerdict


@dataclass(frozen=True, slots=True)
class Bundle:
    """A loaded ``curator-bundle-v1``: every artifact checked, the seal verified."""

    run_id: str
    input_digest: str
    """The bundle's ``frozen.digest``, checked against its content."""
    memory_version: int
    memory: Mapping[str, Any]
    """The ``memory`` member as written (SPEC §8 keeps its other members)."""
    memory_instructions: Mapping[str, Instruction]
    applicable: tuple[Instruction, ...]
    """The read-only ``instructions`` in force."""
    materializations: Mapping[str, Materialization]
    traces: Mapping[str, Trace]
    evidence: Mapping[str, Evidence]
    lessons: Mapping[str, Lesson]
    proposals: tuple[Any, ...]
    """Raw JSON values: each one is checked on its own by validation (§3.1)."""
