"""``evidence-rank validate BUNDLE``: the validation report alone (SPEC §3.7)."""

from __future__ import annotations

import argparse

from ranking.cli.collector import collector_off
from ranking.cli.common import read_bundle, read_config
from ranking.cli.output import emit_document
from ranking.cli.targets import refuse_input_as_output
from ranking.running.outputs import write_file
from validator import validate


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "validate",
        description="Validate one bundle (SPEC §3) and write the evidence-validation-v1 report as canonical JSON "
        "to --out, or to stdout.",
    )
    p.add_argument("bundle", metavar="BUNDLE", help="a curator-bundle-v1 JSON file, or - for standard input")
    p.add_argument(
        "--config", metavar="CONFIG.json", help="ranking config (SPEC §2); defaults apply to members not given"
    )
    p.add_argument("--out", metavar="FILE", help="write here atomically instead of stdout")
    p.set_defaults(run=run)


@collector_off
def run(args: argparse.Namespace) -> int:
    if args.out:
        refuse_input_as_output(args.out, [("BUNDLE", args.bundle), ("--config", args.config)])
    config = read_config(args.config)
    data = validate(read_bundle(args.bundle), config=config).canonical
    if args.out:
        write_file(args.out, data)
    else:
        emit_document(data + b"\n")
    return 0
