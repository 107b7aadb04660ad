"""What several commands share: reading a bundle or a config; logging the decisions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from curator_io.bundle import load_bundle
from curator_io.config import DEFAULT_CONFIG, Config, load_config
from curator_io.errors import ConfigError, InputError
from curator_io.models import Bundle
from ranking.cli.logs import debug_enabled, get_logger
from ranking.running.inputs import read_input, read_memory_file

__all__ = [
    "read_config",
    "read_bundle",
    "load_named_bundle",
    "log_decisions",
    "read_prose_rules",
]


def read_prose_rules(path: str | None) -> tuple[tuple[int, str], ...]:
    """(line, text) of the rules a Markdown memory's prose holds, read by the memory door; none
    for a JSON memory or without a file (what look-alikes compare with besides the bundle)."""
    if path is None:
        return ()
    markdown = read_memory_file(path).document.markdown
    return () if markdown is None else markdown.prose_rules


def read_config(path: str | None) -> Config:
    """The config file at ``path``; the SPEC §2 defaults without one."""
    if path is None:
        return DEFAULT_CONFIG
    try:
        return load_config(read_input(path))
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
