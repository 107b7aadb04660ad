"""The look-alikes ``score``'s table shows, a part of ``score`` in the command table:
``score -q`` shows none, and neither imports rapidfuzz nor pays for it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ranking.advice.comparisons import Report
from ranking.advice.lookalikes import Lookalike, lookalikes_for
from validator import Validation

if TYPE_CHECKING:
    from curator_io.models import Bundle

__all__ = ["selected_lookalikes"]


def selected_lookalikes(
    bundle: Bundle, validation: Validation, selected: tuple[str, ...], prose: tuple[tuple[int, str], ...]
) -> tuple[Lookalike, ...]:
    """The look-alikes of a report's selected edits (:class:`ranking.advice.comparisons.Report`
    says against what)."""
    checked = {e.id: e.proposal for e in validation.entries if e.proposal is not None}
    return lookalikes_for(Report(bundle, selected, checked=checked, prose=prose))
