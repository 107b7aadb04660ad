"""What several commands share: reading a bundle, a config or a report; the table."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from curator_io.bundle import load_bundle
from curator_io.config import DEFAULT_CONFIG, Config, parse_config
from curator_io.errors import ConfigError, InputError, TamperError
from curator_io.files import read_bytes
from curator_io.jsonio import parse_json
from curator_io.models import Bundle
from ranking.cli.logs import get_logger

__all__ = [
    "read_config",
    "read_bundle",
    "read_bundle_bytes",
    "load_named_bundle",
    "read_report",
    "render_table",
    "log_decisions",
    "format_score",
]


def read_config(path: str | None) -> Config:
    if path is None:
        return DEFAULT_CONFIG
    try:
        doc = parse_json(read_bytes(path))
    except InputError as e:
        raise ConfigError("config.invalid", e.detail, pointer=e.pointer, source=path) from e
    try:
        return parse_config(doc)
    except ConfigError as e:
        raise e.in_file(path) from e


def read_bundle_bytes(path: str) -> bytes:
    """A bundle file's bytes; ``-`` is standard input, read whole."""
    if path == "-":
        return sys.stdin.buffer.read()
    return read_bytes(path)


def load_named_bundle(raw: bytes, path: str) -> Bundle:
    """Load a bundle read from ``path``; an input error names the file."""
    try:
        return load_bundle(raw)
    except InputError as e:
        raise e.in_file(path) from e


def read_bundle(path: str) -> Bundle:
    """Read and load a bundle; an input error names the file."""
    return load_named_bundle(read_bundle_bytes(path), path)


def read_report(path: str | Path) -> Mapping[str, Any]:
    """A report document: strict JSON (``input.malformed_json``, exit 3), and an object.

    Whether it can be trusted is the caller's to check (``ranking.verification``).
    """
    try:
        doc = parse_json(read_bytes(path))
    except InputError as e:
        raise e.in_file(path) from e
    if type(doc) is not dict:
        raise TamperError("report.tampered", "a ranking report is a JSON object", pointer="", source=str(path))
    return doc


def format_score(score: Mapping[str, Any] | None) -> str:
    return "-" if score is None else f"{score['final']:g}" if isinstance(score["final"], float) else str(score["final"])


def render_table(report: Mapping[str, Any]) -> str:
    """A compact, aligned table: id, disposition, final score, reason codes."""
    rows = [("id", "disposition", "final", "reasons")]
    for p in report["proposals"]:
        codes = ", ".join(r["code"] + (f"({r['subject']})" if r["subject"] is not None else "") for r in p["reasons"])
        rows.append((p["id"], p["disposition"], format_score(p.get("score")), codes))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = [f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]}".rstrip() for r in rows]
    counts = report["counts"]
    lines.append("")
    lines.append(
        f"outcome: {report['outcome']} · selected {counts['selected']} of {counts['proposals']} "
        f"(accepted {counts['accepted']}, deferred {counts['deferred']}, quarantined {counts['quarantined']}, "
        f"rejected {counts['rejected']}, below threshold {counts['below_threshold']}, "
        f"superseded {counts['superseded']})"
    )
    return "\n".join(lines)


def log_decisions(report: Mapping[str, Any], **context: Any) -> None:
    """One debug event per decision."""
    log = get_logger()
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
