"""What became of an edit, in one place (docs/ledger.md, "Notes for the curator").

Every reader of the ledger that says what became of an edit (the notes, ``score``'s marks,
``history``, the ledger page, GEPA's judgements, the batch page) takes its words and rules
from here, so that each has one meaning:

- **admitted**: selected in a report (SPEC §5.4), and committed where an acceptance test ran on
  it (:func:`admitted`). An outcome that is not :data:`COMMITTED` is the acceptance test's
  refusal, whatever its category says.
- **refused** (:data:`REFUSED`): the final dispositions that tell a curator not to repeat an edit
  as it is: ``rejected``, ``quarantined``, and ``superseded`` by an edit that won (SPEC §5.3).
- **waiting** (:data:`WAITING`): ``deferred`` or ``unselected``: not yet, never "never"; the edit
  is told to retry.

A :class:`Kind` is one kind of note with every word it is shown by: the head its line starts
with, what that head means (the prompt's heading line and ``ledger notes --help`` are made of
these), the mark ``score`` prints, and where the budget places it. :data:`KINDS` is the table.
:class:`Decisions` is the one history a note reads, made of decisions (:class:`DecisionRow`, a row
of the ledger's ``decisions`` table, which :mod:`ranking.ledger.records` derives from a report),
outcomes and edits.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, Final, NamedTuple

import orjson

from curator_io.catalogue import DEFERRED, QUARANTINED, REJECTED, SELECTED, SUPERSEDED, UNSELECTED, reason_label

__all__ = [
    "COMMITTED",
    "REFUSED",
    "WAITING",
    "admitted",
    "Kind",
    "CONTRADICTS",
    "DO_NOT_REPEAT",
    "ALREADY_IN_MEMORY",
    "RETRY",
    "LOOKALIKE",
    "KINDS",
    "KIND",
    "kind_of",
    "DecisionRow",
    "Facts",
    "Kept",
    "Decisions",
]

#: The acceptance outcome that admits a selected edit (agentdescent's and GEPA's acceptance tests).
COMMITTED: Final = "committed"
#: The final dispositions that tell a curator not to repeat an edit as it is.
REFUSED: Final = frozenset({REJECTED, QUARANTINED, SUPERSEDED})
#: The final dispositions that tell a curator to retry: the edit passed no rule that refuses it yet.
WAITING: Final = frozenset({DEFERRED, UNSELECTED})


def admitted(disposition: str, outcomes: Collection[str] = ()) -> bool:
    """Whether a decision admitted its edit: ``selected``, and, where an acceptance test ran on it
    (``outcomes``, the categories it recorded), committed at least once."""
    return disposition == SELECTED and (not outcomes or COMMITTED in outcomes)


class Kind(NamedTuple):
    """One kind of note, and every word it is shown by."""

    name: str
    """As the notes' JSON writes it (``kind``)."""
    head: str
    """The words a note's line starts with."""
    meaning: str
    """What the head tells a curator: a clause of the prompt's heading and of ``ledger notes --help``."""
    place: int
    """Where the budget puts it: a smaller place is kept first (docs/ledger.md, "Order and budget")."""


CONTRADICTS: Final = "contradicts-memory"
DO_NOT_REPEAT: Final = "do-not-repeat"
ALREADY_IN_MEMORY: Final = "already-in-memory"
RETRY: Final = "retry"
LOOKALIKE: Final = "look-alike"

#: Every kind of note, in the order the budget keeps them (docs/ledger.md).
KINDS: Final = (
    Kind(
        CONTRADICTS,
        "contradicts memory",
        "'contradicts memory' means it says the opposite of an instruction memory holds, which it must not "
        "be added beside",
        0,
    ),
    Kind(DO_NOT_REPEAT, "do not repeat as it is", "'do not repeat as it is' means not unchanged", 1),
    Kind(ALREADY_IN_MEMORY, "already in memory", "'already in memory' means memory holds it", 1),
    Kind(RETRY, "retry", "'retry' means propose it again when it says", 2),
    Kind(
        LOOKALIKE,
        "resembles another instruction",
        "'resembles another instruction' means two keys may say one thing",
        3,
    ),
)
#: The kinds by name.
KIND: Final[Mapping[str, Kind]] = {k.name: k for k in KINDS}

#: The note an edit never admitted gets by the final disposition it got last.
_KIND_OF: Final = {
    DEFERRED: RETRY,
    UNSELECTED: RETRY,
    REJECTED: DO_NOT_REPEAT,
    QUARANTINED: DO_NOT_REPEAT,
    SUPERSEDED: DO_NOT_REPEAT,
}


