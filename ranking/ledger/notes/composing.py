"""The curator's notes: what the gate tells the model that proposes edits, once it has decided.

A note is an instruction to a model, so it is product behaviour, as exact as a report:
docs/ledger.md ("Notes for the curator") specifies it, and this module is the only
place a note is composed. The CLI (``ledger notes``, ``score``'s marks), GEPA, DSPy,
ACE's gate, agentdescent's acceptance stage and the ledger view all call it.

Pure: decisions in (oldest first, through a :class:`~ranking.ledger.fate.Decisions`), notes out.
What became of each edit (its fingerprint, SPEC §3.6) decides its note, by what happened to it
last (:mod:`ranking.ledger.fate` has the kinds and their words):

- **retry**: deferred (SPEC §3.5.7, §5.1) or unselected (§5.4). Not yet, never "never":
  propose it again when what it lacked arrives.
- **do-not-repeat**: rejected, quarantined, or superseded by a conflicting edit that won
  (§5.3). Not as it is: the reason as its sentence, and the remedy where there is one.
- **already-in-memory**: admitted before, then proposed again; or, with the current memory,
  proposed again when memory already held its effect, whichever edit wrote it.
- With the current memory (:mod:`ranking.ledger.notes.current_memory`): a note whose edit memory now holds
  retires; every note names its edit's look-alikes, the strongest first; an edit that
  **contradicts** an instruction memory holds under another key is a ``contradicts-memory`` note,
  never advised to overwrite a person's rule; and an admitted edit that resembles another
  instruction is a **look-alike** note until one of the two is replaced or removed.

The budget keeps what a curator must not miss first (a contradiction of a person's rule, then
other contradictions, then do-not-repeat and already-in-memory, then retry, then look-alikes;
within a kind the most recent first), counts what it leaves out by kind, and cuts a note between
its clauses, never inside its advice.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, NamedTuple

from curator_io.catalogue import (
    DISPOSITION_OF,
    INFORMATIONAL_CODES,
    REMEDIES,
    SELECTED,
    SUPERSEDED,
    reason_label,
    reason_remedy,
    reason_sentence,
)
from ranking.ledger.fate import (
    ALREADY_IN_MEMORY,
    CONTRADICTS,
    DO_NOT_REPEAT,
    KIND,
    KINDS,
    LOOKALIKE,
    RETRY,
    Decisions,
    Facts,
    Kept,
    kind_of,
)
from ranking.ledger.notes.current_memory import ALREADY_THERE_CODES, USER, MemoryFacts, Resemblance, memory_facts
from ranking.ledger.notes.model import DEFAULT_BUDGET, Budget, Note, NoteReason, Notes, Standing
from ranking.ledger.notes.wording import describe_edit, one_line
from ranking.ledger.records import DecisionRow

__all__ = [
    "PROMPT_HEADING",
    "standings",
    "curator_notes",
    "prompt_block",
    "standing_mark",
]

#: How far a decision got (SPEC §3, §5), the furthest first: of one edit's decisions in one
#: report, the furthest speaks for it (its duplicate is superseded by it, and a copy citing
#: bad evidence says less about the edit than one that was ranked).
_ADVANCE: Final = {SELECTED: 0, "unselected": 1, SUPERSEDED: 2, "deferred": 3, "quarantined": 4, "rejected": 5}

#: The prompt's heading line, the same for every host (docs/ledger.md): made of the kinds' meanings.
PROMPT_HEADING: Final = (
    "The evidence gate's notes on edits proposed before, what must not be missed first. Each says what to do "
    "next: " + "; ".join(k.meaning for k in KINDS) + "."
)

_COUNTEREVIDENCE: Final = "support.counterevidence"
_MAX_REASONS: Final = 3
"""The most reasons a note gives; the rest are counted ("and 2 more reasons")."""
_UNCUT: Final = 1 << 30
"""``one_line``'s limit for a text it only flattens."""


def standings(history: Decisions, *, excluding: str | None = None) -> list[Standing]:
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
            if history.admits(speaks):
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
    kind = ALREADY_IN_MEMORY if admitted is not None else kind_of(last.disposition)
    countered = [d for d in since if _COUNTEREVIDENCE in d.distinct_codes]
    if kind == RETRY and countered:
        # Deferred after its evidence was outweighed (SPEC §3.5.8): a run that did not cite the
        # counterevidence again does not answer it; the refusal still speaks for the edit.
        return Standing(fingerprint, DO_NOT_REPEAT, countered[-1], len(since), admitted, latest)
    return Standing(fingerprint, kind, last, len(since), admitted, latest)


