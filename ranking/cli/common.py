"""What several commands share: reading a bundle, a config or a report; the table."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import structlog

from curator_io.bundle import load_bundle
from curator_io.config import DEFAULT_CONFIG, Config, parse_config
from curator_io.errors import ConfigError, InputError, TamperError
from curator_io.files import read_bytes
from curator_io.jsonio import parse_json
from curator_io.models import Bundle

__all__ = [
    "read_config",
    "read_bundle",
    "read_report",
    "write_stdout",
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
        raise ConfigError("config.invalid", f"{path}: {e.detail}", pointer=e.pointer) from e
    return parse_config(doc)


def read_bundle(path: str) -> Bundle:
    """Load a bundle; an input error names the file."""
    try:
        return load_bundle(read_bytes(path))
    except InputError as e:
        raise InputError(e.code, f"{path}: {e.detail}", pointer=e.pointer) from e


def read_report(path: str | Path) -> Mapping[str, Any]:
    """A report document: strict JSON (``input.malformed_json``, exit 3), and an object.

    Whether it can be trusted is the caller's to check (``ranking.verification``).
    """
    try:
        doc = parse_json(read_bytes(path))
    except InputError as e:
        raise InputError(e.code, f"{path}: {e.detail}", pointer=e.pointer) from e
    if type(doc) is not dict:
        raise TamperError("report.tampered", f"{path}: a ranking report is a JSON object", pointer="")
    return doc


def write_stdout(data: bytes) -> None:
    """Exact bytes on stdout, whatever its text encoding."""
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def format_score(score: Mapping[str, Any] | None) -> str:
    return "-" if score is None else f"{score['final']:g}" if isinstance(score["final"], float) else str(score["final"])


def render_table(report: Mapping[str, Any], marks: Mapping[str, str] | None = None) -> str:
    """A compact, aligned table: id, disposition, final score, reason codes
    (and a proposal's mark, e.g. what a ledger knows of its edit)."""
    rows = [("id", "disposition", "final", "reasons")]
    for p in report["proposals"]:
        codes = ", ".join(r["code"] + (f"({r['subject']})" if r["subject"] is not None else "") for r in p["reasons"])
        if marks and p["id"] in marks:
            codes += f" · {marks[p['id']]}"
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
    log = structlog.get_logger("evidence_rank")
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