def kind_of(disposition: str) -> str | None:
    """The note a never-admitted edit gets for what it got last: retry while it waits, do not repeat
    once refused; None for ``selected`` (a selection an acceptance test did not commit is no refusal
    by the gate)."""
    return _KIND_OF.get(disposition)


class DecisionRow(NamedTuple):
    """One decision of one report: a row of the ``decisions`` table, column for column."""

    report: str
    """The report's digest (its seal, SPEC §6)."""
    position: int
    """The entry's index in the report's ``proposals``."""
    run: str
    proposal: str
    fingerprint: str | None
    """SPEC §3.6: the same edit argued differently has the same fingerprint; null when incomplete."""
    lesson: str | None
    validation: str
    disposition: str
    reasons: str
    """The entry's ``reasons`` as JSON text (sorted keys: one text for one list)."""
    score: int | float | None
    """``score.final`` (exact to two decimals, SPEC §4); null when not accepted."""
    superseded_by: str | None
    rationale: str

    @property
    def codes(self) -> tuple[str, ...]:
        """Each reason as ``code`` or ``code(subject)``, as the score table prints them
        (what :func:`ranking.testing.reason_codes` gives for a report entry; docs/ledger.md)."""
        # Our own text: plain JSON, nothing for the strict loader to refuse.
        return tuple(reason_label(r["code"], r["subject"]) for r in orjson.loads(self.reasons))

    @property
    def distinct_codes(self) -> tuple[str, ...]:
        """The reason codes alone, without subjects, each once, in report order
        (as ``RankedProposal.codes`` and :attr:`Refusal.codes` hold them)."""
        return tuple(dict.fromkeys(r["code"] for r in orjson.loads(self.reasons)))


class Facts(NamedTuple):
    """What a note needs of a decision's report beyond its row: the entry's ``support``
    (SPEC §3.7; None when §3.5 did not run) and the report's ``config`` (SPEC §2)."""

    support: Mapping[str, Any] | None
    config: Mapping[str, Any]


class Kept(NamedTuple):
    """An edit the ledger's pool keeps the evidence of, to carry into the next bundle."""

    lineages: int
    """How many independent tasks (SPEC §3.5 lineages) its kept evidence comes from."""
    runs_left: int
    """How many more runs it is kept without being admitted."""


class Decisions:
    """The decisions a curator's notes are made from, oldest first, with the acceptance outcomes
    recorded against them and the edits behind their fingerprints.

    One history for every reader: a ledger (:class:`ranking.ledger.curator.LedgerHistory` reads
    one into it), reports held in memory (:class:`ranking.ledger.curator.Runs`), the ledger page.
    ``edit`` and ``facts`` look an edit and a decision's report up when a note needs them; ``kept``
    what the ledger's pool does with an edit's evidence (:meth:`kept`), read only when a retry note
    asks.
    """

    def __init__(
        self,
        decisions: Sequence[DecisionRow],
        outcomes: Iterable[tuple[str, str, str]] = (),
        *,
        edit: Callable[[str], Mapping[str, Any] | None] = lambda fingerprint: None,
        facts: Callable[[DecisionRow], Facts] | None = None,
        kept: Callable[[str], Kept | str | None] = lambda fingerprint: None,
    ) -> None:
        self._decisions = decisions
        self._outcomes: dict[tuple[str, str], set[str]] = {}
        for report, fingerprint, category in outcomes:
            self._outcomes.setdefault((report, fingerprint), set()).add(category)
        self._edit = edit
        self._facts = facts
        self._kept = kept

    def decisions(self) -> Sequence[DecisionRow]:
        """Every decision, oldest first (the ledger's order: report, then position)."""
        return self._decisions

    def admits(self, decision: DecisionRow) -> bool:
        """Whether ``decision`` admitted its edit (:func:`admitted`)."""
        if decision.fingerprint is None:
            return False
        return admitted(decision.disposition, self._outcomes.get((decision.report, decision.fingerprint), ()))

    def edit(self, fingerprint: str) -> Mapping[str, Any] | None:
        """The edit (SPEC §3.6's ``{"scope", "operations"}``) behind a fingerprint, when known."""
        return self._edit(fingerprint)

    def kept(self, fingerprint: str) -> Kept | str | None:
        """What the pool does with an edit's evidence: :class:`Kept` while it is carried; why it left
        (``ranking.ledger.pool.WHY``) once it is not; None where the pool says nothing of it (a
        ledger before schema 4, reports held in memory, a report recorded without its bundle)."""
        return self._kept(fingerprint)

    def facts(self, decision: DecisionRow) -> Facts:
        """The decision's support and its report's config."""
        if self._facts is None:
            raise LookupError("this history holds no reports: it cannot give a decision's support")
        return self._facts(decision)
