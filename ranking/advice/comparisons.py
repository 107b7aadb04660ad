"""Which texts are compared with which, for each use of look-alikes: the one chooser.

The measure (:mod:`ranking.advice.lookalikes`) says whether two texts are alike; :func:`choose`
says which pairs it is asked about, for each place a look-alike is shown (docs/lookalikes.md,
"What is compared with what"):

- :class:`Report`, ``score``'s table and the run view: the selected edits, against memory, the
  applicable instructions and each other. What the write will hold, as the gate will see it, and
  at most five proposals however large the bundle.
- :class:`Explain`, ``explain REPORT ID``: the proposal named, against memory, the applicable
  instructions and every proposal.
- :class:`Gate`, the gate's memory-after: each instruction it adds or changes the text of, against
  the other instructions it holds and the applicable ones.
- :class:`Memory`, a change with no curated run (:mod:`ranking.checking.uncurated`): each list
  item of a Markdown memory's prose, against each instruction of its section.
- :class:`Notes`, the curator's notes: each ``add`` or ``replace`` of an edit (of an edit memory
  admitted, only what memory holds as it wrote it), against the current memory and the rules of
  its prose.

Whatever the use, a text is never compared with one under its own key (SPEC judges that,
§3.4 and §5.3), nor with another operation of its own proposal, nor with a memory instruction
its proposal edits (a remove of ``a`` and an add of ``b`` with ``a``'s text renames it); an
applicable instruction only where its scope contains the subject's (§3.4):
:meth:`Comparison.compares`. Scopes are read by ``curator_io``'s parser.

A report, an explanation and a gate are bounded (:mod:`ranking.advice.lookalikes`, step 4); the
notes and a memory's prose compare every pair they choose, keep every look-alike found, and are
bounded where they are shown (the notes by their budget).

Pure and light: no measure is imported here, so a caller can ask whether there is anything to
compare before it pays for one; and its kinds are named tuples, not dataclasses, as every ``score``
and ``gate`` imports this module (seven frozen dataclasses cost 26M instructions at start-up, about
7% of ``score``'s whole run; named tuples 5M).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from curator_io.kinds import parse_scope
from curator_io.models import Bundle, Instruction, Scope
from ranking.advice.lookalike_model import Place
from validator import Proposal, proposals_of

if TYPE_CHECKING:
    from curator_io.markdown.document import MarkdownMemory

__all__ = [
    "Entry",
    "Comparison",
    "Report",
    "Explain",
    "Gate",
    "Memory",
    "Notes",
    "Use",
    "choose",
    "of_proposals",
    "of_written",
]


class Entry(NamedTuple):
    """A text to compare, and where it is."""

    place: Place
    text: str
    scope: Scope | None = None
    """For an applicable instruction: only a subject within it is compared with it (§3.4). For a
    subject, its proposal's or instruction's scope; None when it has none that is SPEC's."""
    excluded: frozenset[str] = frozenset()
    """For a subject: keys whose memory instructions it is not compared with (those its edit touches)."""
    origin: str | None = None
    """For an instruction memory holds: its origin (SPEC §1), which the advice reads."""


class Comparison(NamedTuple):
    """What :func:`choose` decided: the subjects (the texts the advice is about), the texts they
    are compared with, and whether the bounds apply."""

    subjects: tuple[Entry, ...]
    against: tuple[Entry, ...]
    """In the order the bounds take them (:data:`~ranking.advice.lookalikes.WIDEST`: the first)."""
    bounded: bool = True

    def compares(self, subject: Entry, other: Entry) -> bool:
        """Whether ``subject`` is compared with ``other`` at all (this module's docstring)."""
        s, o = subject.place, other.place
        if o.key == s.key or (o.where == "proposal" and o.proposal == s.proposal):
            return False  # SPEC judges one key (§3.4, §5.3); a proposal's own operations are §3.4's
        if o.where == "memory" and o.key in subject.excluded:
            return False  # the edit changes that instruction itself
        if o.where == "instructions":
            # §3.4: an applicable instruction counts where its scope contains the subject's.
            # A written instruction whose scope is not one is within a global instruction only.
            assert other.scope is not None  # Cannot fail: applicable instructions have a checked scope.
            return other.scope.contains(subject.scope) if subject.scope is not None else other.scope.is_broad
        return True

    def pairs(self) -> Iterator[tuple[Entry, Entry]]:
        """Every (subject, other) the measure is asked about, before it reads their words."""
        return ((s, o) for s in self.subjects for o in self.against if self.compares(s, o))


