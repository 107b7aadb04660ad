"""What a memory object SPEC §1 allows (``{"version": INT, "instructions": [Instruction, ...]}``),
checked with the bundle's own rules and codes: the check every memory file's reader ends with,
JSON or Markdown (:mod:`curator_io.memory`, :mod:`curator_io.markdown.document`), and the lesser
ones the gate holds its two memory files to. Each fault has one message, whoever asks.

- :func:`check_memory`: a memory SPEC §1 allows, every instruction whole, keys unique.
- :func:`check_compared`: memory-after, as the gate compares it with what the selection permits:
  the faults the comparison names itself (a missing version, a key written twice, an
  instruction's members) are findings, not refusals (docs/gate.md).
- :func:`check_not_document`: the base, which the gate compares with the bundle's memory whole.
"""

from __future__ import annotations

from typing import Any

from curator_io import grammar as g
from curator_io.errors import InputError, pointer_of
from curator_io.kinds import INSTRUCTION

__all__ = ["check_memory", "check_compared", "check_not_document"]


def check_memory(memory: Any) -> None:
    """``input.schema`` (or ``input.duplicate_id``) unless ``memory`` is a memory object SPEC §1
    allows: an object whose ``version`` is an INT and whose ``instructions`` are instructions
    (``key``, ``text`` of 1-4000 bytes, ``scope``, ``origin``, a string ``digest``), their keys
    unique; other members are allowed, as in a bundle. The pointer names the first offending place."""
    _check_object(memory)
    if "version" not in memory:
        raise InputError("input.schema", "missing member 'version'", pointer="/version")
    _check_version(memory["version"])
    items = _instructions(memory)
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        _check_instruction(item, i)
        key = item["key"]
        if key in seen:
            first = pointer_of("instructions", seen[key])
            why = f"instruction key {key!r} appears twice (first at {first})"
            raise InputError("input.duplicate_id", why, pointer=pointer_of("instructions", i, "key"))
        seen[key] = i


def check_compared(memory: Any, role: str) -> list[dict[str, Any]]:
    """``memory``'s instructions, once it is what the gate can compare; else ``input.schema``: an
    object and not a whole document (:func:`check_not_document`), its ``version``, when it has
    one, an INT, its ``instructions`` an array of objects, each with a string ``key``."""
    check_not_document(memory, role)
    if "version" in memory:
        # A version of the wrong type is not a memory object (SPEC §1: memory.version is an INT):
        # the file is refused, not compared.
        _check_version(memory["version"])
    items = _instructions(memory)
    for i, item in enumerate(items):
        _check_object_at(item, i)
        if type(item.get("key")) is not str:
            raise InputError("input.schema", "expected a string key", pointer=pointer_of("instructions", i, "key"))
    return items


def check_not_document(memory: Any, role: str) -> None:
    """``input.schema`` unless ``memory`` is an object that is not a whole document (``role``
    names the file in the message: ``memory-after``, ``memory-before``)."""
    _check_object(memory)
    if "schema" in memory and "memory" in memory:
        # A whole bundle has an ``instructions`` array too (the ones in force): never compare that by mistake.
        raise InputError(
            "input.schema",
            f'{role} is a whole document; pass its memory object (the "memory" member)',
            pointer="/memory",
        )


# --- one message per fault -------------------------------------------------------------------


def _check_object(memory: Any) -> None:
    if type(memory) is not dict:
        raise InputError("input.schema", "expected a memory object {version, instructions}", pointer="")


def _check_version(version: Any) -> None:
    if not g.is_int(version):
        raise InputError("input.schema", f"expected {g.INT.expected}, got {g.shown(version)}", pointer="/version")


def _instructions(memory: dict[str, Any]) -> list[Any]:
    if "instructions" not in memory:
        raise InputError("input.schema", "missing member 'instructions'", pointer="/instructions")
    items = memory["instructions"]
    if type(items) is not list:
        raise InputError("input.schema", "expected an array of instructions", pointer="/instructions")
    return items


def _check_object_at(item: Any, i: int) -> None:
    if type(item) is not dict:
        raise InputError("input.schema", "expected an instruction object", pointer=pointer_of("instructions", i))


def _check_instruction(item: Any, i: int) -> None:
    _check_object_at(item, i)
    name = INSTRUCTION.first_offending(item)
    if name is not None:
        where = pointer_of("instructions", i, name)
        if name not in item:
            raise InputError("input.schema", f"missing member {name!r}", pointer=where)
        rule = INSTRUCTION.rule(name)
        raise InputError("input.schema", f"expected {rule.expected}, got {g.shown(item[name])}", pointer=where)
