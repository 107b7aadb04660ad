"""Look-alikes across keys: which instruction texts resemble one under another key (issue 50).

SPEC identifies an instruction by its key: ``instruction.duplicate`` (§3.4) catches the same
``norm`` text under another key, and conflicts (§5.3) are found by key. A curator that picks a
new key for a reworded copy, or for a rule that contradicts one in memory, passes both. This
module tells a reviewer so, with the evidence: which two texts, under which keys, how alike,
and the words they share. It is advice, computed beside the reports: no decision, report or
digest reads it.

The measure, chosen on ``tests/data/lookalikes_tuning.jsonl`` and ``lookalikes.jsonl``
(docs/lookalikes.md has its precision and recall on a held-out set, and what it cannot see):

1. A text's words (:mod:`ranking.advice.words`): the text as a reader sees it (invisible
   characters removed, confusable letters folded), without a host's labels, stop words and
   one-letter words left out, each cut to its stem. The stop words include negations and
   modals (a contradiction differs from its subject by exactly those) and the verbs every
   instruction starts with (use, run).
2. Two texts are candidates when they share at least :data:`MIN_SHARED` words, or two when
   neither has more than :data:`SHORT` (a short rule is not "resembled" by every text holding
   its two words), or one when each has that one alone: an index from word to text, so a text
   is only scored against the texts it shares words with, never against the whole memory.
3. A candidate is a look-alike when ``rapidfuzz.fuzz.token_set_ratio`` of the two word lists
   is at least :data:`THRESHOLD` (the score is 100 when one's words are all the other's);
   rapidfuzz is imported only when there is a candidate to score.
4. The bounds: a word many texts hold brings at most :data:`WIDEST` of them as candidates, a
   text is scored against at most :data:`CANDIDATES`, only its first :data:`MOST_WORDS`
   words are compared; at most :data:`PER_TEXT` look-alikes are kept for one text and
   :data:`IN_ALL` in all, and the result says how many more it found (``left_out``). So the
   cost is linear in the number of texts, and so is nothing printed.

Each look-alike says whether it restates the other text or contradicts it
(:func:`ranking.advice.relation.relation`).

Where it looks, for each ``add`` or ``replace`` text of a structurally complete proposal: the
bundle's memory (any scope, as §3.4; not the keys the proposal itself edits), the applicable
``instructions`` whose scope contains the proposal's (as §3.4), and the other proposals'
``add`` and ``replace`` texts. With ``written`` (the gate's memory-after): for each
instruction written that the bundle's memory does not hold as it is, the other instructions
written and the applicable ones. Never under the same key: SPEC already judges that.

Pure and deterministic: the same bundle gives the same look-alikes, in the same order, for any
order of its arrays (the results are sorted; an incomplete proposal, reported under its
position, is left out).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import Any

from curator_io.models import Bundle, Instruction, Scope
from ranking.advice.lookalike_model import Lookalike, Lookalikes, Place
from ranking.advice.relation import Stance, relation, stance
from ranking.advice.words import words_of
from validator import Proposal, proposals_of

__all__ = [
    "THRESHOLD",
    "MIN_SHARED",
    "SHORT",
    "PER_TEXT",
    "IN_ALL",
    "WIDEST",
    "CANDIDATES",
    "MOST_WORDS",
    "Place",
    "Lookalike",
    "Lookalikes",
    "find_lookalikes",
    "resemblance",
]

#: The least ``token_set_ratio`` (0-100) of a look-alike: the best F0.5 on the tuning set.
THRESHOLD = 80
#: The least number of words two texts share to be compared at all: three, or two when
#: neither text has more than :data:`SHORT` words, or one when each has that one alone.
MIN_SHARED = 3
SHORT = 5
#: At most this many look-alikes of one text are kept (the closest), and this many in all.
PER_TEXT = 5
IN_ALL = 200
#: A word that this many texts hold brings only the first of them (in the order of
#: :data:`WHERE`, then key) as candidates; and a text is scored against at most
#: :data:`CANDIDATES` of its candidates, those that share the most words with it.
WIDEST = 32
CANDIDATES = 16
#: Only a text's first this many words (distinct stems) are compared: a text of a megabyte costs
#: what a long instruction does.
MOST_WORDS = 256


def resemblance(a: str, b: str) -> tuple[float, tuple[str, ...]] | None:
    """Steps 1-3 for one pair of texts: (score, shared words as ``a`` writes them), or None
    when they are not look-alikes."""
    return _Text.of(a).resembles(_Text.of(b))


@dataclass(frozen=True, slots=True)
class _Text:
    text: str
    stems: tuple[str, ...]
    surface: tuple[str, ...]
    joined: str

    @classmethod
    def of(cls, text: str) -> _Text:
        stems, surface = words_of(text, MOST_WORDS)
        return cls(text, stems, surface, " ".join(stems))

    def candidate(self, other: _Text, shared: int) -> bool:
        """Step 2: enough words in common (``shared``) to be scored at all."""
        longest = max(len(self.stems), len(other.stems))
        if longest == 1:
            return shared == 1
        return shared >= MIN_SHARED or (shared == 2 and longest <= SHORT)

    def shared_words(self, other: _Text) -> tuple[str, ...]:
        theirs = set(other.stems)
        return tuple(w for s, w in zip(self.stems, self.surface, strict=True) if s in theirs)

    def resembles(self, other: _Text) -> tuple[float, tuple[str, ...]] | None:
        """Steps 2 and 3 for one pair."""
        words = self.shared_words(other)
        if not words or not self.candidate(other, len(words)):
            return None
        from rapidfuzz import fuzz  # only once two texts share enough words to be scored

        score = fuzz.token_set_ratio(self.joined, other.joined, score_cutoff=THRESHOLD)
        return None if score < THRESHOLD else (round(score, 1), words)  # below the cutoff rapidfuzz says 0


@dataclass(frozen=True, slots=True)
class _Entry:
    place: Place
    text: _Text
    scope: Scope | None
    """For an applicable instruction: only a subject within it is compared with it (§3.4)."""
    excluded: frozenset[str] = frozenset()
    """For a subject: keys whose memory instructions it is not compared with (those its proposal edits)."""


def find_lookalikes(
    bundle: Bundle,
    *,
    proposals: Collection[str] | None = None,
    against: Collection[str] | None = None,
    written: Mapping[str, Any] | None = None,
    checked: Mapping[str, Proposal] | None = None,
    prose: Iterable[tuple[int, str]] = (),
) -> Lookalikes:
    """Every look-alike in ``bundle``, by the steps in this module's docstring, sorted by
    subject, then the closest first, within the bounds (step 4): the tuple says how many it
    left out.

    ``proposals``: only the operations of these proposals (by id) are subjects. ``against``:
    only these proposals' texts are compared with (besides memory and the applicable
    instructions); None, every proposal's. ``score`` and the run view pass the selected ones
    for both, what the write will hold, so that the work does not grow with the bundle.
    ``written``: a memory object (the gate's
    memory-after, already checked to be one): its instructions the bundle's memory does not
    hold as they are are the subjects, compared with the rest of it and the applicable
    instructions; the proposals are not read. ``checked``: the bundle's structurally complete
    proposals by id, when the caller has them (:func:`validator.proposals_of`, or a validation's
    entries), so that they are not checked again. ``prose``: (line, text) of the rules a Markdown
    memory's prose holds (``MarkdownMemory.prose_rules``), compared with as memory is."""
    texts: dict[str, _Text] = {}

    def text_of(s: str) -> _Text:
        found = texts.get(s)
        if found is None:
            found = texts[s] = _Text.of(s)
        return found

    applicable = [
        _Entry(Place("instructions", i.key), text_of(i.text), i.scope) for i in sorted(bundle.applicable, key=_by_key)
    ]
    if written is not None:
        subjects, pool = _written(bundle, written, text_of)
    else:
        memory = [
            _Entry(Place("memory", i.key), text_of(i.text), None)
            for i in sorted(bundle.memory_instructions.values(), key=_by_key)
        ]
        complete = proposals_of(bundle) if checked is None else checked
        subjects, edits = _proposed(complete, proposals, against, text_of)
        pool = memory + edits
    rules = [_Entry(Place("prose", "", line=line), text_of(text), None) for line, text in prose]
    return _match(subjects, pool + applicable + rules)


