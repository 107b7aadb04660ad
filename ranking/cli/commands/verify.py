"""``evidence-rank verify REPORT [--bundle B] [--config C]``: SPEC §7.

With a bundle, replay the pipeline and compare canonical bytes. Without one,
check every invariant the report alone can show.
"""

from __future__ import annotations

import argparse

from ranking.cli.common import read_bundle, read_config, read_report
from ranking.cli.output import emit
from ranking.verification import INVARIANTS, check_report, proposals_of, replay_report


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verify",
        help="check a ranking report's invariants, or replay it against its bundle",
        description="Without --bundle: check the SPEC §7 invariants of REPORT (conflict_free needs the bundle). "
        "With --bundle: check them all, then replay the pipeline and compare canonical bytes. "
        "Exit 0 when the report holds, 4 when it does not.",
    )
    p.add_argument("report", metavar="REPORT")
    p.add_argument("--bundle", metavar="BUNDLE", help="replay against this bundle")
    p.add_argument("--config", metavar="CONFIG.json", help="replay with this config instead of the report's own")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    report = read_report(args.report)
    config = read_config(args.config) if args.config else None
    if args.bundle is None:
        check_report(report)
        checked = [name for name in INVARIANTS if name != "conflict_free"]
        emit(f"{args.report}: invariants hold ({', '.join(checked)}); conflict_free needs --bundle")
        return 0
    bundle = read_bundle(args.bundle)
    check_report(report, proposals=proposals_of(bundle))
    replay_report(bundle, report, config=config)
    emit(f"{args.report}: every invariant holds and the replay from {args.bundle} is byte-identical")
    return 0
