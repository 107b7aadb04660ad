"""What ``evidence-rank hook pre-commit`` runs (arguments are parsed in :mod:`ranking.cli.commands.hook`),
a module of its own in the command table: ``hook claude-code`` does not pay for the gate."""

from __future__ import annotations

import argparse

from curator_io.errors import ConfigError
from ranking.checking.uncurated import gate_adoption, gate_mode, gate_person
from ranking.cli.output import emit
from ranking.running.git_base import read_head_file
from ranking.running.inputs import read_memory_file
from ranking.views.gate import render_text

__all__ = ["run_pre_commit"]


def run_pre_commit(args: argparse.Namespace) -> int:
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