def _by_key(instruction: Instruction) -> str:
    return instruction.key


def _proposed(
    complete: Mapping[str, Proposal],
    only: Collection[str] | None,
    against: Collection[str] | None,
    text_of: Callable[[str], _Text],
) -> tuple[list[_Entry], list[_Entry]]:
    """The subjects, and the proposals' texts they are compared with (``against``, and the subjects)."""
    edits = []
    for pid, p in sorted(complete.items()):
        if only is not None and against is not None and pid not in only and pid not in against:
            continue  # neither a subject nor compared with: not even read
        keys = frozenset(op.key for op in p.operations)
        for op in p.operations:
            if op.text is not None:  # add and replace
                place = Place("proposal", op.key, pid, op.action)
                edits.append(_Entry(place, text_of(op.text), p.scope, keys))
    subjects = edits if only is None else [e for e in edits if e.place.proposal in only]
    pool = edits if against is None else [e for e in edits if e.place.proposal in against]
    return subjects, pool


def _written(
    bundle: Bundle, written: Mapping[str, Any], text_of: Callable[[str], _Text]
) -> tuple[list[_Entry], list[_Entry]]:
    before = bundle.memory_instructions
    kept: dict[str, _Entry] = {}
    subjects = []
    for inst in written.get("instructions", ()):
        key, text = inst.get("key"), inst.get("text")
        if type(key) is not str or type(text) is not str or key in kept:
            continue  # not an instruction to compare (the gate's findings say what is wrong with it)
        action = "add" if key not in before else "replace" if before[key].text != text else None
        entry = _Entry(Place("memory-after", key, None, action), text_of(text), _scope_of(inst.get("scope")))
        kept[key] = entry
        if action is not None:
            subjects.append(entry)
    return sorted(subjects, key=lambda e: e.place.key), [kept[k] for k in sorted(kept)]


