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

Which texts are compared with which, for each command that shows look-alikes, is
:func:`ranking.advice.comparisons.choose`'s (a report, an explanation (``explain``), a gate, a memory's prose,
the notes): :func:`lookalikes_for` asks it, then measures what it chose. Never under the same
key: SPEC already judges that.

Pure and deterministic: the same bundle gives the same look-alikes, in the same order, for any
order of its arrays (the results are sorted; an incomplete proposal, reported under its
position, is left out).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import Any

from curator_io.models import Bundle
from ranking.advice.comparisons import Comparison, Entry, Use, choose, of_proposals, of_written
from ranking.advice.lookalike_model import Lookalike, Lookalikes, Place
from ranking.advice.relation import Stance, relation, stance
from ranking.advice.words import words_of
from validator import Proposal

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
    "lookalikes_for",
    "match",
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
    instructions); None, every proposal's. ``written``: a memory object (the gate's
    memory-after, already checked to be one): its instructions the bundle's memory does not
    hold as they are are the subjects, compared with the rest of it and the applicable
    instructions; the proposals are not read. ``checked``: the bundle's structurally complete
    proposals by id, when the caller has them (:func:`validator.proposals_of`, or a validation's
    entries), so that they are not checked again. ``prose``: (line, text) of the rules a Markdown
    memory's prose holds (``MarkdownMemory.prose_rules``), compared with as memory is.

    Which texts each command compares is :func:`ranking.advice.comparisons.choose`'s, which
    :func:`lookalikes_for` asks; this is the same chooser's, with its parts given one by one."""
    if written is not None:
        return match(of_written(bundle, written, prose))
    return match(of_proposals(bundle, proposals=proposals, against=against, checked=checked, prose=prose))


def lookalikes_for(use: Use) -> Lookalikes:
    """The look-alikes of ``use``: the texts :func:`~ranking.advice.comparisons.choose` picks,
    measured by steps 1-4."""
    return match(choose(use))


def match(chosen: Comparison) -> Lookalikes:
    """Steps 1-4 on what a chooser picked: each subject against the texts it shares words with,
    then the bounds (none when ``chosen`` is not bounded)."""
    texts: dict[str, _Text] = {}

    def text_of(s: str) -> _Text:
        found = texts.get(s)
        if found is None:
            found = texts[s] = _Text.of(s)
        return found

    pool = [(entry, text_of(entry.text)) for entry in chosen.against]
    subjects = [(entry, text_of(entry.text)) for entry in chosen.subjects]
    return _match(chosen, subjects, pool)


_Chosen = tuple[Entry, _Text]
"""An entry of a comparison, with its text's words."""


def _match(chosen: Comparison, subjects: Iterable[_Chosen], pool: list[_Chosen]) -> Lookalikes:
    """Step 2 then 3: each subject against the texts it shares words with, then the bounds."""
    widest = WIDEST if chosen.bounded else None
    index: dict[str, list[int]] = {}
    for i, (_, text) in enumerate(pool):
        for stem in text.stems:
            at = index.setdefault(stem, [])
            if widest is None or len(at) < widest:  # the bound on a word many texts hold
                at.append(i)
    kept: list[Lookalike] = []
    left_out = 0
    per_text = PER_TEXT if chosen.bounded else None
    stances: dict[str, Stance] = {}  # a text kept as a look-alike of several is read once
    for subject, text in subjects:
        scored = _scored(chosen, (subject, text), pool, index)
        left_out += len(scored[per_text:]) if per_text is not None else 0
        for score, (other, theirs) in scored[:per_text]:  # words and relation only for what is kept
            words = text.shared_words(theirs)
            kind = relation(_stance(text.text, stances), _stance(theirs.text, stances))
            kept.append(Lookalike(subject.place, other.place, score, words, text.text, theirs.text, kind, other.origin))
    kept.sort(key=Lookalike._order)
    if not chosen.bounded:
        return Lookalikes(kept)
    return Lookalikes(kept[:IN_ALL], left_out + len(kept[IN_ALL:]))


def _scored(
    chosen: Comparison, subject: _Chosen, pool: list[_Chosen], index: Mapping[str, list[int]]
) -> list[tuple[float, _Chosen]]:
    """One subject's look-alikes as (score, the other), the closest first."""
    entry, text = subject
    shared = Counter(i for stem in text.stems for i in index.get(stem, ()))
    ranked = sorted(shared.items(), key=lambda item: (-item[1], item[0]))
    comparable = (pool[i] for i, n in ranked if text.candidate(pool[i][1], n) and chosen.compares(entry, pool[i][0]))
    candidates = list(islice(comparable, CANDIDATES if chosen.bounded else None))
    if not candidates:
        return []
    from rapidfuzz import fuzz, process  # only once two texts share enough words to be scored

    # Step 3 for all its candidates at once, in rapidfuzz's own loop.
    scored = process.extract(
        text.joined,
        [theirs.joined for _, theirs in candidates],
        scorer=fuzz.token_set_ratio,
        score_cutoff=THRESHOLD,
        limit=None,
    )
    found = [(round(score, 1), candidates[at]) for _, score, at in scored]
    return sorted(found, key=lambda f: (-f[0], f[1][0].place._order(), f[1][1].text))


def _stance(text: str, known: dict[str, Stance]) -> Stance:
    found = known.get(text)
    if found is None:
        found = known[text] = stance(text)
    return found
