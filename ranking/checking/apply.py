"""Applying a selection (SPEC §8): the memory the Writer is allowed to produce."""

from __future__ import annotations

from typing import Any

from curator_io.canonical import seal
from curator_io.catalogue import SELECTED
from ranking.checking.acceptance import Replayed
from validator import proposals_of

__all__ = ["apply_selection"]


def apply_selection(accepted: Replayed) -> dict[str, Any]:
    """Start from the bundle's memory; apply each selected proposal in rank order,
    each operation in key order; reseal what changed; bump the version.

    SPEC §8: the report must be this bundle's, sealed, and equal to the one
    recomputed with its own config: :func:`ranking.checking.acceptance.accept` with the
    bundle is what holds a :class:`Replayed` report.
    """
    bundle, expected = accepted.bundle, accepted.result
    by_id = proposals_of(bundle)

    instructions: dict[str, dict[str, Any]] = {k: dict(i.raw) for k, i in bundle.memory_instructions.items()}
    changed: set[str] = set()
    for pid in expected.selected:
        p = by_id[pid]  # Cannot fail: only complete proposals are selected.
        for op in p.operations:
            if op.action == "add":
                instructions[op.key] = {"key": op.key, "text": op.text, "scope": p.scope.to_json(), "origin": "curated"}
                changed.add(op.key)
            elif op.action == "replace":
                instructions[op.key] = {**instructions[op.key], "text": op.text, "scope": p.scope.to_json()}
                changed.add(op.key)
            else:
                # Two selected proposals may carry the identical remove: applying it twice is applying it once.
                instructions.pop(op.key, None)
                changed.discard(op.key)
    for key in changed:
        instructions[key] = seal(instructions[key])

    memory = dict(bundle.memory)
    memory["instructions"] = [instructions[k] for k in sorted(instructions)]
    if expected.outcome == SELECTED:
        memory["version"] = bundle.memory_version + 1
    return memory
