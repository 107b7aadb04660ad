"""The curator's notes: what the gate tells the model that proposes edits, once it has decided.

A note is an instruction to a model, so it is product behaviour, as exact as a report:
docs/ledger.md ("Notes for the curator") specifies it, and this module is the only
place a note is composed. The CLI (``ledger notes``, ``score``'s marks), GEPA, DSPy,
ACE's gate, agentdescent's acceptance stage and the ledger view all call it.

Pure: decisions in (oldest first, through a :class:`~ranking.ledger.note_model.History`), notes out. What became
of each edit (its fingerprint, SPEC §3.6) decides its note, by what happened to it last:

- **retry**: deferred (SPEC §3.5.7, §5.1) or unselected (§5.4). Not yet, never "never":
  propose it again when what it lacked arrives.
- **do-not-repeat**: rejected, quarantined, or superseded by a conflicting edit that won
  (§5.3). Not as it is: the reason as its sentence, and the remedy where there is one.
- **already-in-memory**: admitted before (selected, and committed where an acceptance
  test ran), then proposed again. Say so; never tell a curator not to propose what is
  now its current instruction.
- An edit admitted last has no note: it left the refused notes; but with the current memory
  given, one of its instructions that resembles another under another key
  (:mod:`ranking.advice.lookalikes`) is a **look-alike** note, and every note names the
  look-alikes of its edit: keys are SPEC's identity, and a curator that picks a new key for a
  reworded or contradicting instruction is told to replace the old one instead.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from curator_io.catalogue import (
    DEFERRED,
    DISPOSITION_OF,
    INFORMATIONAL_CODES,
    QUARANTINED,
    REJECTED,
    REMEDIES,
    SELECTED,
    SUPERSEDED,
    UNSELECTED,
    reason_label,
    reason_remedy,
    reason_sentence,
)
from ranking.ledger.note_model import (
    ALREADY_IN_MEMORY,
    DEFAULT_BUDGET,
    DO_NOT_REPEAT,
    LOOKALIKE,
    PROSE_LINE,
    RETRY,
    Budget,
    Facts,
    History,
    Note,
    NoteReason,
    Resemblance,
    Standing,
)
from ranking.ledger.note_words import EDIT_TEXT_CHARS, describe_edit, one_line
from ranking.ledger.records import DecisionRow

__all__ = [
    "PROMPT_HEADING",
    "standings",
    "curator_notes",
    "prompt_block",
    "standing_mark",
]

#: The words a note's line starts with, by kind.
_HEADS: Final = {
    RETRY: "retry",
    DO_NOT_REPEAT: "do not repeat as it is",
    ALREADY_IN_MEMORY: "already in memory",
    LOOKALIKE: "resembles another instruction",
}
#: The kind of note the final disposition an edit got last gives it (when it was never admitted).
_KIND_OF: Final = {
    DEFERRED: RETRY,
    UNSELECTED: RETRY,
    REJECTED: DO_NOT_REPEAT,
    QUARANTINED: DO_NOT_REPEAT,
    SUPERSEDED: DO_NOT_REPEAT,
}
#: How far a decision got (SPEC §3, §5), the furthest first: of one edit's decisions in one
#: report, the furthest speaks for it (its duplicate is superseded by it, and a copy citing
#: bad evidence says less about the edit than one that was ranked).
_ADVANCE: Final = {SELECTED: 0, UNSELECTED: 1, SUPERSEDED: 2, DEFERRED: 3, QUARANTINED: 4, REJECTED: 5}

#: The prompt's heading line, the same for every host (docs/ledger.md).
PROMPT_HEADING: Final = (
    "The evidence gate's notes on edits proposed before, the most recent first. Each says what to do next: "
    "'retry' means propose it again when it says; 'do not repeat as it is' means not unchanged; "
    "'already in memory' means it was written; 'resembles another instruction' means two keys may say one thing."
)

_UNCUT: Final = sys.maxsize
"""``one_line``'s limit for a text it only flattens."""
_MAX_REASONS: Final = 3
"""The most reasons a note gives; the rest are counted ("and 2 more reasons")."""


