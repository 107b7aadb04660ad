"""``evidence-rank score BUNDLE``: the main job."""

from __future__ import annotations

import argparse
from pathlib import Path

from curator_io.bundle import load_bundle
from curator_io.canonical import canon
from curator_io.errors import InputError
from curator_io.files import read_bytes, remove_if_present, write_atomic
from ranking.cli.common import log_decisions, read_config, read_report, render_table
from ranking.pipeline import collector_paused, result_of
from ranking.verification import check_validation
from validator import validate

OUTPUTS = ("validation.json", "report.json")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="validate and rank one bundle; write validation.json and report.json",
        description="Validate and rank one curator bundle. Writes DIR/validation.json and DIR/report.json "
        "(canonical RFC 8785 bytes, atomically). Exits 0 on any report, no_op included.",
    )
    p.add_argument("bundle", metavar="BUNDLE", help="a curator-bundle-v1 JSON file")
    p.add_argument(
        "--config", metavar="CONFIG.json", help="ranking config (SPEC §2); defaults apply to members not given"
    )
    p.add_argument("--out-dir", metavar="DIR", default="out", help="where to write the reports (default: out)")
    p.add_argument(
        "--validation",
        metavar="V.json",
        help="score against this earlier validation report; refused (exit 4) unless it is sealed and identical "
        "to the one recomputed from BUNDLE and the config",
    )
    p.add_argument(
        "--ledger",
        metavar="PATH",
        help="record the report in this ledger (docs/ledger.md) and mark edits it has seen refused before",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = read_config(args.config)
    raw = read_bytes(args.bundle)
    out = Path(args.out_dir)
    given = read_report(args.validation) if args.validation else None
    try:
        bundle = load_bundle(raw)
    except InputError as e:
        # Nothing stale may pass for this run's outcome: the folder holds the error alone.
        for name in OUTPUTS:
            remove_if_present(out / name)
        write_atomic(out / "error.json", canon(e.to_json()))
        raise
    with collector_paused():
        if given is not None:
            # SPEC §7: scoring recomputes validation and refuses a tampered one.
            validation = check_validation(bundle, given, config=config)
        else:
            validation = validate(bundle, config=config)
        del bundle  # ranking needs only the validation: a large bundle is freed before the reports are built
        result = result_of(validation)
    write_atomic(out / "validation.json", result.validation.canonical)
    write_atomic(out / "report.json", result.canonical)
    remove_if_present(out / "error.json")
    marks = None
    if args.ledger:
        from ranking.cli.ledger_runs import record_scored  # imported when asked for: sqlite3 costs start-up

        marks = record_scored(args.ledger, result.report, result.canonical)
    log_decisions(result.report, bundle=args.bundle)
    print(render_table(result.report, marks))
    return 0
