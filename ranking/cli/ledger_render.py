"""What ``evidence-rank ledger render`` runs (arguments are parsed in :mod:`ranking.cli.commands.ledger`),
a module of its own in the command table: only this subcommand needs Jinja2."""

from __future__ import annotations

import argparse
from pathlib import Path

from ranking.cli.ledger_runs import verified
from ranking.cli.output import emit
from ranking.cli.targets import ledger_files, refuse_input_as_output
from ranking.ledger.store import Ledger
from ranking.running.outputs import write_file
from ranking.running.outputs.atomic import refuse_folder_name
from ranking.views.html import render_ledger

__all__ = ["run_render"]


def run_render(args: argparse.Namespace) -> int:
    refuse_input_as_output(args.out, ledger_files(args.ledger))
    refuse_folder_name(args.out)
    with Ledger.open(args.ledger, read_only=True) as ledger:
        verified(ledger, args.ledger)  # before anything is written: a tampered ledger gets no page
        entries = list(ledger.export())
        edits = ledger.edits_of(d.fingerprint for d, _ in entries if d.fingerprint is not None)
    out = Path(args.out)
    write_file(out, render_ledger(entries, edits).encode("utf-8"))
    runs = len({d.run for d, _ in entries})
    emit(f"{out}: ledger view of {args.ledger} ({runs} run(s), {len(entries)} decisions)")
    return 0
