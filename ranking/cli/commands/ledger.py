"""``evidence-rank ledger add|history|notes|export|verify|merge|render|carry``: the admission ledger (docs/ledger.md).

The subcommands run in :mod:`ranking.cli.ledger_runs`, which the command table
(``SUBCOMMANDS`` in :mod:`ranking.cli.commands`) imports only when one runs.
"""

from __future__ import annotations

import argparse

from ranking.cli.commands import SUBCOMMANDS, add_global_options
from ranking.ledger.fate import KINDS

__all__ = ["register"]


#: ``ranking.ledger.notes.model.Budget()``'s defaults, as ``ledger notes --help`` shows them: written
#: here, as the ledger package is not imported to parse arguments (a test holds them equal).
BUDGET_DEFAULTS = {"notes": 10, "per_lesson": 3, "note_bytes": 700, "prompt_bytes": 4096}


def _natural(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text}")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text}")
    return value


class _WithGlobalOptions:
    """The ledger's subcommands, each taking -v and --log-format after it too, as every command does."""

    def __init__(self, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        self._sub = sub

    def add_parser(self, name: str, *, help: str, description: str | None = None) -> argparse.ArgumentParser:
        parser = self._sub.add_parser(name, help=help, description=description)
        add_global_options(parser, in_command=True)
        return parser


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "ledger",
        description="A ledger is an SQLite file holding sealed ranking reports and one row per decision "
        "(docs/ledger.md). Exit 0 ok, 2 usage, 3 a report that is not I-JSON, 4 a tampered report or row, "
        "or a damaged ledger.",
    )
    commands = _WithGlobalOptions(p.add_subparsers(dest="ledger_command", required=True, metavar="SUBCOMMAND"))

    add = commands.add_parser("add", help="verify reports (SPEC §7) and record them; one already there adds nothing")
    add.add_argument("ledger", metavar="PATH", help="the ledger file (created if missing)")
    add.add_argument("reports", nargs="+", metavar="REPORT", help="evidence-ranking-v1 reports")
    add.set_defaults(run=SUBCOMMANDS["ledger", "add"])

    history = commands.add_parser("history", help="every decision on one edit across runs, oldest first")
    history.add_argument("ledger", metavar="PATH")
    which = history.add_mutually_exclusive_group(required=True)
    which.add_argument("--fingerprint", metavar="F", help="the edit's fingerprint (SPEC §3.6)")
    which.add_argument("--proposal", metavar="ID", help="a proposal id")
    which.add_argument("--lesson", metavar="L", help="a lesson id")
    history.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or a JSON array")
    history.set_defaults(run=SUBCOMMANDS["ledger", "history"])

    notes = commands.add_parser(
        "notes",
        help="the curator's notes for its next prompt: what to do next with each edit it proposed before",
        description="One note per edit the ledger decided and did not admit last, what a curator must not miss "
        "first: " + "; ".join(k.meaning for k in KINDS) + ". Bounded by the budget below, which counts what it "
        "leaves out (docs/ledger.md).",
    )
    notes.add_argument("ledger", metavar="PATH")
    notes.add_argument("--lesson", metavar="L", help="only notes on edits citing this lesson id")
    notes.add_argument(
        "--memory-version",
        metavar="N",
        type=_natural,
        help="the memory's current version, which a stale edit's note names",
    )
    notes.add_argument(
        "--memory",
        metavar="FILE",
        help="the current memory (JSON, or a Markdown memory such as AGENTS.md): each note names its edit's "
        "look-alikes in it (and, in a Markdown memory, among its prose's list items, as 'prose line N'), an "
        "admitted edit that resembles another instruction gets a note, and its version is the one a stale "
        "edit's note names",
    )
    notes.add_argument("--format", choices=("text", "json"), default="text", help="text (a line a note) or JSON")
    shown = BUDGET_DEFAULTS
    notes.add_argument("--limit", metavar="N", type=_positive_int, help=f"at most N notes (default {shown['notes']})")
    notes.add_argument(
        "--per-lesson",
        metavar="N",
        type=_positive_int,
        help=f"at most N notes on one lesson's edits (default {shown['per_lesson']})",
    )
    notes.add_argument(
        "--note-bytes",
        metavar="N",
        type=_positive_int,
        help=f"at most N bytes a note, 80 or more (default {shown['note_bytes']}; operations past it are counted)",
    )
    notes.add_argument(
        "--prompt-bytes",
        metavar="N",
        type=_positive_int,
        help=f"at most N bytes in all (default {shown['prompt_bytes']})",
    )
    notes.set_defaults(run=SUBCOMMANDS["ledger", "notes"])

    export = commands.add_parser("export", help="JSONL, one decision per line, in an order fixed by the content")
    export.add_argument("ledger", metavar="PATH")
    export.add_argument(
        "--pool", action="store_true", help="the pool instead: memories, waiting edits and tombstones (schema 4)"
    )
    export.set_defaults(run=SUBCOMMANDS["ledger", "export"])

    verify = commands.add_parser("verify", help="check every report's seal and re-derive every row (exit 4 if not)")
    verify.add_argument("ledger", metavar="PATH")
    verify.set_defaults(run=SUBCOMMANDS["ledger", "verify"])

    merge = commands.add_parser("merge", help="add every report and outcome of OTHER... (a union, in any order)")
    merge.add_argument("ledger", metavar="PATH", help="the ledger to add to (created if missing)")
    merge.add_argument("others", nargs="+", metavar="OTHER", help="ledgers to read; they are not changed")
    merge.set_defaults(run=SUBCOMMANDS["ledger", "merge"])

    render = commands.add_parser(
        "render", help="verify the ledger (as verify does), then write a self-contained HTML page of it"
    )
    render.add_argument("ledger", metavar="PATH")
    render.add_argument("--out", metavar="FILE.html", required=True, help="where to write the page")
    render.set_defaults(run=SUBCOMMANDS["ledger", "render"])

    carry = commands.add_parser(
        "carry",
        help="carry the pool's waiting edits, with their evidence, into BUNDLE, written to --out (docs/ledger.md)",
    )
    carry.add_argument("ledger", metavar="LEDGER")
    carry.add_argument("bundle", metavar="BUNDLE", help="the next bundle (a file, or - for standard input)")
    carry.add_argument("--out", metavar="BUNDLE", required=True, help="where to write the bundle with the pool in it")
    carry.set_defaults(run=SUBCOMMANDS["ledger", "carry"])
