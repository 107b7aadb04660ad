"""The admission ledger: every decision about every edit, across runs (docs/ledger.md).

A ledger is a set of sealed ranking reports (SPEC §6) stored whole, with one
row per decision derived from them, plus what an agentdescent acceptance test
did with each selected edit. The model, the commands and what "the same
ledger" means are in docs/ledger.md.

- :mod:`ranking.ledger.records` — decisions and outcomes, derived purely from reports;
- :mod:`ranking.ledger.notes` — history tables, refusal marks, "do not re-propose" lines (pure);
- :mod:`ranking.ledger.audit` — ``ledger verify``'s comparisons (pure);
- :mod:`ranking.ledger.rows` — every row read, checked for type and range (pure);
- :mod:`ranking.ledger.connection` — the SQLite connection: the schema check, waiting, SQLite's errors as ours;
- :mod:`ranking.ledger.schema` — the schema of each version, checked and migrated on every open;
- :mod:`ranking.ledger.store` — the ledger on that connection: recording, reading, merging;
- :mod:`ranking.ledger.recorder` — ``batch --ledger``'s recorder: results' recordings, in groups.
"""

from __future__ import annotations

import os

from ranking.ledger.notes import note_lines, refusals
from ranking.ledger.records import DecisionRow
from ranking.ledger.store import Ledger

# What a program calls (docs/api.md); the rest is imported from the module that owns it.
__all__ = ["DecisionRow", "Ledger", "rejected_notes"]


def rejected_notes(
    ledger: str | os.PathLike[str], lesson: str | None = None, limit: int | None = None
) -> tuple[str, ...]:
    """The ledger form of ``ranking.integrations.agentdescent.rejected_notes``: one
    "do not re-propose" line per refused fingerprint across every recorded run,
    the most recently refused first, naming the edit (when the ledger recorded it)
    and how often it was refused."""
    with Ledger.open(ledger, read_only=True) as opened:
        found = refusals(opened.decisions(lesson=lesson))
        signers = opened.signers_of({r.latest.report for r in found})
        edits = opened.edits_of(r.fingerprint for r in found[:limit])
    return note_lines(found, limit, signers, edits)
