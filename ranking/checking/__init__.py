"""Checking and explaining what a report claims, after it was written.

- :mod:`ranking.checking.verification` — SPEC §7: a report's invariants, and that its bundle and config produce it;
- :mod:`ranking.checking.policy` — the pinned policy: a report counts only under the config its reader chose;
- :mod:`ranking.checking.apply` — SPEC §8: the memory a selection permits;
- :mod:`ranking.checking.gate` — SPEC §8: the memory a Writer produced, compared with that;
- :mod:`ranking.checking.explain` — why one proposal got its disposition, in plain language.

Pure: values in, values out. How a result is shown is in :mod:`ranking.views`.
"""