def standings(history: History, *, excluding: str | None = None) -> list[Standing]:
    """One :class:`Standing` per fingerprint, the most recently decided first. Decisions without a
    fingerprint (incomplete proposals) cannot be recognised again and are left out; so are the
    decisions of report ``excluding``."""
    found: dict[str, dict[str, list[tuple[int, DecisionRow]]]] = {}
    for at, d in enumerate(history.decisions()):
        if d.fingerprint is not None and d.report != excluding:
            found.setdefault(d.fingerprint, {}).setdefault(d.report, []).append((at, d))
    out = []
    for fingerprint, reports in found.items():
        admitted: DecisionRow | None = None
        since: list[DecisionRow] = []
        latest = 0
        for group in reports.values():
            latest = max(latest, group[-1][0])
            _, speaks = min(group, key=lambda item: (_ADVANCE[item[1].disposition], item[0]))
            if speaks.disposition == SELECTED and not history.refused_by_test(speaks.report, fingerprint):
                admitted, since = speaks, []
            else:
                since.append(speaks)
        out.append(_standing(fingerprint, admitted, since, latest))
    out.sort(key=lambda s: -s.latest)
    return out


def _standing(fingerprint: str, admitted: DecisionRow | None, since: list[DecisionRow], latest: int) -> Standing:
    if not since:
        assert admitted is not None  # Cannot fail: every fingerprint found has a decision.
        return Standing(fingerprint, None, admitted, 0, admitted, latest)
    last = since[-1]
    if admitted is not None:
        kind: str | None = ALREADY_IN_MEMORY
    else:
        # A selected edit whose acceptance test committed nothing was not refused by the gate: no note.
        kind = _KIND_OF.get(last.disposition)
    return Standing(fingerprint, kind, last, len(since), admitted, latest)


def curator_notes(
    history: History,
    *,
    lesson: str | None = None,
    memory_version: int | None = None,
    budget: Budget = DEFAULT_BUDGET,
    memory: Mapping[str, Any] | None = None,
    prose: Iterable[tuple[int, str]] = (),
) -> tuple[Note, ...]:
    """The notes for a curator's next prompt, the most recent first, within ``budget``.

    ``lesson`` keeps the notes on that lesson's edits; ``memory_version`` is the memory's current
    version, which a note on a stale edit names when it is given. ``memory``, the current memory
    object (SPEC §1), names each note's look-alikes in it, and makes a look-alike note of an
    admitted edit that resembles another instruction it holds; its version is the
    ``memory_version`` when that is not given. ``prose``: (line, text) of the rules a Markdown
    memory's prose holds, which each note's look-alikes are found among too, as ``prose line N``.
    """
    texts = _texts(memory) | {f"{PROSE_LINE}{line}": text for line, text in prose}
    if memory is not None and memory_version is None and type(memory.get("version")) is int:
        memory_version = memory["version"]
    notes: list[Note] = []
    per_lesson: dict[str | None, int] = {}
    used = 0
    for found in standings(history):
        standing = _lookalike(found, history, texts) if found.kind is None else found
        if standing is None or (lesson is not None and standing.decision.lesson != lesson):
            continue
        if budget.notes is not None and len(notes) >= budget.notes:
            break
        group = standing.decision.lesson
        if budget.per_lesson is not None and per_lesson.get(group, 0) >= budget.per_lesson:
            continue
        note = _note(standing, history, memory_version, budget.note_bytes, texts)
        size = len(note.line.encode("utf-8")) + 1  # and its line break
        if budget.prompt_bytes is not None and used + size > budget.prompt_bytes:
            break
        notes.append(note)
        per_lesson[group] = per_lesson.get(group, 0) + 1
        used += size
    return tuple(notes)


def prompt_block(notes: Sequence[Note]) -> str:
    """The notes as a prompt gets them, under :data:`PROMPT_HEADING`; empty when there are none."""
    return "\n".join([PROMPT_HEADING, *(n.line for n in notes)]) if notes else ""


def standing_mark(standing: Standing, proposal: str | None = None) -> str | None:
    """What ``score``'s table says of a proposal whose edit the ledger has seen before:
    ``refused 2× before as p-ruff-format: closure.stale_memory``, ``deferred 1× before:
    support.insufficient_lineages``, ``already in memory since run-…``; None when it was admitted last."""
    if standing.kind is None:
        return None
    if standing.kind == ALREADY_IN_MEMORY:
        assert standing.admitted is not None  # Cannot fail: that is what the kind means.
        return f"already in memory since {standing.admitted.run}"
    d = standing.decision
    known = f" as {d.proposal}" if proposal is not None and d.proposal != proposal else ""
    verb = "refused" if standing.kind == DO_NOT_REPEAT else d.disposition
    return f"{verb} {standing.times}× before{known}: {', '.join(d.distinct_codes)}"


# --- one note ------------------------------------------------------------------------------


