"""The local process engine: this process scores too, and results and errors keep input order."""

from __future__ import annotations

import itertools
import os
from functools import partial

import pytest

from curator_io.errors import ConfigError
from ranking.running.engines import ProcessEngine, next_chunk_size


def scored_by(i: int) -> tuple[int, int]:
    return i, os.getpid()


def fails_at(i: int, *, bad: int) -> int:
    if i == bad:
        raise ConfigError("usage.unwritable", f"cannot write item {i}")
    return i


def test_with_two_workers_this_process_and_one_pool_process_each_score_some_chunks() -> None:
    results = list(ProcessEngine(2, chunk_size=2).map(scored_by, range(200)))

    assert [i for i, _ in results] == list(range(200))
    pids = {pid for _, pid in results}
    assert len(pids) == 2
    assert os.getpid() in pids


@pytest.mark.parametrize("bad", [0, 5, 41])
def test_an_error_is_raised_in_its_turn_after_every_earlier_chunk_whoever_scored_it(bad: int) -> None:
    # The first chunks always go to the pool; later ones are mostly scored here.
    got: list[int] = []
    # The loop sits inside raises on purpose: it keeps what came before the error.
    with pytest.raises(ConfigError, match=rf"^usage\.unwritable: cannot write item {bad}$") as raised:  # noqa: PT012
        for result in ProcessEngine(2, chunk_size=2, adapt=False).map(partial(fails_at, bad=bad), range(60)):
            got.append(result)

    assert got == list(range(bad - bad % 2))  # a chunk fails as a whole
    assert raised.value.code == "usage.unwritable"


def test_a_process_engine_needs_a_second_worker() -> None:
    with pytest.raises(ValueError, match="at least 2 workers, got 1"):
        ProcessEngine(1)


def test_the_process_engine_keeps_order_and_pulls_a_bounded_number_of_items_ahead() -> None:
    pulled: list[int] = []

    def endless():
        for i in itertools.count(1):
            pulled.append(i)
            yield -i

    engine = ProcessEngine(2, chunk_size=3, queued_per_worker=2, adapt=False)
    results = engine.map(abs, endless())
    first = list(itertools.islice(results, 10))
    results.close()

    assert first == list(range(1, 11))
    assert len(pulled) <= 10 + (engine.window + 1) * engine.chunk_size


@pytest.mark.parametrize(
    ("seconds_per_item", "size"),
    [(0.0025, 8), (0.0002, 64), (0.0, 64), (0.05, 1), (3.0, 1), (0.004, 5)],
)
def test_a_chunk_holds_about_twenty_milliseconds_of_work_between_one_and_sixty_four_items(
    seconds_per_item: float, size: int
) -> None:
    assert next_chunk_size(seconds_per_item) == size


def test_chunks_sized_from_this_process_keep_every_result_in_order() -> None:
    results = list(ProcessEngine(2, chunk_size=1).map(scored_by, range(500)))

    assert [i for i, _ in results] == list(range(500))
    assert os.getpid() in {pid for _, pid in results}
