"""The curator's notes (docs/ledger.md, "Notes for the curator"): what the gate tells the model that
proposes edits. :mod:`~ranking.ledger.notes.composing` makes them from the ledger's decisions;
:mod:`~ranking.ledger.notes.current_memory` says what the current memory holds of an edit;
:mod:`~ranking.ledger.notes.model` is the budget, the note and the notes; :mod:`~ranking.ledger.notes.wording`
is an edit in words; :mod:`~ranking.ledger.notes.reading` reads the JSON back. What became of an edit is
:mod:`ranking.ledger.fate`'s."""
