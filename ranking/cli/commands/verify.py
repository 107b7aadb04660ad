"""``evidence-rank verify REPORT [--bundle B] [--config C]``: SPEC §7, and the pinned policy.

With a bundle, replay the pipeline and compare canonical bytes. Without one,
check every invariant the report alone can show. With ``--config``, the
report must also have been ranked with that config (``ranking.checking.policy``):
replay alone accepts whatever config the report carries.
"""

from __future__ import annotations

import argparse

from curator_io.catalogue import INVARIANTS
from ranking.checking.acceptance import Sources, accept
from ranking.cli.collector import collector_off
from ranking.cli.output import emit
from ranking.cli.signed import add_trust_options, read_signed
from ranking.running.inputs import read_input


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "verify",
        description="Without --bundle: check the SPEC §7 invariants of REPORT (conflict_free needs the bundle). "
        "With --bundle: replay the pipeline and compare canonical bytes, which holds every invariant. "
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
    pinned = read_input(args.config) if args.config else None
    signed = read_signed(args, args.bundle or args.report)  # with the bundle, its signature is the one that counts
    report = read_input(args.report)
    bundle = read_input(args.bundle) if args.bundle else None
    sources = Sources(
        report=args.report, bundle=args.bundle, signature=signed.where, trust=args.trust, config=args.config
    )
    accepted = accept(
        report, bundle=bundle, config=pinned, trust=signed.trust, signature=signed.signature, sources=sources
    )
    if accepted.replayed:
        verdict = f"every invariant holds and the replay from {args.bundle} is byte-identical"
    else:
        checked = [name for name in INVARIANTS if name != "conflict_free"]
        verdict = f"invariants hold ({', '.join(checked)}); conflict_free needs --bundle"
    if accepted.signer is not None:
        verdict += f"; {'the bundle' if args.bundle else 'the report'} is signed by {accepted.signer.shown}"
    pinning = (
        "config not pinned (--config pins it)" if pinned is None else f"ranked with the pinned config {args.config}"
    )
    emit(f"{args.report}: {verdict}; {pinning}")
    return 0
