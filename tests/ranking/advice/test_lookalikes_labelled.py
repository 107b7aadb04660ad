"""The look-alike measure on its labelled set (tests/data/lookalikes.jsonl): a change to the
measure (stop words, folding, threshold, scorer) that lowers the precision or the recall
docs/lookalikes.md reports fails here. Raise the figures in the doc and here together."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from ranking.advice.lookalikes import resemblance
from tests.conftest import REPO

PAIRS = [json.loads(line) for line in (REPO / "tests" / "data" / "lookalikes.jsonl").read_text("utf-8").splitlines()]

#: docs/lookalikes.md: 50 of the 57 look-alikes found, 1 false alarm among the 38 unrelated pairs.
PRECISION = Fraction(50, 51)
RECALL = Fraction(50, 57)


def _counts() -> tuple[int, int, int]:
    found = [(p["label"] != "unrelated", resemblance(p["a"], p["b"]) is not None) for p in PAIRS]
    hits = sum(1 for wanted, got in found if wanted and got)
    false_alarms = sum(1 for wanted, got in found if got and not wanted)
    missed = sum(1 for wanted, got in found if wanted and not got)
    return hits, false_alarms, missed


def test_the_labelled_set_is_what_its_readme_says() -> None:
    labels = [p["label"] for p in PAIRS]
    assert len(PAIRS) == 95
    assert (labels.count("duplicate"), labels.count("contradiction"), labels.count("unrelated")) == (34, 23, 38)
    assert len({(p["a"], p["b"]) for p in PAIRS}) == len(PAIRS)


def test_the_measure_keeps_the_precision_the_docs_report() -> None:
    hits, false_alarms, _ = _counts()
    assert Fraction(hits, hits + false_alarms) >= PRECISION


def test_the_measure_keeps_the_recall_the_docs_report() -> None:
    hits, _, missed = _counts()
    assert Fraction(hits, hits + missed) >= RECALL


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p['label']}: {p['a'][:40]}")
def test_a_pair_is_a_look_alike_the_same_whichever_text_comes_first(pair: dict[str, str]) -> None:
    assert (resemblance(pair["a"], pair["b"]) is None) == (resemblance(pair["b"], pair["a"]) is None)
