"""Logging for the CLI: structlog, to stderr only, never mixed with machine output on stdout."""

from __future__ import annotations

import logging
import os
import sys

import structlog

__all__ = ["configure_logging"]


def configure_logging(fmt: str | None, verbosity: int) -> None:
    """Console rendering on a terminal; JSON lines with ``json``, when not a TTY, or in CI."""
    if fmt is None:
        fmt = "console" if sys.stderr.isatty() and not os.environ.get("CI") else "json"
    level = {0: logging.WARNING, 1: logging.INFO}.get(verbosity, logging.DEBUG)
    renderer = (
        structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
        if fmt == "console"
        else structlog.processors.JSONRenderer(sort_keys=True)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
