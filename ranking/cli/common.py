"""What several commands share: reading a bundle, a config or a report; logging the decisions."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from curator_io import grammar as g
from curator_io.bundle import load_bundle
from curator_io.catalogue import BUNDLE_SCHEMA, REPORT_SCHEMA, SUMMARY_SCHEMA, VALIDATION_SCHEMA
from curator_io.config import DEFAULT_CONFIG, Config, parse_config
from curator_io.errors import ConfigError, EvidenceRankError, InputError
from curator_io.jsonio import parse_json
from curator_io.models import Bundle
from ranking.cli.logs import debug_enabled, get_logger
from ranking.running.inputs import read_input

__all__ = [
    "read_config",
    "read_bundle",
    "load_named_bundle",
    "read_report",
    "pointing_into",
    "log_decisions",
]


def read_config(path: str | None) -> Config:
    if path is None:
        return DEFAULT_CONFIG
    try:
        doc = parse_json(read_input(path))
    except InputError as e:
        raise ConfigError("config.invalid", e.detail, pointer=e.pointer, source=path) from e
    try:
        return parse_config(doc)
    except ConfigError as e:
        raise e.in_file(path) from e


def load_named_bundle(raw: bytes, path: str) -> Bundle:
    """Load a bundle read from ``path``; an input error names the file."""
    try:
        return load_bundle(raw)
    except InputError as e:
        raise e.in_file(path) from e


def read_bundle(path: str) -> Bundle:
    """Read and load a bundle; an input error names the file."""
    return load_named_bundle(read_input(path), path)


#: What each document's ``schema`` member says it is, for telling a user what they passed.
_KINDS = {
    REPORT_SCHEMA: "a ranking report",
    VALIDATION_SCHEMA: "a validation report",
    BUNDLE_SCHEMA: "a curator bundle",
    SUMMARY_SCHEMA: "a batch summary",
}


def read_report(path: str | Path, schema: str = REPORT_SCHEMA) -> Mapping[str, Any]:
    """A report document: strict JSON (``input.malformed_json``), an object whose
    ``schema`` says it is the report wanted (else ``input.schema``, exit 3, saying
    what it is instead: a bundle given for a report is a mistake, not tampering).

    Whether it can be trusted is the caller's to check (``ranking.checking.verification``).
    """
    try:
        doc = parse_json(read_input(path))
    except InputError as e:
        raise e.in_file(str(path)) from e
    wanted = _KINDS[schema]
    if type(doc) is not dict:
        detail = f"this is a JSON {_json_type(doc)}, not {wanted}"
        raise InputError("input.schema", detail, pointer="", source=str(path))
    found = doc.get("schema")
    if found != schema:
        what = _KINDS.get(found) if type(found) is str else None
        detail = f"this is {what}, not {wanted}" if what else f"not {wanted}: its schema is {g.shown(found)}"
        if "schema" not in doc:
            detail = f"not {wanted}: it has no schema member"
        raise InputError("input.schema", f"{detail} (expected schema {schema!r})", pointer="/schema", source=str(path))
    return doc


@contextlib.contextmanager
def pointing_into(path: str | Path) -> Iterator[None]:
    """Name ``path`` in an error whose pointer points into it and that names no file yet
    (a report's invariant, tamper or policy error: the report is the document checked)."""
    try:
        yield
    except EvidenceRankError as e:
        if e.source is None and e.pointer is not None:
            raise e.in_file(str(path)) from e
        raise


def _json_type(doc: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(doc), "number")


def log_decisions(report: Mapping[str, Any], **context: Any) -> None:
    """One debug event per decision, built only when debug events are shown."""
    log = get_logger()
    if not debug_enabled(log):
        return
    for p in report["proposals"]:
        score = p.get("score")
        log.debug(
            "decision",
            proposal=p["id"],
            disposition=p["disposition"],
            codes=[r["code"] for r in p["reasons"]],
            final=None if score is None else score["final"],
            **context,
        )
