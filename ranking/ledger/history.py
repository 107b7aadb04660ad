"""What people read from a ledger: history tables and the words for an acceptance test's
outcome. Pure: decisions in, text out. (What a curator reads, its notes, is
:mod:`ranking.ledger.notes.composing`'s.)

Every function takes decisions oldest first (the ledger's insertion order, see
docs/ledger.md): "latest" is the last of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ranking.ledger.fate import COMMITTED, REFUSED, WAITING, admitted
from ranking.ledger.notes.wording import describe_edit
from ranking.ledger.records import DecisionRow, Outcome
from ranking.signing.signers import Signer
from validator.proposal import short_fingerprint

__all__ = [
    "describe_outcome",
    "outcome_words",
    "render_history",
    "signed_by",
    "counted",
]

_CATEGORY_WORDS = {
    COMMITTED: "committed",
    "below-threshold": "rejected by the acceptance test",
    # ranking.integrations.gepa: accepted, but GEPA's selection strategy left it out of the pool.
    "dropped-by-selection": "dropped by GEPA's selection",
}


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
    edits: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[str]:
    """An aligned table's lines, oldest first, each decision with its fingerprint (shortened).
    Under a decision: the edit itself (from ``edits``, when the ledger knows it), under the first
    decision on it; who signed its report's bundle (from ``signers``, when recorded); under a
    refused one, the run that admitted the same edit later, if one did; and under a selected one
    what the acceptance test did with it. With ``proposal``, a decision of another proposal
    (there because it has the same fingerprint) says it is the same edit."""
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
    shown: set[str] = set()
    for at, (row, (d, outcomes)) in enumerate(zip(rows[1:], entries, strict=True)):
        lines.append(line(row))
        under = f"{'':<{widths[0]}}  "
        edit = (edits or {}).get(d.fingerprint) if d.fingerprint is not None else None
        if edit is not None and d.fingerprint not in shown:
            shown.add(d.fingerprint)  # type: ignore[arg-type]  # Cannot be None: it has an edit.
            lines.append(f"{under}edit: {describe_edit(edit)}")
        if proposal is not None and d.proposal != proposal:
            lines.append(
                f"{under}the same edit as {proposal} (fingerprint {short_fingerprint(d.fingerprint)}), worded otherwise"
            )
        signed = signed_by((signers or {}).get(d.report, ()))
        lines += [f"{under}{signed}"] if signed else []
        later = _admitted_later(d, entries[at + 1 :]) if d.disposition in REFUSED | WAITING else None
        lines += [f"{under}admitted later, in {later.run} as {later.proposal}"] if later is not None else []
        lines += [f"{under}{describe_outcome(o)}" for o in outcomes]
    runs = len({d.run for d, _ in entries})
    refused = sum(1 for d, _ in entries if d.disposition in REFUSED)
    waited = sum(1 for d, _ in entries if d.disposition in WAITING)
    retry = f", told to retry {waited}×" if waited else ""
    lines += ["", f"{counted(len(entries), 'decision')} in {counted(runs, 'run')} · refused {refused}×{retry}"]
    return lines


def _admitted_later(
    decision: DecisionRow, later: Sequence[tuple[DecisionRow, Sequence[Outcome]]]
) -> DecisionRow | None:
    """The first later decision that admitted the same edit: selected in another report, and
    committed where an acceptance test ran on it."""
    if decision.fingerprint is None:
        return None
    for d, outcomes in later:
        if (
            d.fingerprint == decision.fingerprint
            and d.report != decision.report
            and admitted(d.disposition, {o.category for o in outcomes})
        ):
            return d
    return None


def _score(final: float | None) -> str:
    return "-" if final is None else f"{final:g}"


def counted(n: int | None, noun: str) -> str:
    """``1 decision``, ``2 decisions``: a count and its noun, as every line of the tool writes one."""
    return f"{n} {noun}" + ("" if n == 1 else "s")