def _scope_of(raw: Any) -> Scope | None:
    """A written instruction's scope, when it is one (SPEC §1); else None, compared with global instructions only."""
    if type(raw) is not dict:
        return None
    level, repository, path = raw.get("level"), raw.get("repository"), raw.get("path")
    if level == "global" and raw.keys() == {"level"}:
        return Scope("global")
    if level == "repository" and type(repository) is str and raw.keys() == {"level", "repository"}:
        return Scope("repository", repository)
    if level == "path" and type(repository) is str and type(path) is str and len(raw) == 3:
        return Scope("path", repository, path)
    return None


def _match(subjects: Iterable[_Entry], pool: list[_Entry]) -> Lookalikes:
    """Step 2 then 3: each subject against the texts it shares words with, then the bounds."""
    index: dict[str, list[int]] = {}
    for i, entry in enumerate(pool):
        for stem in entry.text.stems:
            at = index.setdefault(stem, [])
            if len(at) < WIDEST:  # the bound on a word many texts hold
                at.append(i)
    kept: list[Lookalike] = []
    left_out = 0
    stances: dict[str, Stance] = {}  # a text kept as a look-alike of several is read once
    for subject in subjects:
        scored = _scored(subject, pool, index)
        left_out += len(scored[PER_TEXT:])
        for score, other in scored[:PER_TEXT]:  # words and relation only for what is kept
            words = subject.text.shared_words(other.text)
            kind = relation(_stance(subject.text.text, stances), _stance(other.text.text, stances))
            kept.append(Lookalike(subject.place, other.place, score, words, subject.text.text, other.text.text, kind))
    kept.sort(key=Lookalike._order)
    return Lookalikes(kept[:IN_ALL], left_out + len(kept[IN_ALL:]))


def _scored(subject: _Entry, pool: list[_Entry], index: Mapping[str, list[int]]) -> list[tuple[float, _Entry]]:
    """One subject's look-alikes as (score, the other), the closest first."""
    shared = Counter(i for stem in subject.text.stems for i in index.get(stem, ()))
    ranked = sorted(shared.items(), key=lambda item: (-item[1], item[0]))
    candidates = list(
        islice(
            (pool[i] for i, n in ranked if subject.text.candidate(pool[i].text, n) and _comparable(subject, pool[i])),
            CANDIDATES,
        )
    )
    if not candidates:
        return []
    from rapidfuzz import fuzz, process  # only once two texts share enough words to be scored

    # Step 3 for all its candidates at once, in rapidfuzz's own loop.
    scored = process.extract(
        subject.text.joined,
        [c.text.joined for c in candidates],
        scorer=fuzz.token_set_ratio,
        score_cutoff=THRESHOLD,
        limit=None,
    )
    found = [(round(score, 1), candidates[at]) for _, score, at in scored]
    return sorted(found, key=lambda f: (-f[0], f[1].place._order(), f[1].text.text))


def _stance(text: str, known: dict[str, Stance]) -> Stance:
    found = known.get(text)
    if found is None:
        found = known[text] = stance(text)
    return found


def _comparable(subject: _Entry, other: _Entry) -> bool:
    s, o = subject.place, other.place
    if o.key == s.key or (o.where == "proposal" and o.proposal == s.proposal):
        return False  # SPEC judges one key (§3.4, §5.3); a proposal's own operations are §3.4's
    if o.where == "memory" and o.key in subject.excluded:
        return False  # the proposal edits that instruction itself
    if o.where == "instructions":
        # §3.4: an applicable instruction counts where its scope contains the subject's.
        # A written instruction whose scope is not one is within a global instruction only.
        assert other.scope is not None  # Cannot fail: applicable instructions have a checked scope.
        return other.scope.contains(subject.scope) if subject.scope is not None else other.scope.is_broad
    return True
