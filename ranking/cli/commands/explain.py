"""``evidence-rank explain REPORT PROPOSAL_ID``: why one proposal got its disposition, in plain language."""

from __future__ import annotations

import argparse

from curator_io.errors import ConfigError
from ranking.checking.acceptance import Sources, accept
from ranking.checking.explain import explain
from ranking.cli.collector import collector_off
from ranking.cli.common import read_prose_rules
from ranking.cli.output import emit
from ranking.running.inputs import read_input

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "explain",
        description="Explain one proposal of a ranking report: each reason code as a sentence, each score "
        "component with the inputs behind it, and what superseded it and why. Without --bundle the report must "
        "satisfy every invariant (else exit 4). With --bundle (which must be the report's bundle, else "
        "report.tampered, exit 4) it also lists every cited evidence item with its trace, lineage, "
        "materialization, signal and integrity, the operations, what a conflict is about, and the instructions under "
        "other keys that an added or replaced text resembles (advice: docs/lookalikes.md).",
    )
    p.add_argument("report", metavar="REPORT", help="an evidence-ranking-v1 report")
    p.add_argument("proposal_id", metavar="PROPOSAL_ID", help="the proposal's id as the report writes it (or @<index>)")
    p.add_argument("--bundle", metavar="BUNDLE", help="the curator-bundle-v1 the report was computed from")
    p.add_argument(
        "--memory",
        metavar="FILE.md",
        help="with --bundle: a Markdown memory (an AGENTS.md) whose prose's list items look-alikes also "
        "compare the proposal's texts with, by line",
    )
    p.set_defaults(run=run)


@collector_off
def run(args: argparse.Namespace) -> int:
    if args.memory is not None and args.bundle is None:
        why = "--memory compares the bundle's proposals with its prose: give --bundle"
        raise ConfigError("usage.invalid_option", why)
    report = read_input(args.report)
    bundle = read_input(args.bundle) if args.bundle else None
    accepted = accept(report, bundle=bundle, sources=Sources(report=args.report, bundle=args.bundle))
    emit(explain(accepted, args.proposal_id, prose=read_prose_rules(args.memory)).render())
    return 0
