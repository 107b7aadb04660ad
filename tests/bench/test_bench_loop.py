"""bench/loop.py: the simulated curator loop of issue 47 meets its targets with today's notes,
and shows what the notes before it lost."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import loop


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, loop.Outcome]:
    return {
        name: loop.run(policy, Path(tmp_path_factory.mktemp(name)))
        for name, policy in (("before", loop.old_notes), ("now", loop.new_notes))
    }


def test_todays_notes_admit_every_good_edit_waste_nothing_and_stay_within_the_budget(outcomes) -> None:
    now = outcomes["now"]
    good = {i.name for i in loop.WORLD if i.good}

    assert set(now.admitted) == good
    assert now.admitted["orders-wait"] == 4  # the unlucky deferral, the day another task showed it
    assert (now.waste, now.against_memory) == (0, 0)
    assert max(now.prompt_bytes) <= loop.DEFAULT_BUDGET.prompt_bytes
    assert max(now.notes) <= loop.DEFAULT_BUDGET.notes


def test_the_notes_before_lost_the_deferred_edits_and_told_the_curator_not_to_propose_its_memory(outcomes) -> None:
    before = outcomes["before"]

    assert "orders-wait" not in before.admitted and "env-vars" not in before.admitted
    assert before.against_memory > 0
