"""The command table: every command's module, and the one place start-up cost is chosen.

Each command's module has ``register(subparsers)``, which declares its parser's
arguments and sets ``run``. A command's module, and the library it imports, load
only when that command is chosen: start-up is most of a short command's time,
and ``score`` should not pay for ``batch``'s process pools or ``gate``'s
renderers. ``COMMANDS`` names each module and the line ``--help`` lists it by, in
the order it lists them; ``SUBCOMMANDS`` names the function that runs a
subcommand kept in a module of its own (the ledger's, so that no other command
pays for sqlite3 and the ledger package). These are the only imports by name
in the packages besides ``ranking/__init__.py``'s table of public names
(docs/architecture.md, "Where start-up is paid").
"""

from __future__ import annotations

import argparse
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:  # not subscriptable at run time
    _SubParsers = argparse._SubParsersAction

__all__ = ["COMMANDS", "PARTS", "SUBCOMMANDS", "Command", "Commands", "Part", "Run", "add_global_options"]


class Command:
    """A command: the module that declares its arguments and runs it, and the line ``--help`` lists it by.
    (A plain class: a NamedTuple's is built at every start-up, at a cost bench/doors.py sees.)"""

    __slots__ = ("help", "module")

    def __init__(self, module: str, help: str) -> None:
        self.module, self.help = module, help


class Part:
    """A part of a command kept in a module of its own: the function ``name`` of ``module``,
    imported when that part runs, so that the command's other paths do not pay for it."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args: Any) -> Any:
        return getattr(import_module(self.module), self.name)(*args)


class Run(Part):
    """A subcommand's run: the function ``name`` of ``module``, imported when the subcommand runs."""

    __slots__ = ()

    def __call__(self, *args: Any) -> int:
        return int(super().__call__(*args))


COMMANDS = {
    "score": Command(
        "ranking.cli.commands.score", "validate and rank one bundle; write validation.json and report.json"
    ),
    "validate": Command("ranking.cli.commands.validate", "write the evidence-validation-v1 report alone"),
    "verify": Command(
        "ranking.cli.commands.verify", "check a ranking report's invariants, or replay it against its bundle"
    ),
    "batch": Command(
        "ranking.cli.commands.batch",
        "score many bundles (files, folders, JSONL); one folder per bundle and DIR/summary.json",
    ),
    "apply": Command(
        "ranking.cli.commands.apply", "print the memory the report's selection permits the Writer to produce"
    ),
    "gate": Command(
        "ranking.cli.commands.gate", "fail (exit 1) when MEMORY differs from what the report's selection permits"
    ),
    "memory": Command(
        "ranking.cli.commands.memory",
        "show the memory a file holds (JSON or an AGENTS.md), or import a Markdown file written by hand",
    ),
    "hook": Command(
        "ranking.cli.commands.hook",
        "Claude Code's PreToolUse hook and its install, and a pre-commit hook, for a Markdown memory",
    ),
    "explain": Command(
        "ranking.cli.commands.explain", "explain one proposal's disposition: reasons, score components, supersession"
    ),
    "render": Command(
        "ranking.cli.commands.render",
        "write a self-contained HTML view of a report (or of a batch folder with --batch)",
    ),
    "seal": Command("ranking.cli.commands.seal", "seal every artifact and the bundle, in place (or --check)"),
    "sign": Command(
        "ranking.cli.commands.sign", "sign a bundle or a report: a DSSE envelope beside it (PATH.intoto.json)"
    ),
    "keygen": Command("ranking.cli.commands.keygen", "write a new signing key (0600) and print its trust-file line"),
    "schema": Command("ranking.cli.commands.schema", "print a published JSON Schema (Draft 2020-12)"),
    "transcript": Command(
        "ranking.cli.commands.transcript",
        "an agent's log (Claude Code, OTLP JSON) as evidence; a bundle's evidence replayed against it",
    ),
    "ledger": Command("ranking.cli.commands.ledger", "the admission ledger: every decision on every edit, across runs"),
}

#: Subcommands run by a module of their own. ``ledger``'s run in ranking/cli/ledger_runs.py, imported
#: only when one runs: sqlite3 and the ledger package are a share of start-up that every other command,
#: and ``ledger --help``, would pay (bench/RESULTS.md). ``hook``'s each run in a module of their own:
#: ``hook claude-code`` runs on every tool call Claude Code makes, and pays for neither the install's
#: settings nor pre-commit's gate.
SUBCOMMANDS = {
    ("ledger", "add"): Run("ranking.cli.ledger_add", "run_add"),
    ("ledger", "history"): Run("ranking.cli.ledger_runs", "run_history"),
    ("ledger", "notes"): Run("ranking.cli.ledger_runs", "run_notes"),
    ("ledger", "export"): Run("ranking.cli.ledger_runs", "run_export"),
    ("ledger", "verify"): Run("ranking.cli.ledger_runs", "run_verify"),
    ("ledger", "merge"): Run("ranking.cli.ledger_runs", "run_merge"),
    ("ledger", "render"): Run("ranking.cli.ledger_render", "run_render"),
    ("ledger", "carry"): Run("ranking.cli.ledger_runs", "run_carry"),
    ("hook", "claude-code"): Run("ranking.cli.hook_claude_code", "run_claude_code"),
    ("hook", "install"): Run("ranking.cli.hook_install", "run_install"),
    ("hook", "pre-commit"): Run("ranking.cli.hook_pre_commit", "run_pre_commit"),
}


#: Paths of a command that its other paths, measured (bench/doors.py), do not pay for: ``score``'s
#: look-alikes (rapidfuzz; ``score -q`` shows none), its acceptance of a signed bundle or a given
#: validation (``--trust``, ``--validation``) and its ``--ledger`` record (sqlite3 and the ledger).
PARTS = {
    ("score", "accepted"): Part("ranking.cli.score_accepted", "accepted_inputs"),
    ("score", "lookalikes"): Part("ranking.cli.score_lookalikes", "selected_lookalikes"),
    ("score", "ledger"): Part("ranking.cli.score_ledger", "record_scored"),
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
        for name, command in COMMANDS.items():
            add_global_options(self.add_parser(name, help=command.help), in_command=True)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, *rest: Any) -> None:
        name = values[0]  # argparse has checked it against the choices
        if name not in self._declared:
            import_module(COMMANDS[name].module).register(_Listed(self.choices[name]))
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