def _note(
    standing: Standing, history: History, memory_version: int | None, note_bytes: int, texts: Mapping[str, str]
) -> Note:
    d, kind = standing.decision, standing.kind
    assert kind is not None  # Cannot fail: curator_notes passes over the admitted.
    edit = history.edit(standing.fingerprint)
    facts = history.facts(d)
    given = [] if kind in (ALREADY_IN_MEMORY, LOOKALIKE) else _reasons(d)
    alike = _resemblances(edit, texts, admitted=kind == LOOKALIKE) if edit is not None else ()
    reasons = tuple(_reason(code, subject, d, facts, memory_version) for code, subject in given[:_MAX_REASONS])
    winner = _winner(d, history) if kind == DO_NOT_REPEAT and d.disposition == SUPERSEDED else None
    admitted = standing.admitted.run if kind == ALREADY_IN_MEMORY and standing.admitted is not None else None
    more = max(0, len(given) - _MAX_REASONS)

    def line_with(operations: int | None) -> str:
        what = describe_edit(edit, operations) if edit is not None else _argued(d)
        return _line(kind, what, d, standing.times, reasons, more, winner, admitted, alike)

    line, shown = _fitted(line_with, len(edit.get("operations", ())) if edit is not None else 0, note_bytes)
    return Note(
        kind=kind,
        fingerprint=standing.fingerprint,
        edit=describe_edit(edit, shown) if edit is not None else None,
        proposal=d.proposal,
        run=d.run,
        lesson=d.lesson,
        disposition=d.disposition,
        times=standing.times,
        reasons=reasons,
        more_reasons=more,
        winner=winner,
        admitted=admitted,
        resembles=alike,
        line=line,
    )


