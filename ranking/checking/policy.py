"""The pinned policy: a report counts only when it was ranked with the config its reader chose.

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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from curator_io.canonical import canon
from curator_io.config import Config
from curator_io.errors import PolicyError, TamperError, pointer_of

__all__ = ["ConfigMismatch", "config_mismatches", "check_policy"]

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


def check_policy(report: Mapping[str, Any], pinned: Config) -> None:
    """Refuse a report not ranked with ``pinned`` (``policy.config_mismatch``, exit 1), naming each differing member."""
    mismatches = config_mismatches(report, pinned)
    if not mismatches:
        return
    detail = "the report was not ranked with the pinned policy: " + "; ".join(m.describe() for m in mismatches)
    raise PolicyError("policy.config_mismatch", detail, pointer=mismatches[0].pointer)


def _show(value: Any) -> str:
    return "absent" if value is _ABSENT else canon(value).decode("utf-8")
