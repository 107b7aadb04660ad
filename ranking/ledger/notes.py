"""What people and prompts read from a ledger: history tables, refusal marks,
"do not re-propose" notes, a curator's rationale on one line in each. Pure: decisions in, text out.

Every function takes decisions oldest first (the ledger's insertion order, see
docs/ledger.md): "latest" is the last of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ranking.ledger.records import REFUSED, DecisionRow, Outcome
from ranking.signing.signers import Signer
from validator.proposal import short_fingerprint

__all__ = [
    "NOTE_CHARS",
    "one_line",
    "Refusal",
    "refusals",
    "refusal_mark",
    "note_lines",
    "describe_edit",
    "scope_words",
    "describe_outcome",
    "outcome_words",
    "render_history",
    "signed_by",
    "counted",
]

_CATEGORY_WORDS = {
    "committed": "committed",
    "below-threshold": "rejected by the acceptance test",
    # ranking.integrations.gepa: accepted, but GEPA's selection strategy left it out of the pool.
    "dropped-by-selection": "dropped by GEPA's selection",
}


NOTE_CHARS = 200
"""The most characters of a rationale a note shows, the ellipsis included."""


def one_line(text: str, limit: int = NOTE_CHARS) -> str:
    """``text`` with every run of spaces and unprintable characters made one space,
    cut to ``limit`` characters with a trailing ``…`` when longer."""
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1].rstrip() + "…"


@dataclass(frozen=True, slots=True)
class Refusal:
    """Every refusal of one fingerprint (one edit, however it was argued: SPEC §3.6)."""

    fingerprint: str
    times: int
    latest: DecisionRow

    @property
    def codes(self) -> tuple[str, ...]:
        """The latest refusal's reason codes, each once, in report order."""
        return self.latest.distinct_codes


def refusals(decisions: Iterable[DecisionRow], *, excluding: str | None = None) -> list[Refusal]:
    """One :class:`Refusal` per refused fingerprint, the most recently refused first.

    Decisions without a fingerprint (incomplete proposals) cannot be recognised
    again and are left out; so are the decisions of report ``excluding``.
    """
    counts: dict[str, int] = {}
    latest: dict[str, DecisionRow] = {}
    for d in decisions:
        if d.disposition not in REFUSED or d.fingerprint is None or d.report == excluding:
            continue
        counts[d.fingerprint] = counts.get(d.fingerprint, 0) + 1
        latest.pop(d.fingerprint, None)  # re-inserted last: dict order is "least recent first"
        latest[d.fingerprint] = d
    return [Refusal(f, counts[f], d) for f, d in reversed(latest.items())]


def refusal_mark(refusal: Refusal, proposal: str | None = None) -> str:
    """``refused 2× before: closure.stale_memory``, for score's table and log; ``refused 1× before
    as p-ruff-format: ...`` when it was last refused under another id than ``proposal`` (the same
    edit, reworded)."""
    latest = refusal.latest.proposal
    known = f" as {latest}" if proposal is not None and latest != proposal else ""
    return f"refused {refusal.times}× before{known}: {', '.join(refusal.codes)}"


def note_lines(
    found: Sequence[Refusal],
    limit: int | None = None,
    signers: Mapping[str, Sequence[Signer]] | None = None,
    edits: Mapping[str, Any] | None = None,
) -> tuple[str, ...]:
    """Lines for a curator's next prompt, one per refused fingerprint: the edit, then why it
    was refused, ``do not re-propose: replace "ci.timeout" with "…" — refused 2×, latest
    rejected: <codes>``, and ``(signed by <who>)`` when ``signers`` holds who signed the latest
    refusal's bundle. The edit is named from ``edits`` (fingerprint -> SPEC §3.6's
    ``{"scope", "operations"}``); where the ledger does not know it, by the latest rationale."""
    lines = []
    for r in found[:limit]:
        edit = (edits or {}).get(r.fingerprint)
        what = (
            describe_edit(edit) if edit is not None else one_line(r.latest.rationale) or f"proposal {r.latest.proposal}"
        )
        codes = ", ".join(r.codes)
        signed = signed_by((signers or {}).get(r.latest.report, ()))
        lines.append(
            f"do not re-propose: {what} — refused {r.times}×, latest {r.latest.disposition}: {codes}"
            + (f" ({signed})" if signed else "")
        )
    return tuple(lines)


#: The most characters of an instruction's text a note shows, the ellipsis included.
EDIT_TEXT_CHARS = 120