def _fitted(line_with: Callable[[int | None], str], operations: int, limit: int) -> tuple[str, int | None]:
    """The line with as many of the edit's operations as fit in ``limit`` bytes (at least one; the
    rest are counted), cut to ``limit`` bytes when even that is too long; and how many it shows
    (None: all)."""
    shown: int | None = None
    line = line_with(None)
    while len(line.encode("utf-8")) > limit and (shown is None or shown > 1) and operations > 1:
        shown = min(operations - 1, limit // 40) if shown is None else shown - 1
        line = line_with(max(shown, 1))
    return _cut_bytes(line, limit), shown


def _cut_bytes(text: str, limit: int) -> str:
    """``text`` when it is at most ``limit`` UTF-8 bytes; else its longest prefix that fits with ``…``."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[: limit - len("…".encode())].decode("utf-8", errors="ignore").rstrip() + "…"


def _line(
    kind: str,
    what: str,
    d: DecisionRow,
    times: int,
    reasons: Sequence[NoteReason],
    more: int,
    winner: str | None,
    admitted: str | None,
    alike: Sequence[Resemblance] = (),
) -> str:
    head = f"{_HEADS[kind]}: {what} — "
    if kind == LOOKALIKE:
        return one_line(f"{head}admitted in {d.run}. " + " ".join(r.sentence() for r in alike), _UNCUT)
    if kind == ALREADY_IN_MEMORY:
        return one_line(
            f"{head}admitted in {admitted}, then proposed again in {d.run}. Do not propose it again; to change "
            "it, replace its key against the current memory.",
            _UNCUT,
        )
    so_far = f" ({times}× so far)" if times > 1 else ""
    parts = [f"{head}{d.disposition} in {d.run}{so_far}."]
    parts += [r.sentence for r in reasons]
    if more:
        parts.append(f"(and {more} more reason{'' if more == 1 else 's'})")
    if winner is not None:
        parts.append(f"The edit that won: {winner}.")
    remedies = list(dict.fromkeys(r.remedy for r in reasons if r.remedy is not None))
    if remedies:
        parts.append("What to do: " + " ".join(remedies))
    parts += [r.sentence() for r in alike]
    # One line whatever a stored row holds (a subject edited by hand): every text above is one already.
    return one_line(" ".join(parts), _UNCUT)


def _reasons(d: DecisionRow) -> list[tuple[str, str | None]]:
    """The reasons a note gives: those that made the decision what it is. Informational codes
    say nothing to do, and a weaker reason's remedy would contradict the note (a rejected edit
    that was also short of lineages is not to be proposed again as it is)."""
    return [
        (r["code"], r["subject"])
        for r in json.loads(d.reasons)
        if r["code"] not in INFORMATIONAL_CODES and DISPOSITION_OF.get(r["code"], d.validation) == d.validation
    ]


def _reason(code: str, subject: str | None, d: DecisionRow, facts: Facts, memory_version: int | None) -> NoteReason:
    if code not in REMEDIES:  # a row edited by hand (``ledger verify`` names it): its code, as stored
        return NoteReason(code, subject, f"Reason {reason_label(code, subject)}.", None)
    remedy = reason_remedy(
        code,
        subject,
        facts.config,
        memory="" if memory_version is None else f" (now version {memory_version})",
        more_tasks=_more_tasks(facts.support),
        weights=_weights(facts.support),
        final="" if d.score is None else f" of {_number(d.score)}",
    )
    return NoteReason(code, subject, reason_sentence(code, subject, facts.config), remedy)


def _more_tasks(support: Mapping[str, Any] | None) -> str:
    """``1 more independent task (it has 1 of the 2 required)``; without the support, ``more independent tasks``."""
    if support is None:
        return "more independent tasks"
    have, need = support["lineages"], support["required"]
    missing = max(1, need - have)
    return f"{missing} more independent task{'' if missing == 1 else 's'} (it has {have} of the {need} required)"


def _weights(support: Mapping[str, Any] | None) -> str:
    if support is None:
        return ""
    return f" (counterevidence of strength {support['contradiction']} against support of {support['strength']})"


def _winner(d: DecisionRow, history: History) -> str | None:
    """The edit that superseded ``d`` (SPEC §5.3: ``superseded_by`` in the same report), in words."""
    for other in history.decisions():
        if other.report == d.report and other.proposal == d.superseded_by:
            edit = history.edit(other.fingerprint) if other.fingerprint is not None else None
            return describe_edit(edit, 2) if edit is not None else _argued(other)
    return None


def _argued(d: DecisionRow) -> str:
    """A decision whose edit is not known, named by its id and rationale."""
    said = one_line(d.rationale)
    return f"proposal {d.proposal}" + (f" ({json.dumps(said, ensure_ascii=False)})" if said else "")


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


# --- look-alikes in the current memory (issue 50) ------------------------------------------


def _texts(memory: Mapping[str, Any] | None) -> dict[str, str]:
    """The current memory's text by key; none without a memory (or for one not SPEC's shape)."""
    items = memory.get("instructions") if memory is not None else None
    if type(items) is not list:
        return {}
    return {
        i["key"]: i["text"]
        for i in items
        if type(i) is dict and type(i.get("key")) is str and type(i.get("text")) is str
    }


def _lookalike(standing: Standing, history: History, texts: Mapping[str, str]) -> Standing | None:
    """An admitted edit as a look-alike note: one of its instructions is in the memory as it wrote it
    and resembles another instruction there; None otherwise (no note, as ever)."""
    edit = history.edit(standing.fingerprint) if texts else None
    if edit is None or not _resemblances(edit, texts, admitted=True):
        return None
    return Standing(
        standing.fingerprint, LOOKALIKE, standing.decision, standing.times, standing.admitted, standing.latest
    )


def _resemblances(edit: Mapping[str, Any], texts: Mapping[str, str], *, admitted: bool) -> tuple[Resemblance, ...]:
    """Each add or replace of ``edit`` whose text resembles an instruction of the memory under a key
    the edit does not touch; for an ``admitted`` edit, only what the memory holds as it wrote it."""
    if not texts:
        return ()
    from ranking.advice.lookalikes import resemblance  # only a host that gives the memory pays for it

    ops = [op for op in edit.get("operations", ()) if op.get("action") in ("add", "replace")]
    touched = {op.get("key") for op in edit.get("operations", ())}
    found = []
    for op in ops:
        key, text = op["key"], op["text"]
        if admitted and texts.get(key) != text:
            continue
        for other in sorted(k for k in texts if k not in touched):
            scored = resemblance(text, texts[other])
            if scored is not None:
                advice = _advice(key, other, op["action"], admitted=admitted)
                found.append(
                    Resemblance(key, other, one_line(texts[other], EDIT_TEXT_CHARS), scored[0], scored[1], advice)
                )
    return tuple(found)


def _advice(key: str, other: str, action: str, *, admitted: bool) -> str:
    """What the curator might do about ``key`` resembling ``other`` (a key, or a rule of the prose)."""
    if other.startswith(PROSE_LINE):
        return (
            "an agent reads both: if it updates that rule, say so in the lesson for people to change the prose; "
            "if it says the same, leave it out"
        )
    if admitted:
        return f"one instruction, one key: if it updates {other!r}, replace {other!r} with it and remove {key!r}"
    if action == "add":
        return f"if it updates {other!r}, replace {other!r} instead of adding {key!r}"
    return f"if both say one thing, remove one; if it updates {other!r}, replace {other!r} instead"
