"""What ``evidence-rank hook claude-code`` runs (arguments are parsed in :mod:`ranking.cli.commands.hook`):
a module of its own in the command table, as it runs on every tool call Claude Code makes and pays
for no other subcommand's imports."""

from __future__ import annotations

import argparse
import os

from curator_io.errors import EvidenceRankError
from ranking.cli.commands.hook import existing_file
from ranking.cli.output import say
from ranking.integrations.claude_code import decide, read_call
from ranking.running.inputs import read_input

__all__ = ["run_claude_code"]


def run_claude_code(args: argparse.Namespace) -> int:
    """Exit 0: the call may run; 2: refused, or unreadable (Claude Code lets a call run on any other exit)."""
    try:
        call = read_call(read_input("-"), os.getcwd())
        verdict = decide(call, existing_file, args.lessons)
    except (EvidenceRankError, OSError) as e:
        line = e.line if isinstance(e, EvidenceRankError) else f"{e.strerror}: {e.filename!r}"
        say(f"evidence-rank hook: refused, the call cannot be checked: {line}")
        return 2
    if not verdict.allowed:
        say(verdict.line)
        return 2
    return 0
