"""``evidence-rank verify REPORT [--bundle B] [--config C]``: SPEC §7, and the pinned policy.

With a bundle, replay the pipeline and compare canonical bytes. Without one,
check every invariant the report alone can show. With ``--config``, the
report must also have been ranked with that config (``ranking.checking.policy``):
replay alone accepts whatever config the report carries.
"""

from __future__ import annotations

import argparse

from curator_io.grammar import printable
from ranking.checking.policy import check_policy
from ranking.checking.verification import INVARIANTS, check_report, replay_report
from ranking.cli.collector import collector_off
from ranking.cli.common import pointing_into, read_bundle, read_config, read_report
from ranking.cli.output import emit
from ranking.cli.signed import add_trust_options, check_signed, read_trust
from validator import proposals_of


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "verify",
        description="Without --bundle: check the SPEC §7 invariants of REPORT (conflict_free needs the bundle). "
        "With --bundle: check them all, then replay the pipeline and compare canonical bytes. "
        "With --config: also refuse a report ranked with any other config, naming each differing member. "
        "Without --config the report's own config is trusted: pin it when the report comes from elsewhere. "
        "Exit 0 when the report holds, 1 when it was ranked with another config than --config, "
        "4 when it does not hold.",
    )
    p.add_argument("report", metavar="REPORT")
    p.add_argument("--bundle", metavar="BUNDLE", help="replay against this bundle")
    p.add_argument(
        "--config",
        metavar="CONFIG.json",
        help="the pinned policy: fail (exit 1) unless the report was ranked with exactly this config",
    )
    add_trust_options(p, "the bundle (with --bundle: the replay derives the report from it) or else REPORT")
    p.set_defaults(run=run)


@collector_off
def run(args: argparse.Namespace) -> int:
    report = read_report(args.report)
    pinned = read_config(args.config) if args.config else None
    trust = read_trust(args)
    with pointing_into(args.report):
        if args.bundle is None:
            checked_report = check_report(report)  # the seal first: the signature's subject is the report's digest
            signer = check_signed(trust, args, path=args.report, kind="report", digest=checked_report.digest)
            checked = [name for name in INVARIANTS if name != "conflict_free"]
            verdict = f"invariants hold ({', '.join(checked)}); conflict_free needs --bundle"
        else:
            bundle = read_bundle(args.bundle)
            # With the bundle, the replay derives the report from it: the bundle's signature is the one that counts.
            signer = check_signed(trust, args, path=args.bundle, kind="bundle", digest=bundle.input_digest)
            check_report(report, proposals=proposals_of(bundle))
            replay_report(bundle, report)  # a forged report is refused (exit 4) before its policy is discussed
            verdict = f"every invariant holds and the replay from {args.bundle} is byte-identical"
        if signer is not None:
            verdict += f"; {'the bundle' if args.bundle else 'the report'} is signed by {signer.shown}"
        if pinned is None:
            emit(printable(f"{args.report}: {verdict}; config not pinned (--config pins it)"))
            return 0
        check_policy(report, pinned)  # policy.config_mismatch, exit 1
    emit(printable(f"{args.report}: {verdict}; ranked with the pinned config {args.config}"))
    return 0
