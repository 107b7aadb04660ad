"""The JSON Schemas (Draft 2020-12) published in ``curator_io/schemas/``: the
bundle's generated from its description in :mod:`curator_io.kinds`, each
report's by pydantic from its type in :mod:`curator_io.report_model`.

The published files are generated (``python -m curator_io.schema_generator``) and a
test fails when they and their sources drift apart. The schemas describe the
shape of a document; the rules no schema can state (calendar dates, UTF-8 byte
lengths, seals, the invariants of SPEC §7) are checked by the loader and by
:mod:`ranking.checking.verification`.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

from curator_io.kinds import BUNDLE, DEFINITIONS, Kind
from curator_io.published import SCHEMA_IDS, published_schema
from curator_io.report_model import RankingReport, ValidationReport

__all__ = [
    "SCHEMA_MODELS",
    "published_schema",
    "generate_schema",
]

#: Each report's name (as ``evidence-rank schema NAME`` takes it) and its type.
SCHEMA_MODELS: dict[str, type[Any]] = {
    "validation": ValidationReport,
    "report": RankingReport,
}


def _object_schema(kind: Kind) -> dict[str, Any]:
    """A kind's table as the schema of an object, written as pydantic writes a model's."""
    properties = {}
    for name, rule in kind.members:
        fragment = dict(rule.schema)
        if "$ref" not in fragment:
            fragment["title"] = name.replace("_", " ").title()
        properties[name] = fragment
    out: dict[str, Any] = {
        "type": "object",
        "title": kind.title,
        "additionalProperties": not kind.closed,
        "properties": properties,
        "required": [name for name, _ in kind.members if name not in kind.optional],
    }
    if kind.description is not None:
        out["description"] = kind.description
    return out


def _named_by_title(schema: dict[str, Any]) -> dict[str, Any]:
    """Each definition under its title, the name the published schemas have always
    given it, rather than its Python class's name (pydantic's default)."""
    names = {name: d["title"] for name, d in schema.get("$defs", {}).items()}

    def renamed(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                key: f"#/$defs/{names[value.removeprefix('#/$defs/')]}" if key == "$ref" else renamed(value)
                for key, value in node.items()
            }
        if isinstance(node, list):
            return [renamed(value) for value in node]
        return node

    out: dict[str, Any] = renamed(schema)
    if "$defs" in out:
        out["$defs"] = {names[name]: d for name, d in out["$defs"].items()}
    return out


def generate_schema(name: str) -> dict[str, Any]:
    """The Draft 2020-12 schema of ``name``: the bundle's from its kinds, a report's from its type."""
    if name == "bundle":
        body = {"$defs": {kind.title: _object_schema(kind) for kind in DEFINITIONS}, **_object_schema(BUNDLE)}
    else:
        body = _named_by_title(TypeAdapter(SCHEMA_MODELS[name]).json_schema(mode="validation"))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:evidence-rank:schema:{SCHEMA_IDS[name]}",
        **body,
    }


if __name__ == "__main__":  # regenerate the published files: python -m curator_io.schema_generator
    from pathlib import Path

    folder = Path(__file__).with_name("schemas")
    for schema_name, schema_file in SCHEMA_IDS.items():
        text = json.dumps(generate_schema(schema_name), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        (folder / f"{schema_file}.json").write_text(text, "utf-8")
        print(f"wrote {folder / schema_file}.json")
