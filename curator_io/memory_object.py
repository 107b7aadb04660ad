"""What a memory object SPEC §1 allows (``{"version": INT, "instructions": [Instruction, ...]}``),
checked with the bundle's own rules and codes: the check every memory file's reader ends with,
JSON or Markdown (:mod:`curator_io.memory`, :mod:`curator_io.markdown_memory`).
"""

from __future__ import annotations

from typing import Any

from curator_io import grammar as g
from curator_io.errors import InputError, pointer_of
from curator_io.kinds import INSTRUCTION

__all__ = ["check_memory"]


def check_memory(memory: Any) -> None:
    """``input.schema`` (or ``input.duplicate_id``) unless ``memory`` is a memory object SPEC §1
    allows: an object whose ``version`` is an INT and whose ``instructions`` are instructions
    (``key``, ``text`` of 1-4000 bytes, ``scope``, ``origin``, a string ``digest``), their keys
    unique; other members are allowed, as in a bundle. The pointer names the first offending place."""
    if type(memory) is not dict:
        raise InputError("input.schema", "expected a memory object {version, instructions}", pointer="")
    for name in ("version", "instructions"):
        if name not in memory:
            raise InputError("input.schema", f"missing member {name!r}", pointer=pointer_of(name))
    if not g.INT.holds(memory["version"]):
        raise InputError(
            "input.schema", f"expected {g.INT.expected}, got {g.shown(memory['version'])}", pointer="/version"
        )
    items = memory["instructions"]
    if type(items) is not list:
        raise InputError("input.schema", "expected an array of instructions", pointer="/instructions")
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        _check_instruction(item, i)
        key = item["key"]
        if key in seen:
            first = pointer_of("instructions", seen[key])
            why = f"instruction key {key!r} appears twice (first at {first})"
            raise InputError("input.duplicate_id", why, pointer=pointer_of("instructions", i, "key"))
        seen[key] = i


def _check_instruction(item: Any, i: int) -> None:
    if type(item) is not dict:
        raise InputError("input.schema", "expected an instruction object", pointer=pointer_of("instructions", i))
    name = INSTRUCTION.first_offending(item)
    if name is not None:
        where = pointer_of("instructions", i, name)
        if name not in item:
            raise InputError("input.schema", f"missing member {name!r}", pointer=where)
        rule = INSTRUCTION.rule(name)
        raise InputError("input.schema", f"expected {rule.expected}, got {g.shown(item[name])}", pointer=where)
