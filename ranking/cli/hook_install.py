"""What ``evidence-rank hook install`` runs (arguments are parsed in :mod:`ranking.cli.commands.hook`),
a module of its own in the command table: ``hook claude-code`` does not pay for it."""

from __future__ import annotations

import argparse
import os

from curator_io.errors import InputError
from ranking.cli.commands.hook import existing_file
from ranking.cli.output import say
from ranking.integrations.claude_code_settings import hook_entry, merged_settings
from ranking.running.outputs import write_file

__all__ = ["run_install"]


def run_install(args: argparse.Namespace) -> int:
    path = os.path.normpath(
        os.path.join(args.project, ".claude", "settings.local.json" if args.local else "settings.json")
    )
    before = existing_file(path)
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
