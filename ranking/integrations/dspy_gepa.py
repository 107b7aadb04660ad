"""Gate DSPy's GEPA (``dspy.GEPA``, DSPy 3.4) on evidence: the instruction proposer that hands
the ledger's refusals to the reflection LM.

``dspy.GEPA`` passes ``gepa_kwargs`` to ``gepa.optimize``, so the criterion
(:class:`ranking.integrations.gepa.EvidenceRankingCriterion`), its callback and
the selection strategy go in there (docs/dspy.md has the recipe and what DSPy
allows). What does not go in there is the reflection: DSPy's adapter writes
new instructions with its own proposer, so GEPA never calls the reflection LM
that :func:`~ranking.integrations.gepa.with_notes` would wrap.

:class:`NotedInstructionProposer` is DSPy's ``InstructionProposer`` with the
ledger's notes for the curator in its ``additional_instructions``, read at
each call. DSPy builds a proposer's signature when the proposer is made, with
an ``additional_instructions`` input only when that text was not empty then;
text given to it later is dropped (DSPy logs one warning). So this proposer
makes a new ``InstructionProposer`` when the notes change, and never sets one
on a proposer already made.

Needs the optional extra: ``pip install 'evidence-rank[dspy]'`` (DSPy 3.4 pins gepa 0.1.4).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

try:
    from dspy.teleprompt.gepa import InstructionProposer
except ImportError as e:
    raise ImportError("ranking.integrations.dspy_gepa needs DSPy 3.4: pip install 'evidence-rank[dspy]'") from e

from ranking.integrations.gepa import notes_block
from ranking.ledger.notes.model import DEFAULT_BUDGET, Budget

__all__ = ["NotedInstructionProposer"]


class NotedInstructionProposer:
    """A DSPy instruction proposer (``dspy.GEPA(instruction_proposer=...)``): DSPy's own
    ``InstructionProposer``, its ``additional_instructions`` followed by the ledger's notes for
    the curator (:func:`~ranking.integrations.gepa.notes_block`, within ``budget``), read at
    each call.

    ``options`` are ``InstructionProposer``'s (``skills``, ``additional_instructions``,
    ``base_instructions``, ``max_chars``, ...). No ledger file yet, or no note from it: the
    proposer is ``InstructionProposer(**options)``.
    """

    def __init__(self, ledger: str | os.PathLike[str], *, budget: Budget = DEFAULT_BUDGET, **options: Any) -> None:
        self.ledger = ledger
        self.budget = budget
        self.options = options
        # The notes the proposer was made with, and it; made now so that options DSPy refuses fail here.
        self._made: tuple[str, InstructionProposer] = ("", InstructionProposer(**options))

    def __call__(
        self,
        candidate: dict[str, str],
        reflective_dataset: Mapping[str, Sequence[Mapping[str, Any]]],
        components_to_update: list[str],
    ) -> dict[str, str]:
        notes = notes_block(self.ledger, budget=self.budget)
        if notes != self._made[0]:
            given = self.options.get("additional_instructions")
            text = "\n\n".join(t for t in (given, notes) if t)
            self._made = (notes, InstructionProposer(**{**self.options, "additional_instructions": text or None}))
        proposed: dict[str, str] = self._made[1](
            candidate=candidate, reflective_dataset=reflective_dataset, components_to_update=components_to_update
        )
        return proposed
