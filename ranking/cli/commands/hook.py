"""``evidence-rank hook``: the early word before CI's gate (docs/gate-your-agents-md.md).

``hook claude-code`` is Claude Code's ``PreToolUse`` hook (:mod:`ranking.integrations.claude_code`):
the tool call on standard input, exit 0 to let it run, exit 2 and one line on standard error to
refuse it, for a call that would change a managed section and for any call it cannot read.
``hook install claude-code`` merges it into ``.claude/settings.json`` (or ``settings.local.json``)
(:mod:`ranking.integrations.claude_code_settings`), written atomically. ``hook pre-commit FILE...``
gates each Markdown memory against the file ``HEAD`` holds, as a change with no curated run
(:mod:`ranking.checking.uncurated`).
"""

from __future__ import annotations

import argparse
import os
import stat

from curator_io.errors import InputError
from ranking.cli.commands import SUBCOMMANDS, add_global_options
from ranking.running.inputs import read_input

__all__ = ["existing_file", "register"]

LESSONS = "curator/lessons.md"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "hook",
        description="Hooks that refuse a change of a Markdown memory's managed section before CI does: Claude "
        "Code's PreToolUse hook, its install, and a pre-commit hook (docs/gate-your-agents-md.md).",
    )
    commands = p.add_subparsers(dest="hook_command", required=True, metavar="SUBCOMMAND")

    claude = commands.add_parser(
        "claude-code",
        help="Claude Code's PreToolUse hook: the tool call on stdin; exit 2 and one line on stderr refuse it",
    )
    claude.add_argument(
        "--lessons",
        metavar="FILE",
        default=LESSONS,
        help=f"where a refusal tells the agent to write a lesson instead, for the curator (default {LESSONS})",
    )
    claude.set_defaults(run=SUBCOMMANDS["hook", "claude-code"])

    install = commands.add_parser("install", help="merge a hook into the settings a tool already has")
    install.add_argument("tool", choices=("claude-code",), help="the tool whose settings get the hook")
    install.add_argument("--project", metavar="DIR", default=".", help="the project folder (default: here)")
    install.add_argument(
        "--local",
        action="store_true",
        help="write .claude/settings.local.json (yours alone, not committed) instead of .claude/settings.json",
    )
    install.add_argument(
        "--lessons", metavar="FILE", default=LESSONS, help=f"as hook claude-code's (default {LESSONS})"
    )
    install.add_argument(
        "--program",
        metavar="COMMAND",
        default="evidence-rank",
        help="how the hook runs evidence-rank (default: evidence-rank, found on PATH)",
    )
    install.set_defaults(run=SUBCOMMANDS["hook", "install"])

    commit = commands.add_parser(
        "pre-commit", help="gate each Markdown memory FILE against HEAD's: its section unchanged, its prose held"
    )
    commit.add_argument("files", nargs="*", metavar="FILE", help="the files pre-commit passes")
    commit.add_argument(
        "--allow-prose-changes", action="store_true", help="list each prose change as accepted instead of failing"
    )
    commit.set_defaults(run=SUBCOMMANDS["hook", "pre-commit"])
    for parser in (claude, install, commit):
        add_global_options(parser, in_command=True)


def existing_file(path: str) -> bytes | None:
    """The file's bytes through the door in; None when there is none. Anything but a regular file is
    refused before it is opened: a FIFO would block the hook, and a tool call with it."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(found.st_mode):
        raise InputError("input.hook_payload", f"{path}: not a regular file, so what the call does to it is unknown")
    return read_input(path)
