"""One module per command; each has ``register(subparsers)`` that declares its
parser's arguments and sets ``run``.

A command's module, and the library it imports, load only when that command
is chosen: start-up is most of a short command's time, and ``score`` should
not pay for ``batch``'s process pools or ``gate``'s renderers. ``COMMANDS`` is
the order ``--help`` lists them in, with the line it shows for each.
"""

from __future__ import annotations

import argparse
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:  # not subscriptable at run time
    _SubParsers = argparse._SubParsersAction

__all__ = ["COMMANDS", "Commands", "add_global_options"]

COMMANDS = {
    "score": "validate and rank one bundle; write validation.json and report.json",
    "validate": "write the evidence-validation-v1 report alone",
    "verify": "check a ranking report's invariants, or replay it against its bundle",
    "batch": "score many bundles (files, folders, JSONL); one folder per bundle and DIR/summary.json",
    "apply": "print the memory the report's selection permits the Writer to produce",
    "gate": "fail (exit 1) when MEMORY differs from what the report's selection permits",
    "memory": "show the memory a file holds (JSON or an AGENTS.md), or import a Markdown file written by hand",
    "hook": "Claude Code's PreToolUse hook and its install, and a pre-commit hook, for a Markdown memory",
    "explain": "explain one proposal's disposition: reasons, score components, supersession",
    "render": "write a self-contained HTML view of a report (or of a batch folder with --batch)",
    "seal": "seal every artifact and the bundle, in place (or --check)",
    "sign": "sign a bundle or a report: a DSSE envelope beside it (PATH.intoto.json)",
    "keygen": "write a new signing key (0600) and print its trust-file line",
    "schema": "print a published JSON Schema (Draft 2020-12)",
    "transcript": "an agent's log (Claude Code, OTLP JSON) as evidence; a bundle's evidence replayed against it",
    "ledger": "the admission ledger: every decision on every edit, across runs",
}


def add_global_options(parser: argparse.ArgumentParser, *, in_command: bool) -> None:
    """-v and --log-format, accepted before the command and after it.

    In a command's own parser they default to SUPPRESS, so one left out there
    does not reset one given before the command.
    """
    default = argparse.SUPPRESS if in_command else None
    parser.add_argument(
        "--log-format",
        choices=("console", "json"),
        default=default,
        help="log rendering on stderr (default: console on a terminal, json otherwise or when CI is set)",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=argparse.SUPPRESS if in_command else 0,
        help="more logging (-v info, -vv debug)",
    )


class Commands(_SubParsers):
    """The subparsers action (``add_subparsers(action=Commands)``): every command is
    listed at once, and its module declares its arguments when the command is chosen."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._declared: set[str] = set()
        for name, line in COMMANDS.items():
            add_global_options(self.add_parser(name, help=line), in_command=True)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, *rest: Any) -> None:
        name = values[0]  # argparse has checked it against the choices
        if name not in self._declared:
            import_module(f"ranking.cli.commands.{name}").register(_Listed(self.choices[name]))
            self._declared.add(name)
        super().__call__(parser, namespace, values, *rest)


class _Listed:
    """What a command's ``register`` gets as the subparsers: ``add_parser`` hands back
    the command's parser, already listed, with the module's description."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self._parser = parser

    def add_parser(self, name: str, *, description: str | None = None) -> argparse.ArgumentParser:
        self._parser.description = description
        return self._parser
