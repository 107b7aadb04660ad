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

from curator_io.errors import ConfigError, EvidenceRankError, InputError
from ranking.cli.commands import add_global_options
from ranking.cli.output import emit, say
from ranking.running.inputs import read_input
from ranking.running.outputs import write_file

__all__ = ["register"]

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
    claude.set_defaults(run=run_claude_code)

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
    install.set_defaults(run=run_install)

    commit = commands.add_parser(
        "pre-commit", help="gate each Markdown memory FILE against HEAD's: its section unchanged, its prose held"
    )
    commit.add_argument("files", nargs="*", metavar="FILE", help="the files pre-commit passes")
    commit.add_argument(
        "--allow-prose-changes", action="store_true", help="list each prose change as accepted instead of failing"
    )
    commit.set_defaults(run=run_pre_commit)
    for parser in (claude, install, commit):
        add_global_options(parser, in_command=True)


def run_claude_code(args: argparse.Namespace) -> int:
    """Exit 0: the call may run; 2: refused, or unreadable (Claude Code lets a call run on any other exit)."""
    from ranking.integrations.claude_code import decide, read_call

    try:
        call = read_call(read_input("-"), os.getcwd())
        verdict = decide(call, _existing, args.lessons)
    except (EvidenceRankError, OSError) as e:
        line = e.line if isinstance(e, EvidenceRankError) else f"{e.strerror}: {e.filename!r}"
        say(f"evidence-rank hook: refused, the call cannot be checked: {line}")
        return 2
    if not verdict.allowed:
        say(verdict.line)
        return 2
    return 0


def _existing(path: str) -> bytes | None:
    """The file's bytes through the door in; None when there is none. Anything but a regular file is
    refused before it is opened: a FIFO would block the hook, and a tool call with it."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(found.st_mode):
        raise InputError("input.hook_payload", f"{path}: not a regular file, so what the call does to it is unknown")
    return read_input(path)


def run_install(args: argparse.Namespace) -> int:
    from ranking.integrations.claude_code_settings import hook_entry, merged_settings

    path = os.path.normpath(
        os.path.join(args.project, ".claude", "settings.local.json" if args.local else "settings.json")
    )
    before = _existing(path)
    try:
        data = merged_settings(before, hook_entry(args.program, args.lessons))
    except InputError as e:
        raise e.in_file(path) from e
    if data == before:
        say(f"{path}: the hook is installed already; nothing written")
        return 0
    # A symlink is followed, as apply follows one: the file it names gets the hook.
    write_file(os.path.realpath(path), data, keep_mode=before is not None)
    say(f"{path}: PreToolUse hook installed for Write, Edit, MultiEdit, NotebookEdit and Bash")
    return 0


def run_pre_commit(args: argparse.Namespace) -> int:
    from ranking.checking.uncurated import gate_adoption, gate_mode, gate_person
    from ranking.running.git_base import read_head_file
    from ranking.running.inputs import read_memory_file
    from ranking.views.gate import render_text

    failed = False
    for name in args.files:
        after = read_memory_file(name)
        head = read_head_file(name)
        base = read_memory_file(name, b"" if head is None else head)
        if b"evidence-rank:memory" not in after.raw and b"evidence-rank:memory" not in base.raw:
            continue  # no managed section in either: a file the gate has nothing to say about
        if not after.markdown:
            raise ConfigError("usage.invalid_option", f"{name}: a Markdown memory's name ends in .md")
        mode = gate_mode(after, base)
        decide = gate_adoption if mode == "adoption" else gate_person
        result = decide(after, base, allow_prose_changes=args.allow_prose_changes)
        emit([f"{name}: {line}" for line in render_text(result)])
        failed = failed or not result.passed
    return 1 if failed else 0
