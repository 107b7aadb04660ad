"""Logging for the CLI: structlog, to stderr only, never mixed with machine output on stdout.

The CLI logs at info and debug only, so at the default level (warning) it shows
nothing: then structlog, and the asyncio, ssl and logging it imports, are not
imported at all (a short command is mostly start-up), and :func:`get_logger`
hands out a logger that drops both levels. Once structlog is imported (``-v``,
or a program or test that configured it) every event goes through it.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from ranking.views.terminal import printable, printable_json

__all__ = ["configure_logging", "get_logger", "debug_enabled"]


def configure_logging(fmt: str | None, verbosity: int) -> None:
    """Console rendering on a terminal; JSON lines with ``json``, when not a TTY, or in CI."""
    if verbosity == 0 and "structlog" not in sys.modules:
        return  # nothing the CLI logs would be shown
    import logging

    import structlog

    if fmt is None:
        fmt = "console" if sys.stderr.isatty() and not os.environ.get("CI") else "json"
    level = {0: logging.WARNING, 1: logging.INFO}.get(verbosity, logging.DEBUG)
    # Every line through the escaper (ranking.views.terminal): a console line's values before
    # it is drawn (its colours are the renderer's own), a JSON line whole.
    rendering: list[Any] = (
        [_printable_values, structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())]
        if fmt == "console"
        else [structlog.processors.JSONRenderer(sort_keys=True), _printable_json]
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            *rendering,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


def _printable_values(_logger: Any, _method: str, event: dict[str, Any]) -> dict[str, Any]:
    """Each value of a console event as one printable line: a logged file name or value cannot
    break the line, recolour it or forge a workflow command."""
    return {name: printable(value if isinstance(value, str) else repr(value)) for name, value in event.items()}


def _printable_json(_logger: Any, _method: str, line: Any) -> Any:
    """A JSON event line, with what a terminal or CI runner would act on escaped; same value."""
    return printable_json(line.encode("utf-8")).decode("utf-8") if isinstance(line, str) else line


def get_logger() -> Any:
    """The ``evidence_rank`` logger: structlog's once it is configured (``-v``, or a program or
    test that configured it), else one that drops everything."""
    if "structlog" not in sys.modules:
        return _QUIET
    import structlog

    if not structlog.is_configured():
        # Imported by other code (the ledger, a library) but never configured: structlog's
        # defaults would print every level. At the default level nothing is shown.
        return _QUIET
    return structlog.get_logger("evidence_rank")


def debug_enabled(log: Any) -> bool:
    """Whether ``log`` (from :func:`get_logger`) shows debug events, for a caller that
    would otherwise build events only to have them dropped. A logger that cannot say
    (structlog configured with a wrapper class that does not filter) shows them."""
    if log is _QUIET:
        return False
    is_enabled_for = getattr(log, "is_enabled_for", None)
    if is_enabled_for is None:
        return True
    import logging

    return bool(is_enabled_for(logging.DEBUG))


class _Quiet:
    """Drops info and debug, the only levels the CLI logs at. It has no other level on
    purpose: a warning would have to be shown, so whoever adds one must import structlog."""

    def debug(self, event: str, **fields: Any) -> None:
        pass

    def info(self, event: str, **fields: Any) -> None:
        pass


_QUIET = _Quiet()
