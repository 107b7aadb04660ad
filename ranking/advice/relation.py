"""Whether a look-alike restates the other text or contradicts it (issue 53; docs/lookalikes.md,
"Restates or contradicts").

The rule reads each text's *stance* towards its words, by the words around them, never by what
they mean:

1. The text is cut into segments at ``;``, ``,``, ``!``, ``?``, brackets, and at ``.`` or ``:``
   that end a sentence (not the dot of ``pyproject.toml``), and again before ``instead of``,
   ``rather than`` and, in a segment that says ``prefer``, ``over``.
2. A segment is *negative* when it holds an odd number of negations (:data:`NEGATIONS`:
   ``never``, ``not``, ``no``, ``don't``, ``avoid``, ``disable``, ``without`` ...: "never
   disable" and "do not add ... without asking" are positive); the part after ``instead of``,
   ``rather than`` or ``prefer ... over`` has the other stance of its segment, up to a
   preposition or a conjunction (``for``, ``in``, ``when`` ...: "X instead of Y for Z" turns
   ``Y`` alone).
3. A word the text holds only in positive segments is one it *requires*; only in negative ones,
   one it *rejects*; in both, neither.
4. ``a`` **contradicts** ``b`` when one rejects a word the other requires ("ONLY use uv, NEVER
   pip" requires ``uv``; "Install ... with pip instead of uv" rejects it); otherwise it
   **restates** it.

Words are those of :mod:`ranking.advice.words` (stems, stop words left out). The rule is
symmetric. Its limits (docs/lookalikes.md): it sees negation words, not meaning, so a
contradiction stated by an antonym it does not list ("Use tabs." / "Use spaces.") or by a number
("Keep lines under 80." / "... under 120.") is a restatement to it, and a duplicate that rejects
one of the other's words in passing is a contradiction to it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ranking.advice.words import STOP_WORDS, plain_text, stem, tokens_of

__all__ = ["CONTRADICTS", "RESTATES", "NEGATIONS", "Stance", "relation", "stance"]

RESTATES = "restates"
CONTRADICTS = "contradicts"

#: Words that turn a segment's stance (step 2); ``don`` is what is left of ``don't``.
NEGATIONS = frozenset(
    "never not no nor don dont doesn doesnt isn isnt shouldn mustn avoid disable forbid forbidden "
    "prohibited disallowed without".split()
)
#: Words after which a segment's stance turns (step 1): ``X instead of Y``, ``X rather than Y``.
_TURNS = (("instead", "of"), ("rather", "than"))

#: Words that end what a turn rejects: "instead of uv *for* installs" rejects ``uv`` alone.
_TURN_ENDS = frozenset("for in on at to by with when while because so if unless from into".split())

# Step 1: a dot or a colon ends a sentence only before a space or the end.
_SEGMENT = re.compile(r"[;,!?()\[\]\n]|[.:](?=\s|$)")


class Stance(NamedTuple):
    """Steps 1-3 for one text: the words it requires, and those it rejects."""

    required: frozenset[str]
    rejected: frozenset[str]


def relation(a: str | Stance, b: str | Stance) -> str:
    """:data:`CONTRADICTS` when one of ``a`` and ``b`` rejects a word the other requires; else
    :data:`RESTATES` (steps 1-4 of this module's docstring). Each is a text, or its
    :func:`stance` when the caller compares one text with several."""
    sa = a if isinstance(a, Stance) else stance(a)
    sb = b if isinstance(b, Stance) else stance(b)
    if sa.required & sb.rejected or sa.rejected & sb.required:
        return CONTRADICTS
    return RESTATES


def stance(text: str) -> Stance:
    """Steps 1-3: the words ``text`` requires, and those it rejects."""
    positive: set[str] = set()
    negative: set[str] = set()
    for segment in _SEGMENT.split(plain_text(text)):
        for words, negated in _parts(tokens_of(segment)):
            for word in words:
                if len(word) > 1 and word not in STOP_WORDS and word not in NEGATIONS:
                    (negative if negated else positive).add(stem(word))
    return Stance(frozenset(positive - negative), frozenset(negative - positive))


def _parts(tokens: list[str]) -> list[tuple[list[str], bool]]:
    """Step 1's second cut and step 2: the segment's words before a turn, and after it, each with
    whether it is negative."""
    negated = sum(1 for t in tokens if t in NEGATIONS) % 2 == 1
    turn = _turn(tokens)
    if turn is None:
        return [(tokens, negated)]
    at, width = turn
    after = tokens[at + width :]
    end = next((i for i, t in enumerate(after) if t in _TURN_ENDS), len(after))
    return [(tokens[:at] + after[end:], negated), (after[:end], not negated)]


def _turn(tokens: list[str]) -> tuple[int, int] | None:
    """Where the segment turns, and how many words say so; None when it does not."""
    for i in range(len(tokens) - 1):
        if (tokens[i], tokens[i + 1]) in _TURNS:
            return i, 2
    if "prefer" in tokens and "over" in tokens[tokens.index("prefer") :]:
        return tokens.index("over", tokens.index("prefer")), 1
    return None
