"""The label a maintainer gives a pull request once a person has read its prose change
(``gate --prose-reviewed-label NAME``, docs/gate-your-agents-md.md), bound to the head commit it
was given for.

GitHub keeps a label on a pull request across pushes, so "the pull request has the label" would
let a commit pushed after the review through unread. A run counts the label only when the run
was started by giving it: the event of a ``pull_request`` workflow (``$GITHUB_EVENT_PATH``) is
``labeled``, for this label, and names the head commit the workflow checked out. A later push
starts a ``synchronize`` run, which does not count it: the label must be given again for the new
head (a workflow may remove it on ``synchronize`` so that the page shows as much).

Pure: the event's parsed JSON in, the decision and a line that says it out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from curator_io.errors import ConfigError

__all__ = ["LabelDecision", "label_decision"]


@dataclass(frozen=True, slots=True)
class LabelDecision:
    """Whether this run may accept the prose changes, and why, in a line for the log."""

    allowed: bool
    line: str | None
    """None when the pull request does not carry the label: there is nothing to explain."""


def label_decision(event: Any, label: str) -> LabelDecision:
    """Whether ``event`` (a ``pull_request`` event) is the giving of ``label`` to the head the run gates.

    Raises ``usage.invalid_option`` for an event that is not a pull request's, naming the member."""
    pull = _member(event, "pull_request", Mapping, "/pull_request")
    head = _member(_member(pull, "head", Mapping, "/pull_request/head"), "sha", str, "/pull_request/head/sha")
    names = [
        _member(item, "name", str, f"/pull_request/labels/{i}/name")
        for i, item in enumerate(_member(pull, "labels", list, "/pull_request/labels"))
    ]
    action = _member(event, "action", str, "/action")
    given = event.get("label")
    if action == "labeled" and isinstance(given, Mapping) and given.get("name") == label:
        why = f"the {label!r} label was given for head {head[:12]} by this run's event: its prose changes are accepted"
        return LabelDecision(True, why)
    if label not in names:
        return LabelDecision(False, None)
    return LabelDecision(
        False,
        f"the {label!r} label is on the pull request, but this run ({action!r}) was not started by giving it, so it "
        f"was given for an earlier head: read the prose of head {head[:12]} and give the label again",
    )


def _member(value: Any, name: str, kind: type, pointer: str) -> Any:
    found = value.get(name) if isinstance(value, Mapping) else None
    if not isinstance(found, kind):
        raise ConfigError(
            "usage.invalid_option",
            f"--prose-reviewed-label reads a pull_request event ($GITHUB_EVENT_PATH): {pointer} is missing or not "
            f"{'an object' if kind is Mapping else 'a list' if kind is list else 'a string'}",
        )
    return found
