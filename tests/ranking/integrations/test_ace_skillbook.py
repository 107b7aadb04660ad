"""A selection written to ACE's live skillbook (``ranking/integrations/ace_skillbook.py``), with
ACE's own ``Skillbook``: the times a written skill carries, as docs/ace.md states them."""

from __future__ import annotations

import pytest

pytest.importorskip("ace", reason="ace-framework needs Python 3.12 or newer: make test runs this in .venv-ace")

from ace import Skillbook

from ranking.integrations.ace_bundle import Edit, Pending, text_of
from ranking.integrations.ace_skillbook import write_selection

pytestmark = pytest.mark.ace

#: The window's latest observation: its bundle's frozen_at.
STAMP = "2026-11-20T08:00:00Z"
BEFORE = "2025-01-01T00:00:00+00:00"


def test_a_skill_the_gate_adds_is_created_at_its_windows_time_and_one_it_updates_keeps_its_own() -> None:
    # docs/ace.md said every skill the gate writes gets the window's time as its created_at.
    live = Skillbook()
    rule = live.add_skill("context", "Read the task twice.", keywords=["reading"], insight="Read the task twice.")
    rule.created_at = rule.updated_at = BEFORE
    staged = live.clone()
    updated = staged.update_skill(rule.id, issue="Read the task twice, slowly.", insight="Read it twice, slowly.")
    added = staged.add_skill("context", "Check the sum.", keywords=["sums"], insight="Check the sum.")
    edits = [
        Edit("replace", rule.id, text_of(updated), "sha256:" + "0" * 64, updated),
        Edit("add", "context.0123456789abcdef", text_of(added), None, added),
    ]
    write_selection(live, [Pending(f"p-{n}", ((None, edit),), 0) for n, edit in enumerate(edits)], STAMP)
    kept = live.get_skill(rule.id)
    assert (kept.issue, kept.created_at, kept.updated_at) == ("Read the task twice, slowly.", BEFORE, STAMP)
    new = live.get_skill("context.0123456789abcdef")
    assert (new.issue, new.created_at, new.updated_at) == ("Check the sum.", STAMP, STAMP)
