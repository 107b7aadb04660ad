"""An instruction's words, as look-alikes compare them (docs/lookalikes.md, "The measure", step 1).

A *word* here is what is left of a text once it has been read the way a person reads it:

1. SPEC §0's ``norm``, then :func:`ranking.advice.folding.fold` (invisible characters removed,
   confusable letters folded, case folded);
2. a host's own labels removed: ACE writes ``Keywords:``, ``Issue:`` and ``Insight:`` into every
   skill, so they tell no two skills apart (:data:`HOST_LABELS`, only followed by a colon);
3. letters and digits (a regular expression's word characters but ``_``), the rest spaces, as
   ``rapidfuzz.utils.default_process`` makes them (written here: finding the words imports no
   rapidfuzz, which a text is scored by only when it shares words with another);
4. a few abbreviations spelled out (:data:`ABBREVIATIONS`: ``pr`` is ``pull request``);
5. stop words and one-letter words left out (:data:`STOP_WORDS`);
6. each word cut to its stem (:func:`stem`), each stem once, in the text's order.

Pure: the same text gives the same words on every machine.
"""

from __future__ import annotations

import re

from ranking.advice.folding import fold
from validator import norm

__all__ = ["ABBREVIATIONS", "HOST_LABELS", "STOP_WORDS", "plain_text", "stem", "tokens_of", "words_of"]

#: Labels a host writes into every instruction; only as a label (followed by ``:``) are they left out.
HOST_LABELS = ("keywords", "issue", "insight")
_NOT_A_WORD = re.compile(r"[\W_]+")
_LABEL = re.compile(r"\b(?:" + "|".join(HOST_LABELS) + r")\s*:")

#: Short forms and what they stand for, word by word.
ABBREVIATIONS = {
    "pr": "pull request",
    "prs": "pull request",
    "cli": "command line",
    "img": "image",
    "repo": "repository",
    "repos": "repository",
    "deps": "dependency",
    "config": "configuration",
    "db": "database",
    "env": "environment",
    "k8s": "kubernetes",
    "doc": "documentation",
    "docs": "documentation",
    "auth": "authentication",
}

# Function words, negations, modals and quantifiers, and the imperative verbs nearly every
# instruction opens with: none tells two subjects apart, and a contradiction ("Never run bare
# pytest") differs from what it contradicts ("Run the tests with pytest") by exactly these.
STOP_WORDS = frozenset(
    """
    a an the and or but if then than so as at by for from in into of on onto to with without within
    is are be been being was were it its this that these those there here which who whom whose what
    when where why how i you your we our they them their he she his her me my us
    do does did doing done don dont not no never nor always only also too very just even still
    must should shall may might can could would will need needs needed
    any all every each some other another more most such same own
    before after first again once instead rather via per
    use uses using used run runs running
    """.split()
)


def stem(word: str) -> str:
    """Step 6, a light stemmer: a plural (``ies`` is ``y``; an ``s``, not ``ss``), then ``ing``,
    ``ed`` and ``er`` in turn (a doubled consonant left by one undone: ``committing`` is
    ``commit``; ``er`` twice: ``answering`` is ``answ`` as ``answer`` is), then a final ``e``;
    each only where three letters remain (four for the plural and ``e``)."""
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    for suffix in ("ing", "ed", "er", "er"):  # twice "er": "answering" is "answer", then "answ"
        if len(word) - len(suffix) >= 3 and word.endswith(suffix):
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeioulsz":
                word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def plain_text(text: str) -> str:
    """Steps 1-2: the text folded, without its host's labels."""
    return _LABEL.sub(" ", fold(norm(text)))


def tokens_of(text: str) -> list[str]:
    """Steps 1-4: every word of the text in order, stop words and all."""
    plain = plain_text(text)
    return " ".join(ABBREVIATIONS.get(w, w) for w in _NOT_A_WORD.sub(" ", plain).split()).split()


def words_of(text: str, most: int | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Steps 1-6: the stems compared (each once, in the text's order; the first ``most`` of them
    when given) and how the text writes each."""
    stems: dict[str, str] = {}
    for word in tokens_of(text):
        if most is not None and len(stems) >= most:
            break
        if len(word) < 2 or word in STOP_WORDS:
            continue
        stems.setdefault(stem(word), word)
    return tuple(stems), tuple(stems.values())