class Report(NamedTuple):
    """``score``'s table and the run view: the selected edits against memory, the applicable
    instructions and each other (at most five proposals on any bundle)."""

    bundle: Bundle
    selected: Collection[str]
    checked: Mapping[str, Proposal] | None = None
    """The bundle's structurally complete proposals by id, when the caller has them."""
    prose: Iterable[tuple[int, str]] = ()
    """(line, text) of the rules a Markdown memory's prose holds, compared with as memory is."""


class Explain(NamedTuple):
    """``explain REPORT ID``: the proposal named, against memory, the applicable instructions and
    every other proposal."""

    bundle: Bundle
    proposal: str
    checked: Mapping[str, Proposal] | None = None
    prose: Iterable[tuple[int, str]] = ()


class Gate(NamedTuple):
    """The gate: each instruction memory-after (``written``, a checked memory object) adds or
    changes, against the others it holds, the applicable instructions and the rules of its prose."""

    bundle: Bundle
    written: Mapping[str, Any]
    prose: Iterable[tuple[int, str]] = ()


class Memory(NamedTuple):
    """A Markdown memory gated without a curated run: each list item of its prose (its first
    line), against each instruction of its section."""

    section: MarkdownMemory


class Held(Protocol):
    """An instruction of the current memory, as the notes hold it."""

    @property
    def key(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def origin(self) -> str | None: ...


class Notes(NamedTuple):
    """A note's edit (``{"scope", "operations"}``, as the ledger records it), against the current
    memory (``held``, by key) and the rules of its prose. ``admitted``: the edit was written, so
    only its texts memory holds as it wrote them are compared."""

    edit: Mapping[str, Any]
    held: Mapping[str, Held]
    prose: Iterable[tuple[int, str]] = ()
    admitted: bool = False


Use = Report | Explain | Gate | Memory | Notes


def choose(use: Use) -> Comparison:
    """Which texts to compare with which, for ``use`` (this module's docstring)."""
    match use:
        case Report(bundle, selected, checked, prose):
            # What the write will hold: the selected edits against each other, not the whole bundle.
            return of_proposals(bundle, proposals=selected, against=selected, checked=checked, prose=prose)
        case Explain(bundle, proposal, checked, prose):
            return of_proposals(bundle, proposals=(proposal,), checked=checked, prose=prose)
        case Gate(bundle, written, prose):
            return of_written(bundle, written, prose)
        case Memory(section):
            return _of_prose(section)
        case Notes(edit, held, prose, admitted):
            return _of_edit(edit, held, prose, admitted=admitted)


def of_proposals(
    bundle: Bundle,
    *,
    proposals: Collection[str] | None = None,
    against: Collection[str] | None = None,
    checked: Mapping[str, Proposal] | None = None,
    prose: Iterable[tuple[int, str]] = (),
) -> Comparison:
    """The ``add`` and ``replace`` texts of the complete proposals named in ``proposals`` (all,
    when None), against memory, the texts of the proposals named in ``against`` (all, when None),
    the applicable instructions and ``prose``."""
    held = _by_key(bundle.memory_instructions.values())
    memory = [Entry(Place("memory", i.key), i.text, origin=i.origin) for i in held]
    complete = proposals_of(bundle) if checked is None else checked
    edits = []
    for pid, p in sorted(complete.items()):
        if proposals is not None and against is not None and pid not in proposals and pid not in against:
            continue  # neither a subject nor compared with: not even read
        keys = frozenset(op.key for op in p.operations)
        for op in p.operations:
            if op.text is not None:  # add and replace
                edits.append(Entry(Place("proposal", op.key, pid, op.action), op.text, p.scope, keys))
    subjects = edits if proposals is None else [e for e in edits if e.place.proposal in proposals]
    theirs = edits if against is None else [e for e in edits if e.place.proposal in against]
    return Comparison(tuple(subjects), (*memory, *theirs, *_applicable(bundle), *_rules(prose)))


def of_written(bundle: Bundle, written: Mapping[str, Any], prose: Iterable[tuple[int, str]] = ()) -> Comparison:
    """Each instruction ``written`` adds or changes the text of (in key order), against the other
    instructions it holds, the applicable instructions and ``prose``."""
    before = bundle.memory_instructions
    kept: dict[str, Entry] = {}
    subjects = []
    for inst in written.get("instructions", ()):
        key, text = inst.get("key"), inst.get("text")
        if type(key) is not str or type(text) is not str or key in kept:
            continue  # not an instruction to compare (the gate's findings say what is wrong with it)
        action = "add" if key not in before else "replace" if before[key].text != text else None
        origin = inst.get("origin") if type(inst.get("origin")) is str else None
        scope = parse_scope(inst.get("scope"))  # not SPEC's: compared with global instructions only
        entry = Entry(Place("memory-after", key, None, action), text, scope, origin=origin)
        kept[key] = entry
        if action is not None:
            subjects.append(entry)
    subjects.sort(key=lambda e: e.place.key)
    return Comparison(tuple(subjects), (*(kept[k] for k in sorted(kept)), *_applicable(bundle), *_rules(prose)))


def _of_prose(section: MarkdownMemory) -> Comparison:
    """Each list item of the prose (its first line, without its bullet) against the section's instructions."""
    items = [
        Entry(Place("prose", "", line=line), text.strip().lstrip("-*+ ").strip())
        for line, text in sorted(section.prose_lines())
        if line in section.prose_items and text is not None
    ]
    held = [Entry(Place("memory-after", i["key"]), i["text"]) for i in section.memory["instructions"]]
    return Comparison(tuple(items), tuple(held), bounded=False)


def _of_edit(
    edit: Mapping[str, Any], held: Mapping[str, Held], prose: Iterable[tuple[int, str]], *, admitted: bool
) -> Comparison:
    """Each ``add`` or ``replace`` of ``edit`` (``admitted``: only those memory holds as it wrote
    them, the memory's own) against memory under the keys it does not touch and the prose's rules."""
    ops = edit.get("operations") or ()
    touched = frozenset(op.get("key") for op in ops)
    scope = parse_scope(edit.get("scope"))
    subjects = []
    for op in ops:
        if op.get("action") not in ("add", "replace"):
            continue
        key, text = op["key"], op["text"]
        if admitted and (key not in held or held[key].text != text):
            continue
        where = "memory-after" if admitted else "proposal"  # what the write holds, or what it would add
        subjects.append(Entry(Place(where, key, None, op["action"]), text, scope, touched))
    memory = [Entry(Place("memory", k), held[k].text, origin=held[k].origin) for k in sorted(held)]
    return Comparison(tuple(subjects), (*memory, *_rules(prose)), bounded=False)


def _by_key(instructions: Iterable[Instruction]) -> list[Instruction]:
    return sorted(instructions, key=lambda i: i.key)


def _applicable(bundle: Bundle) -> list[Entry]:
    return [Entry(Place("instructions", i.key), i.text, i.scope) for i in _by_key(bundle.applicable)]


def _rules(prose: Iterable[tuple[int, str]]) -> list[Entry]:
    """The rules of a Markdown memory's prose, which an agent reads as it reads memory."""
    return [Entry(Place("prose", "", line=line), text, origin="user") for line, text in prose]