class _Candidate(NamedTuple):
    """A note to make, and where the budget places it."""

    order: tuple[int, int, int]
    standing: Standing
    alike: tuple[Resemblance, ...]
    held: bool
    """Memory holds the edit's effect (an already-in-memory note that is not the fingerprint's)."""


def curator_notes(
    history: Decisions,
    *,
    lesson: str | None = None,
    memory_version: int | None = None,
    budget: Budget = DEFAULT_BUDGET,
    memory: Mapping[str, Any] | None = None,
    printed: Callable[[str], str] | None = None,
    prose: Iterable[tuple[int, str]] = (),
) -> Notes:
    """The notes for a curator's next prompt, what must not be missed first, within ``budget``.

    ``lesson`` keeps the notes on that lesson's edits; ``memory_version`` is the memory's current
    version, which a note on a stale edit names when it is given. ``memory``, the current memory
    object (SPEC §1), retires the notes it holds the effect of and names each note's look-alikes
    and contradictions in it (:mod:`ranking.ledger.notes.current_memory`); its version is the
    ``memory_version`` when that is not given; ``prose``, (line, text) of the rules a Markdown
    memory's prose holds, among which look-alikes are found too, as ``prose line N``. ``printed``
    is what the notes' output does to a line (the escaper of ``ledger notes``' text): each line is
    fitted to the budget as printed.
    """
    facts = memory_facts(memory, prose)
    if facts is not None and memory_version is None:
        memory_version = facts.version
    measure = _measure(printed)
    candidates = sorted(
        (c for s in standings(history) if (c := _candidate(s, history, facts, lesson)) is not None),
        key=lambda c: c.order,
    )
    notes: list[Note] = []
    left_out: dict[str, int] = {}
    per_lesson: dict[str | None, int] = {}
    used = 0
    full = False
    for c in candidates:
        group = c.standing.decision.lesson
        room = not full and (budget.notes is None or len(notes) < budget.notes)
        if room and (budget.per_lesson is None or per_lesson.get(group, 0) < budget.per_lesson):
            note = _note(c, history, memory_version, budget.note_bytes, measure)
            size = measure(note.line) + 1  # and its line break
            if budget.prompt_bytes is None or used + size <= budget.prompt_bytes:
                notes.append(note)
                per_lesson[group] = per_lesson.get(group, 0) + 1
                used += size
                continue
            full = True
        kind = _kind(c)
        left_out[kind] = left_out.get(kind, 0) + 1
    return _with_room_for_the_count(notes, left_out, used, budget, measure)


def _with_room_for_the_count(
    notes: list[Note], left_out: dict[str, int], used: int, budget: Budget, measure: Callable[[str], int]
) -> Notes:
    """The notes and the line that counts what was left out, within ``prompt_bytes`` together: the
    last notes give way to that line where it would not fit."""
    made = Notes(notes, left_out)
    while budget.prompt_bytes is not None and (line := made.left_out_line()) is not None and notes:
        if used + measure(line) + 1 <= budget.prompt_bytes:
            break
        dropped = notes.pop()
        used -= measure(dropped.line) + 1
        left_out[dropped.kind] = left_out.get(dropped.kind, 0) + 1
        made = Notes(notes, left_out)
    return made


def prompt_block(notes: Sequence[Note]) -> str:
    """The notes as a prompt gets them, under :data:`PROMPT_HEADING`, with what the budget left out;
    empty when there are none."""
    if not notes:
        return ""
    counted = notes.left_out_line() if isinstance(notes, Notes) else None
    return "\n".join([PROMPT_HEADING, *(n.line for n in notes), *([counted] if counted else [])])


