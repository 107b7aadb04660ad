"""The admission ledger: every decision about every edit, across runs (docs/ledger.md).

A ledger is a set of sealed ranking reports (SPEC §6) stored whole, with one
row per decision derived from them, plus what an agentdescent acceptance test
did with each selected edit. The model, the commands and what "the same
ledger" means are in docs/ledger.md.

- :mod:`ranking.ledger.records` — decisions and outcomes, derived purely from reports;
- :mod:`ranking.ledger.fate` — what became of an edit: its words, the kinds of note, the one history of decisions;
- :mod:`ranking.ledger.notes.composing` — the curator's notes, decisions in and notes out (pure):
  the one place a note is made;
- :mod:`ranking.ledger.notes.current_memory` — what the current memory holds of an edit, and the
  advice for each look-alike;
- :mod:`ranking.ledger.curator` — recording a run with what the ledger knew of its edits; notes from a ledger;
- :mod:`ranking.ledger.history` — history tables and outcome words for people (pure);
- :mod:`ranking.ledger.audit` — ``ledger verify``'s comparisons (pure);
- :mod:`ranking.ledger.rows` — every row read, checked for type and range (pure);
- :mod:`ranking.ledger.connection` — the SQLite connection: the schema check, waiting, SQLite's errors as ours;
- :mod:`ranking.ledger.schema` — the schema of each version, checked and migrated on every open;
- :mod:`ranking.ledger.store` — the ledger on that connection: recording, reading, merging;
- :mod:`ranking.ledger.pool` — the pool (schema 4): closures, the runs' memories, the bounds, their checks (pure);
- :mod:`ranking.ledger.pool_store` — the pool and the memories in the file: settled, verified, merged;
- :mod:`ranking.ledger.carry` — the pool carried into the next bundle (pure): ``ledger carry``, ``BundleBuilder.carry``.

``batch --ledger``'s recorder is :mod:`ranking.running.recorder`, beside the batch it records.
"""

from __future__ import annotations

from ranking.ledger.curator import read_notes
from ranking.ledger.notes.composing import prompt_block
from ranking.ledger.notes.model import DEFAULT_BUDGET, Budget, Note, Notes
from ranking.ledger.notes.reading import notes_from_json
from ranking.ledger.records import DecisionRow
from ranking.ledger.store import Ledger

# What a program calls (docs/api.md); the rest is imported from the module that owns it.
__all__ = [
    "DEFAULT_BUDGET",
    "Budget",
    "DecisionRow",
    "Ledger",
    "Note",
    "Notes",
    "notes_from_json",
    "prompt_block",
    "read_notes",
]
