"""Self-contained HTML views of a ranking report, a batch (``evidence-rank render``) and an
admission ledger (``evidence-rank ledger render``).

Pure: each view is a function from verified JSON values to a page (``str``);
the CLI reads the files and writes the page atomically.
"""

from __future__ import annotations

from ranking.views.html.batch import render_batch
from ranking.views.html.ledger import render_ledger
from ranking.views.html.run import render_report

__all__ = ["render_report", "render_batch", "render_ledger"]
