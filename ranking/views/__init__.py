"""How results are shown to people: terminal tables, the gate's renderings, HTML pages.

- :mod:`ranking.views.terminal` — the one escaper every line to a terminal or CI log passes;
- :mod:`ranking.views.tables` — the terminal table of a report and its one-line outcome;
- :mod:`ranking.views.gate` — the gate's verdict as text, JSON, GitHub annotations and a step summary;
- :mod:`ranking.views.html` — self-contained pages of a report, a batch and a ledger.

Pure: each view is a function from checked values to text; the CLI writes it.
"""
