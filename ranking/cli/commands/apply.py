"""``evidence-rank apply BUNDLE REPORT``: the memory the selection permits (SPEC §8)."""

from __future__ import annotations

import argparse

from curator_io.canonical import canon
from ranking.checking.acceptance import Sources, accept
from ranking.checking.apply import apply_selection, reviewable
from ranking.cli.collector import collector_off
from ranking.cli.logs import get_logger
from ranking.cli.output import write_stdout
from ranking.cli.targets import refuse_input_as_output
from ranking.running.inputs import read_input
from ranking.running.outputs import write_file

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "apply",
        description="Apply the report's selection to the bundle's memory (SPEC §8) and print it for review: "
        "indented, one member a line, members in SPEC §1's order, so a pull request shows the instructions "
        "added, changed and removed (--canonical: RFC 8785 bytes instead; the gate takes either). The report "
        "must be this bundle's, byte for byte: any other is refused with report.tampered (exit 4).",
    )
    p.add_argument("bundle", metavar="BUNDLE", help="the curator-bundle-v1 JSON file the report was computed from")
    p.add_argument("report", metavar="REPORT", help="the evidence-ranking-v1 report (report.json)")
    p.add_argument("--out", metavar="FILE", help="write the memory to FILE (atomically) instead of stdout")
    p.add_argument("--canonical", action="store_true", help="write canonical RFC 8785 bytes (one line) instead")
    p.set_defaults(run=run)


@collector_off
def run(args: argparse.Namespace) -> int:
    if args.out:
        refuse_input_as_output(args.out, [("BUNDLE", args.bundle), ("REPORT", args.report)])
    bundle, report = read_input(args.bundle), read_input(args.report)
    accepted = accept(report, bundle=bundle, sources=Sources(report=args.report, bundle=args.bundle))
    memory = apply_selection(accepted)
    data = canon(memory) if args.canonical else reviewable(memory)
    if args.out:
        write_file(args.out, data)
    else:
        write_stdout(data)
    get_logger().info("applied", bundle=args.bundle, selected=list(accepted.report.selected), version=memory["version"])
    return 0
