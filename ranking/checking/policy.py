"""The reader's pins: a report counts only when it was ranked with the config its reader chose,
from a bundle curated against the memory its reader holds.

A ranking report carries the config it was ranked with (SPEC §6), and replay
(SPEC §7, §8) recomputes the report with that same config. Replay therefore
proves that a report is the bundle's under *some* policy, and whoever makes
the report chooses which: a report ranked with ``{"threshold": 0,
"min_lineages": 1}`` replays as faithfully as one ranked with the defaults.
Pinning closes that gap: the reader names the config (the *pinned policy*) and
every report member of ``config`` must equal it.

Members are compared as canonical JSON (RFC 8785), so ``40`` and ``40.0`` are
the same threshold, and listed in the order the report holds them (canonical
JSON sorts members by name).

The base (SPEC §8 starts from the bundle's ``memory``): the bundle must have been
curated against the memory the change is applied to, the base branch's. An old
signed bundle replayed against a newer base would otherwise roll memory back; a
bundle whose ``memory`` is not exactly the base, as canonical JSON, is a
:class:`BaseMismatch` naming both versions and digests.

:mod:`ranking.checking.acceptance` applies both pins, after the report is known genuine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from curator_io.canonical import canon, sha256_digest
from curator_io.config import Config
from curator_io.errors import TamperError, pointer_of
from curator_io.memory_object import check_not_document

__all__ = [
    "ConfigMismatch",
    "config_mismatches",
    "describe_mismatches",
    "BaseMismatch",
    "base_mismatch",
]

_ABSENT: Any = object()


@dataclass(frozen=True, slots=True)
class ConfigMismatch:
    """One member of the report's ``config`` that is not the pinned policy's."""

    member: str
    pinned: Any
    """The pinned value; absent (:attr:`pinned_text` says so) for a member the policy does not have."""
    found: Any
    """The report's value; absent for a member the report lacks."""

    @property
    def pointer(self) -> str:
        """Where the member is in the report."""
        return pointer_of("config", self.member)

    @property
    def pinned_text(self) -> str:
        return _show(self.pinned)

    @property
    def found_text(self) -> str:
        return _show(self.found)

    def to_json(self) -> dict[str, Any]:
        """The values as JSON; null for an absent one."""
        pinned, found = (None if v is _ABSENT else v for v in (self.pinned, self.found))
        return {"member": self.member, "pointer": self.pointer, "pinned": pinned, "report": found}

    def describe(self) -> str:
        return f"{self.member} is {self.found_text} in the report, {self.pinned_text} in the pinned policy"


def config_mismatches(report: Mapping[str, Any], pinned: Config) -> tuple[ConfigMismatch, ...]:
    """Every member of ``report["config"]`` that differs from ``pinned``; empty when the report is pinned.

    Raises ``report.tampered`` at ``/config`` when the report has no config object
    (SPEC §6: every report carries all eight members).
    """
    given = report.get("config")
    if type(given) is not dict:
        raise TamperError("report.tampered", "the report has no config object", pointer="/config")
    expected = pinned.to_json()
    out = []
    for name in sorted(expected.keys() | given.keys()):
        want, got = expected.get(name, _ABSENT), given.get(name, _ABSENT)
        if want is _ABSENT or got is _ABSENT or canon(want) != canon(got):
            out.append(ConfigMismatch(name, want, got))
    return tuple(out)


def describe_mismatches(mismatches: tuple[ConfigMismatch, ...]) -> str:
    """Every differing member, as one line."""
    return "; ".join(m.describe() for m in mismatches)


@dataclass(frozen=True, slots=True)
class BaseMismatch:
    """The bundle's ``memory`` and the base branch's memory, when they differ."""

    bundle_version: Any
    bundle_digest: str
    base_version: Any
    base_digest: str
    difference: str = ""
    """The first place the two differ, in words (``instruction 'ci.timeout' differs in text``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "bundle": {"version": self.bundle_version, "digest": self.bundle_digest},
            "base": {"version": self.base_version, "digest": self.base_digest},
        }

    def describe(self) -> str:
        curated = f"the bundle was curated against memory version {_show(self.bundle_version)} ({self.bundle_digest})"
        if canon(self.bundle_version) == canon(self.base_version):
            # The same version, other content: memory edited by hand (or a rewritten bundle), not a rollback.
            return (
                f"{curated}, and the base is version {_show(self.base_version)} too, but not the same memory "
                f"({self.base_digest}): {self.difference}; curate a new bundle against the base"
            )
        return (
            f"{curated}, but the base is version {_show(self.base_version)} ({self.base_digest}): applying an old "
            "or replayed bundle would roll memory back; curate a new bundle against the base"
        )


def base_mismatch(bundle_memory: Mapping[str, Any], base: Any) -> BaseMismatch | None:
    """A :class:`BaseMismatch` unless the bundle's ``memory`` is exactly ``base``, the memory on the
    base branch, as canonical JSON (RFC 8785): member order and ``8`` vs ``8.0`` do not count.

    Raises ``input.schema`` when ``base`` is not a memory object
    (:func:`~curator_io.memory_object.check_not_document`).
    """
    check_not_document(base, "memory-before")
    ours, theirs = canon(bundle_memory), canon(base)
    if ours == theirs:
        return None
    return BaseMismatch(
        bundle_memory.get("version"),
        sha256_digest(ours),
        base.get("version"),
        sha256_digest(theirs),
        _first_difference(bundle_memory, base),
    )


def _first_difference(ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> str:
    """The first instruction (in key order), else the first member, on which two memories differ."""
    mine, other = _by_key(ours.get("instructions")), _by_key(theirs.get("instructions"))
    if mine is None or other is None:
        return "their instructions differ"
    for key in sorted(mine.keys() | other.keys()):
        if key not in other:
            return f"instruction {key!r} is in the bundle's memory and not in the base"
        if key not in mine:
            return f"instruction {key!r} is in the base and not in the bundle's memory"
        a, b = mine[key], other[key]
        members = sorted(n for n in a.keys() | b.keys() if n not in a or n not in b or canon(a[n]) != canon(b[n]))
        if members:
            return f"instruction {key!r} differs in {', '.join(members)}"
    names = sorted(n for n in ours.keys() | theirs.keys() if n != "instructions")
    changed = [n for n in names if n not in ours or n not in theirs or canon(ours[n]) != canon(theirs[n])]
    return f"memory member {changed[0]!r} differs" if changed else "their instructions are in another order"


def _by_key(instructions: Any) -> dict[str, dict[str, Any]] | None:
    """Instructions by key; None where they are not a list of objects with string keys, each once."""
    if type(instructions) is not list or not all(type(i) is dict and type(i.get("key")) is str for i in instructions):
        return None
    found = {i["key"]: i for i in instructions}
    return found if len(found) == len(instructions) else None


def _show(value: Any) -> str:
    return "absent" if value is _ABSENT else canon(value).decode("utf-8")
