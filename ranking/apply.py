"""Applying a selection (SPEC §8): the memory the Writer is allowed to produce."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from curator_io.canonical import canon, seal
from curator_io.config import parse_config
from curator_io.errors import ConfigError, TamperError
from curator_io.models import Bundle
from ranking.pipeline import rank
from validator import Proposal, check_structure

__all__ = ["apply_selection", "recompute_for"]


def recompute_for(bundle: Bundle, report: Mapping[str, Any]) -> dict[str, Any]:
    """The report this bundle produces with the report's own config, or ``report.tampered``.

    SPEC §8: the report must be sealed, carry the bundle's ``input_digest``
    and equal, byte for byte, the report recomputed from the bundle.
    """
    if report.get("input_digest") != bundle.input_digest:
        raise TamperError("report.tampered", "the report is not this bundle's: input_digest differs", pointer="/input_digest")
    try:
        config = parse_config(report.get("config"))
    except ConfigError as e:
        raise TamperError("report.tampered", f"the report's config is not a valid config: {e.detail}", pointer="/config") from e
    expected = rank(bundle, config).report
    if canon(dict(report)) != canon(expected):
        raise TamperError("report.tampered", "the report differs from the one the bundle produces", pointer="")
    return expected


def apply_selection(bundle: Bundle, report: Mapping[str, Any]) -> dict[str, Any]:
    """Start from the bundle's memory; apply each selected proposal in rank order,
    each operation in key order; reseal what changed; bump the version."""
    expected = recompute_for(bundle, report)
    by_id: dict[str, Proposal] = {}
    for index, raw in enumerate(bundle.proposals):
        checked = check_structure(raw, index)
        if isinstance(checked, Proposal):
            by_id[checked.id] = checked

    instructions: dict[str, dict[str, Any]] = {k: dict(i.raw) for k, i in bundle.memory_instructions.items()}
    changed: set[str] = set()
    for pid in expected["selected"]:
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
    if expected["outcome"] == "selected":
        memory["version"] = bundle.memory_version + 1
    return memory
