"""Checking and explaining what a report claims, after it was written.

- :mod:`ranking.checking.acceptance` — the one procedure that decides whether a report may be believed;
- :mod:`ranking.checking.verification` — SPEC §7: a report's invariants, and that its bundle and config produce it;
- :mod:`ranking.checking.policy` — the reader's pins: the config it chose, and the base it holds;
- :mod:`ranking.checking.apply` — SPEC §8: the memory a selection permits;
- :mod:`ranking.checking.gate` — SPEC §8: the memory a Writer produced, compared with that;
- :mod:`ranking.checking.explain` — why one proposal got its disposition, in plain language.

Pure: values in, values out. How a result is shown is in :mod:`ranking.views`.
"""
