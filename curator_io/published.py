"""The published JSON Schemas (``curator_io/schemas/``), read without building
the pydantic models they are generated from (:mod:`curator_io.schema_generator`):
checking a report should not pay for pydantic's start-up."""

from __future__ import annotations

import json
from typing import Any

from curator_io.catalogue import SCHEMA_IDS

__all__ = ["SCHEMA_IDS", "published_schema"]


def published_schema(name: str) -> dict[str, Any]:
    """The schema shipped in the package (``curator_io/schemas/<schema id>.json``)."""
    from importlib import resources  # only a report check or `schema` needs it

    text = resources.files("curator_io").joinpath("schemas", f"{SCHEMA_IDS[name]}.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
