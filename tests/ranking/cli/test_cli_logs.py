"""Decisions are logged one debug event each, and built only when debug events are shown."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
import structlog
from structlog.testing import capture_logs

from ranking.cli import logs
from ranking.cli.common import log_decisions

REPORT = {
    "proposals": [
        {"id": "p-1", "disposition": "selected", "reasons": [{"code": "rank.selected"}], "score": {"final": 71}},
        {"id": "p-2", "disposition": "rejected", "reasons": [{"code": "closure.stale_memory"}]},
    ]
}


class _Untouchable:
    """Proposals that fail the test when anything walks them."""

    def __iter__(self) -> Iterator[Any]:
        raise AssertionError("the proposals were walked with debug off")


@pytest.fixture
def at_level() -> Iterator[Any]:
    saved = structlog.get_config()

    def configure(level: int) -> None:
        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(level))

    yield configure
    structlog.configure(**saved)


def test_with_debug_off_the_decisions_are_not_walked(at_level: Any) -> None:
    at_level(logging.WARNING)
    assert not logs.debug_enabled(logs.get_logger())
    with capture_logs() as events:
        log_decisions({"proposals": _Untouchable()}, bundle="b.json")
    assert events == []


def test_the_quiet_logger_shows_no_debug_event() -> None:
    assert not logs.debug_enabled(logs._QUIET)


def test_with_debug_on_each_decision_is_one_event(at_level: Any) -> None:
    at_level(logging.DEBUG)
    assert logs.debug_enabled(logs.get_logger())
    with capture_logs() as events:
        log_decisions(REPORT, bundle="b.json")
    assert [(e["event"], e["proposal"], e["codes"], e["final"], e["bundle"]) for e in events] == [
        ("decision", "p-1", ["rank.selected"], 71, "b.json"),
        ("decision", "p-2", ["closure.stale_memory"], None, "b.json"),
    ]


def test_a_logger_that_cannot_say_its_level_is_taken_to_show_debug_events() -> None:
    class Unfiltered:  # structlog's stdlib wrapper, say: it filters elsewhere
        def debug(self, event: str, **fields: Any) -> None:
            pass

    assert logs.debug_enabled(Unfiltered())
