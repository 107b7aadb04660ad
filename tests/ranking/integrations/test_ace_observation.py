"""What the caller's ``observe`` returns is refused where it returns it (no ace-framework needed)."""

from __future__ import annotations

import pytest

from curator_io.grammar import is_id
from ranking.integrations.ace_bundle import Observation, lineage_id


def test_an_observation_at_a_time_that_is_not_a_timestamp_is_refused_where_it_is_made() -> None:
    with pytest.raises(ValueError, match=r"^observed_at must be a TIMESTAMP .*'yesterday'$"):
        Observation("task-1", observed_at="yesterday")


def test_an_observation_with_a_signal_spec_does_not_weigh_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^signal must be one of user, deterministic, .*'checked'$"):
        Observation("task-1", signal="checked")


@pytest.mark.parametrize("lineage", ["task-1", "Fix the login page (#12)", "x" * 65, "cut \ud83d"])
def test_any_lineage_text_is_written_as_an_id_and_an_id_as_itself(lineage: str) -> None:
    written = lineage_id(lineage)
    assert is_id(written)
    assert (written == lineage) == (is_id(lineage) and len(lineage) <= 64)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"lineage": 7}, "Observation.lineage must be a str, not int: 7"),
        ({"lineage": b"task-1"}, "Observation.lineage must be a str, not bytes: b'task-1'"),
        ({"lineage": "task-1", "summary": None}, "Observation.summary must be a str, not NoneType: None"),
        ({"lineage": "task-1", "signal": None}, "Observation.signal must be a str, not NoneType: None"),
        ({"lineage": "task-1", "observed_at": 0}, "Observation.observed_at must be a str, not int: 0"),
    ],
)
def test_an_observation_of_the_wrong_type_is_refused_where_it_is_made(given: dict, message: str) -> None:
    with pytest.raises(TypeError) as refused:
        Observation(**given)

    assert str(refused.value) == message