def standing_mark(standing: Standing, proposal: str | None = None) -> str | None:
    """What ``score``'s table (and GEPA's judgement) says of a proposal whose edit the ledger has seen
    before: ``refused 2× before as p-ruff-format: closure.stale_memory``, ``deferred 1× before:
    support.insufficient_lineages``, ``already in memory since run-…``; None when it was admitted last."""
    if standing.kind is None:
        return None
    if standing.kind == ALREADY_IN_MEMORY:
        assert standing.admitted is not None  # Cannot fail: that is what the kind means here.
        return f"already in memory since {standing.admitted.run}"
    d = standing.decision
    known = f" as {d.proposal}" if proposal is not None and d.proposal != proposal else ""
    verb = "refused" if standing.kind == DO_NOT_REPEAT else d.disposition
    return f"{verb} {standing.times}× before{known}: {', '.join(d.distinct_codes)}"


# --- which note, and where it goes ------------------------------------------------------------


def _candidate(
    standing: Standing, history: Decisions, facts: MemoryFacts | None, lesson: str | None
) -> _Candidate | None:
    """The note ``standing`` gets against the current memory (module docstring); None: no note."""
    if lesson is not None and standing.decision.lesson != lesson:
        return None
    edit = history.edit(standing.fingerprint) if facts is not None else None
    kind, held = standing.kind, False
    alike: tuple[Resemblance, ...] = ()
    if edit is not None and facts is not None:
        if kind == ALREADY_IN_MEMORY and not facts.holds_effect(edit):
            # Written, then removed or replaced since: what became of it last speaks, as if never admitted.
            kind = kind_of(standing.decision.disposition)
        if kind in (RETRY, DO_NOT_REPEAT) and facts.holds_effect(edit):
            if not ALREADY_THERE_CODES & set(standing.decision.distinct_codes):
                return None  # memory came to hold it after it was last proposed: the note retires
            kind, held = ALREADY_IN_MEMORY, True
        written = kind in (None, ALREADY_IN_MEMORY)
        alike = facts.resemblances(edit, admitted=written)
        if any(r.contradicts for r in alike):
            kind = CONTRADICTS
        elif kind is None and alike:
            kind = LOOKALIKE
    if kind is None:
        return None
    user = any(r.contradicts and r.origin == USER for r in alike)
    order = (KIND[kind].place, 0 if user else 1, -standing.latest)
    return _Candidate(order, _as(standing, kind), alike, held)


def _as(standing: Standing, kind: str) -> Standing:
    if standing.kind == kind:
        return standing
    return Standing(standing.fingerprint, kind, standing.decision, standing.times, standing.admitted, standing.latest)


def _kind(c: _Candidate) -> str:
    assert c.standing.kind is not None  # Cannot fail: _candidate makes none without a kind.
    return c.standing.kind


def _measure(printed: Callable[[str], str] | None) -> Callable[[str], int]:
    if printed is None:
        return lambda line: len(line.encode("utf-8"))
    return lambda line: len(printed(line).encode("utf-8"))


# --- one note ----------------------------------------------------------------------------------


