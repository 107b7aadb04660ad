"""The prose-reviewed label, bound to the head commit it was given for (``gate --prose-reviewed-label``):
counted only on the run the giving of it started."""

from __future__ import annotations

import pytest

from curator_io.errors import ConfigError
from ranking.checking.review_label import label_decision


def _event(action: str, label: str | None, labels: list[str]) -> dict:
    event: dict = {
        "action": action,
        "pull_request": {"head": {"sha": "b" * 40}, "labels": [{"name": n} for n in labels]},
    }
    if label is not None:
        event["label"] = {"name": label}
    return event


@pytest.mark.parametrize(
    ("event", "allowed", "line"),
    [
        (_event("labeled", "ok", ["ok"]), True, "the 'ok' label was given for head bbbbbbbbbbbb by this run's event"),
        (_event("synchronize", None, ["ok"]), False, "this run ('synchronize') was not started by giving it"),
        (_event("reopened", None, ["ok"]), False, "this run ('reopened') was not started by giving it"),
        (_event("labeled", "other", ["ok", "other"]), False, "this run ('labeled') was not started by giving it"),
        (_event("opened", None, []), False, None),
    ],
)
def test_the_label_counts_only_on_the_run_its_giving_started(event: dict, allowed: bool, line: str | None) -> None:
    decision = label_decision(event, "ok")
    assert decision.allowed is allowed
    assert (decision.line is None) if line is None else (line in (decision.line or ""))


def test_an_event_with_no_head_sha_is_refused_naming_the_member() -> None:
    with pytest.raises(ConfigError, match="/pull_request/head/sha is missing or not a string"):
        label_decision({"action": "labeled", "pull_request": {"head": {}, "labels": []}}, "ok")
