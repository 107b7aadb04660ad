"""What ``evidence-rank ledger add`` runs (arguments are parsed in :mod:`ranking.cli.commands.ledger`),
a module of its own in the command table: only this subcommand accepts reports, through the one door."""

from __future__ import annotations

import argparse

from ranking.checking.acceptance import Sources, accept
from ranking.cli.output import emit
from ranking.ledger.store import Ledger
from ranking.running.inputs import read_input

__all__ = ["run_add"]


def run_add(args: argparse.Namespace) -> int:
    # Every report is accepted before any is recorded: a tampered one refuses the whole command.
    checked = [(path, accept(read_input(path), sources=Sources(report=path))) for path in args.reports]
    with Ledger.open(args.ledger) as ledger:
        for path, accepted in checked:
            added = ledger.add_report(accepted)
            model = accepted.report
            what = f"recorded run {model.run}, {len(model.proposals)} decisions"
            emit(f"{path}: {what if added else 'already recorded'} ({model.digest})")
    return 0