def _note(
    c: _Candidate, history: Decisions, memory_version: int | None, note_bytes: int, measure: Callable[[str], int]
) -> Note:
    standing = c.standing
    d, kind = standing.decision, _kind(c)
    edit = history.edit(standing.fingerprint)
    given = _reasons(d) if kind in (RETRY, DO_NOT_REPEAT) else []
    facts = history.facts(d) if given else None
    reasons = (
        [_reason(code, subject, d, facts, memory_version) for code, subject in given[:_MAX_REASONS]] if facts else []
    )
    winner = _winner(d, history) if kind == DO_NOT_REPEAT and d.disposition == SUPERSEDED else None
    admitted = standing.admitted.run if kind == ALREADY_IN_MEMORY and standing.admitted is not None else None
    operations = len(edit.get("operations", ())) if edit is not None else 0
    kept = history.kept(standing.fingerprint) if kind == RETRY else None
    alike = list(c.alike)
    shown: int | None = None

    def clauses() -> list[str]:
        what = describe_edit(edit, shown) if edit is not None else _argued(d)
        more = len(given) - len(reasons)
        return [
            one_line(cl, _UNCUT)
            for cl in _clauses(kind, what, standing, c.held, reasons, more, winner, admitted, alike, kept)
        ]

    # Room, in this order: the weakest look-alikes beyond the first, the winner, reasons beyond
    # the first (counted), then operations beyond the first (counted); never a clause cut inside.
    made = clauses()
    while measure(" ".join(made)) > note_bytes:
        if len(alike) > 1:
            alike.pop()
        elif winner is not None:
            winner = None
        elif len(reasons) > 1:
            reasons.pop()
        elif operations > 1 and (shown is None or shown > 1):
            shown = min(operations - 1, max(1, note_bytes // 40)) if shown is None else shown - 1
        else:
            break
        made = clauses()
    return Note(
        kind=kind,
        fingerprint=standing.fingerprint,
        edit=describe_edit(edit, shown) if edit is not None else None,
        proposal=d.proposal,
        run=d.run,
        lesson=d.lesson,
        disposition=d.disposition,
        times=standing.times,
        reasons=tuple(reasons),
        more_reasons=len(given) - len(reasons),
        winner=winner,
        admitted=admitted,
        resembles=tuple(alike),
        line=_whole_clauses(made, note_bytes, measure),
        carried=None if kept is None else isinstance(kept, Kept),
    )


def _clauses(
    kind: str,
    what: str,
    standing: Standing,
    held: bool,
    reasons: Sequence[NoteReason],
    more: int,
    winner: str | None,
    admitted: str | None,
    alike: Sequence[Resemblance],
    kept: Kept | str | None = None,
) -> list[str]:
    d = standing.decision
    head = f"{KIND[kind].head}: {what} — "
    so_far = f" ({standing.times}× so far)" if standing.times > 1 else ""
    if kind == ALREADY_IN_MEMORY:
        when = (
            f"memory holds it already, and it was proposed again in {d.run}."
            if held
            else f"admitted in {admitted}, then proposed again in {d.run}."
        )
        advice = "Do not propose it again; to change it, replace its key against the current memory."
        return [head + when, advice, *(r.sentence() for r in alike)]
    if standing.admitted is not None and d == standing.admitted:
        first = f"{head}admitted in {d.run}."
    else:
        first = f"{head}{d.disposition} in {d.run}{so_far}."
    if kind in (LOOKALIKE, CONTRADICTS):
        return [first, *(r.sentence() for r in alike)]
    out = [first, *(r.sentence for r in reasons)]
    if more:
        out.append(f"(and {more} more reason{'' if more == 1 else 's'})")
    if winner is not None:
        out.append(f"The edit that won: {winner}.")
    remedies = list(dict.fromkeys(r.remedy for r in reasons if r.remedy is not None))
    if remedies:
        out.append("What to do: " + " ".join(remedies))
    if kind == RETRY and kept is not None:
        out.append(_kept_words(kept))
    return out + [r.sentence() for r in alike]


def _kept_words(kept: Kept | str) -> str:
    """What the pool does with a retry note's evidence (docs/ledger.md, "The pool")."""
    if isinstance(kept, Kept):
        tasks = f"{kept.lineages} independent task{'' if kept.lineages == 1 else 's'}"
        runs = f"{kept.runs_left} more run{'' if kept.runs_left == 1 else 's'}"
        return (
            f"The gate keeps the evidence it cited ({tasks}) and carries it into the next bundle for {runs}: "
            "when the lesson recurs, propose it again as it is, citing only the new task's evidence."
        )
    why = {"waited": "it waited too many runs", "pool-full": "the pool had no room", "too-large": "it was too large"}
    return (
        f"The gate no longer keeps its evidence ({why.get(kept, kept)}): propose it again citing "
        "evidence from every task it needs."
    )


def _whole_clauses(clauses: Sequence[str], limit: int, measure: Callable[[str], int]) -> str:
    """The note's line: its clauses joined, or, where head and advice alone are longer than
    ``limit``, the leading whole clauses that fit and ``…``; a first clause longer than the limit
    is cut at a character boundary."""
    line = " ".join(clauses)
    if measure(line) <= limit:
        return line
    for count in range(len(clauses) - 1, 0, -1):
        shorter = " ".join(clauses[:count]) + " …"
        if measure(shorter) <= limit:
            return shorter
    raw = clauses[0].encode("utf-8")
    while raw and measure(raw.decode("utf-8", errors="ignore").rstrip() + "…") > limit:
        raw = raw[:-1]
    return raw.decode("utf-8", errors="ignore").rstrip() + "…"


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


def _winner(d: DecisionRow, history: Decisions) -> str | None:
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
