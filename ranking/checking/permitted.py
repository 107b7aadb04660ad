"""The memory a selection permits (SPEC §8), from a memory object and the selected edits: what
:func:`ranking.checking.apply.apply_selection` writes for an accepted report, and what the
ledger's notes read as the current memory (:func:`ranking.ledger.curator.current_memory`). Pure,
and it imports no acceptance: a caller that holds the edits already needs nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from curator_io.canonical import seal

__all__ = ["permitted_memory"]


def permitted_memory(
    memory: Mapping[str, Any], edits: Sequence[Mapping[str, Any]], *, selected: bool
) -> dict[str, Any]:
    """SPEC §8 on a memory object (SPEC §1, already checked) and the selected edits in rank order
    (SPEC §3.6's ``{"scope", "operations"}``): the memory the Writer may produce. The version is
    bumped when the outcome is ``selected``. The ledger's notes read the current memory this way
    too, from the memory a recorded run was ranked against and its selection."""
    instructions: dict[str, dict[str, Any]] = {i["key"]: dict(i) for i in memory["instructions"]}
    changed: set[str] = set()
    for edit in edits:
        scope = dict(edit["scope"])
        for op in sorted(edit["operations"], key=lambda op: op["key"]):
            key = op["key"]
            if op["action"] == "add":
                instructions[key] = {"key": key, "text": op["text"], "scope": scope, "origin": "curated"}
                changed.add(key)
            elif op["action"] == "replace":
                instructions[key] = {**instructions[key], "text": op["text"], "scope": scope}
                changed.add(key)
            else:
                # Two selected proposals may carry the identical remove: applying it twice is applying it once.
                instructions.pop(key, None)
                changed.discard(key)
    for key in changed:
        instructions[key] = seal(instructions[key])

    permitted = dict(memory)
    permitted["instructions"] = [instructions[k] for k in sorted(instructions)]
    if selected:
        permitted["version"] = int(memory["version"]) + 1  # an INT may be written 7.0 (SPEC §0)
    return permitted
