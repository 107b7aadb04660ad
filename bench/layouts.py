"""The same sealed bundle written in the layouts users' files have.

- ``canonical``: RFC 8785 (``canon``), the loader's best case;
- ``indented``: two spaces of indentation, members sorted;
- ``spec``: every object's members in the order SPEC §1 lists them (the top
  level: schema, run, memory, instructions, materializations, traces, evidence,
  lessons, proposals, frozen; inside each object the order its examples show),
  as real curator files have them;
- ``reverse``: every object's members in the reverse of the spec order (the
  frozen digest first, proposals before the evidence they cite).

Sealing is over canonical bytes (SPEC §0), so every layout carries the same
``frozen.digest`` and scores to the same reports, byte for byte.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from curator_io.canonical import canon

__all__ = ["LAYOUTS", "write_layout", "layout_path", "spec_ordered"]


#: Members in the order SPEC §1 lists them (its examples, inside each object); a
#: member not named (an unknown one, such as an evidence item's ``tags``) follows them.
_TOP = ("schema", "run", "memory", "instructions", "materializations", "traces", "evidence", "lessons")
_SPEC_ORDER: dict[str, tuple[str, ...]] = {
    "bundle": (*_TOP, "proposals", "frozen"),
    "run": ("id", "curator", "frozen_at"),
    "memory": ("version", "instructions"),
    "frozen": ("digest",),
    "instruction": ("key", "text", "scope", "origin", "digest"),
    "scope": ("level", "repository", "path"),
    "materialization": ("id", "repository", "source_revision", "status", "digest"),
    "trace": ("id", "lineage", "materialization", "steps", "completeness", "verified_prefix", "digest"),
    "evidence": ("id", "trace", "step", "signal", "observed_at", "path", "summary", "digest"),
    "lesson": ("id", "text", "evidence", "digest"),
    "proposal": (
        *("id", "lesson", "scope", "confidence", "rationale", "base_memory_version"),
        *("operations", "support", "contradict"),
    ),
    "operation": ("action", "key", "text", "expected_digest"),
}
#: What each top-level array holds.
_ITEMS = {
    "instructions": "instruction",
    "materializations": "materialization",
    "traces": "trace",
    "evidence": "evidence",
    "lessons": "lesson",
    "proposals": "proposal",
}


def _ordered(obj: dict[str, Any], kind: str) -> dict[str, Any]:
    order = _SPEC_ORDER[kind]
    known = [k for k in order if k in obj]
    return {k: obj[k] for k in (*known, *(k for k in obj if k not in order))}


def _instruction(i: dict[str, Any]) -> dict[str, Any]:
    return _ordered({**i, "scope": _ordered(i["scope"], "scope")}, "instruction")


def _proposal(p: dict[str, Any]) -> dict[str, Any]:
    ops = [_ordered(o, "operation") for o in p["operations"]]
    return _ordered({**p, "scope": _ordered(p["scope"], "scope"), "operations": ops}, "proposal")


def spec_ordered(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with every object's members in the order SPEC §1 lists them."""
    out = dict(doc)
    out["run"] = _ordered(doc["run"], "run")
    memory = {**doc["memory"], "instructions": [_instruction(i) for i in doc["memory"]["instructions"]]}
    out["memory"] = _ordered(memory, "memory")
    out["frozen"] = _ordered(doc["frozen"], "frozen")
    for name, kind in _ITEMS.items():
        each = {"instruction": _instruction, "proposal": _proposal}.get(kind, lambda x, k=kind: _ordered(x, k))
        out[name] = [each(x) for x in doc[name]]
    return _ordered(out, "bundle")


def _reversed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _reversed(value[k]) for k in reversed(value)}
    if isinstance(value, list):
        return [_reversed(v) for v in value]
    return value


#: Layout name -> how the sealed document is written. Only ``canonical`` is RFC 8785;
#: the others are what ``orjson.dumps`` writes (an integral float as ``1.0``, say).
LAYOUTS: dict[str, Any] = {
    "canonical": canon,
    "indented": lambda doc: orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS),
    "spec": lambda doc: orjson.dumps(spec_ordered(doc)),
    "reverse": lambda doc: orjson.dumps(_reversed(spec_ordered(doc))),
}


def write_layout(doc: dict[str, Any], layout: str) -> bytes:
    """The bytes of the sealed ``doc`` in one of :data:`LAYOUTS`."""
    out: bytes = LAYOUTS[layout](doc)
    return out


def layout_path(path: Path, layout: str) -> Path:
    """Where a layout of the bundle at ``path`` goes: ``path`` itself when canonical."""
    return path if layout == "canonical" else path.with_name(f"{path.stem}-{layout}{path.suffix}")