def describe_edit(edit: Mapping[str, Any]) -> str:
    """An edit (SPEC §3.6: its scope and key-sorted operations) in words a model reads:
    ``replace "ci.timeout" with "CI jobs time out after 30 minutes." in acme/api``;
    several operations joined by ``; ``."""
    words = []
    for op in edit.get("operations", ()):
        key = json.dumps(op.get("key"), ensure_ascii=False)
        text = json.dumps(one_line(str(op.get("text", "")), EDIT_TEXT_CHARS), ensure_ascii=False)
        action = op.get("action")
        words.append(
            f"add {key}: {text}"
            if action == "add"
            else f"replace {key} with {text}"
            if action == "replace"
            else f"remove {key}"
        )
    where = scope_words(edit.get("scope", {}))
    return "; ".join(words) + (f" {where}" if where else "")


def scope_words(scope: Mapping[str, Any]) -> str:
    """``in acme/api``, ``in acme/api at src/api``, or nothing for a global scope (SPEC §1)."""
    repository, path = scope.get("repository"), scope.get("path")
    if repository is None:
        return ""
    return f"in {repository}" + (f" at {path}" if path else "")


def _argued(decision: DecisionRow) -> str:
    """A refused decision whose edit the ledger does not know, named by its rationale or its id."""
    return one_line(decision.rationale) or f"proposal {decision.proposal}"


def signed_by(signers: Sequence[Signer]) -> str:
    """``signed by Curator CI (sha256:…)``, several joined by ``; ``; empty when none."""
    return f"signed by {'; '.join(s.shown for s in signers)}" if signers else ""


def outcome_words(outcome: Outcome) -> tuple[str, str, str]:
    """What the acceptance test did, ``p_improve`` and Δ, as the history and the ledger view write them."""
    what = _CATEGORY_WORDS.get(outcome.category, outcome.category)
    p = "n/a" if outcome.p_improve is None else f"{outcome.p_improve:.2f}"
    delta = "n/a" if outcome.observed_delta is None else f"{outcome.observed_delta:+.2f}"
    return what, p, delta


def describe_outcome(outcome: Outcome) -> str:
    """``selected → committed (p_improve 0.97, Δ +0.04)``."""
    what, p, delta = outcome_words(outcome)
    return f"selected → {what} (p_improve {p}, Δ {delta})"


def render_history(
    entries: Sequence[tuple[DecisionRow, Sequence[Outcome]]],
    signers: Mapping[str, Sequence[Signer]] | None = None,
    *,
    proposal: str | None = None,
) -> list[str]:
    """An aligned table's lines, oldest first, each decision with its fingerprint (shortened);
    under a decision, who signed its report's bundle (from ``signers``, when recorded), and
    under a selected one what the acceptance test did with it. With ``proposal``, a decision
    of another proposal (there because it has the same fingerprint) says it is the same edit."""
    rows = [("run", "proposal", "fingerprint", "disposition", "final", "reasons")]
    rows += [
        (d.run, d.proposal, short_fingerprint(d.fingerprint), d.disposition, _score(d.score), ", ".join(d.codes))
        for d, _ in entries
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]

    def line(r: tuple[str, ...]) -> str:
        first = "  ".join(f"{r[i]:<{widths[i]}}" for i in range(4))
        return f"{first}  {r[4]:>{widths[4]}}  {r[5]}".rstrip()

    lines = [line(rows[0])]
    for row, (d, outcomes) in zip(rows[1:], entries, strict=True):
        lines.append(line(row))
        under = f"{'':<{widths[0]}}  "
        if proposal is not None and d.proposal != proposal:
            lines.append(
                f"{under}the same edit as {proposal} (fingerprint {short_fingerprint(d.fingerprint)}), worded otherwise"
            )
        signed = signed_by((signers or {}).get(d.report, ()))
        lines += [f"{under}{signed}"] if signed else []
        lines += [f"{under}{describe_outcome(o)}" for o in outcomes]
    runs = len({d.run for d, _ in entries})
    refused = sum(1 for d, _ in entries if d.disposition in REFUSED)
    lines += ["", f"{counted(len(entries), 'decision')} in {counted(runs, 'run')} · refused {refused}×"]
    return lines


def _score(final: float | None) -> str:
    return "-" if final is None else f"{final:g}"


def counted(n: int | None, noun: str) -> str:
    """``1 decision``, ``2 decisions``: a count and its noun, as every line of the tool writes one."""
    return f"{n} {noun}" + ("" if n == 1 else "s")
