"""What ``evidence-rank ledger ...``, ``score --ledger`` and ``batch --ledger`` run
(arguments are parsed in :mod:`ranking.cli.commands.ledger`)."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from curator_io.canonical import canon
from curator_io.errors import EvidenceRankError, TamperError
from curator_io.files import read_bytes, write_atomic
from ranking.batch import BundleResult, output_folder
from ranking.cli.common import read_report
from ranking.cli.logs import get_logger
from ranking.cli.output import emit, write_stdout
from ranking.ledger import Ledger, decisions_of, note_lines, refusal_mark, refusals, render_history
from ranking.ledger.records import checked_report, decision_json

__all__ = [
    "run_add",
    "run_history",
    "run_notes",
    "run_export",
    "run_verify",
    "run_merge",
    "run_render",
    "verified",
    "record_scored",
    "recorded",
    "refusal_marks",
]


def run_add(args: argparse.Namespace) -> int:
    # Every report is verified before any is recorded: a tampered one refuses the whole command.
    checked = []
    for path in args.reports:
        document = read_report(path)
        try:
            checked_report(document)
        except EvidenceRankError as e:
            raise type(e)(e.code, f"{path}: {e.detail}", pointer=e.pointer) from e
        checked.append((path, document))
    with Ledger.open(args.ledger) as ledger:
        for path, document in checked:
            added = ledger.add_report(document)
            what = f"recorded run {document['run']}, {len(document['proposals'])} decisions"
            emit(f"{path}: {what if added else 'already recorded'} ({document['digest']})")
    return 0


def run_history(args: argparse.Namespace) -> int:
    with Ledger.open(args.ledger, create=False) as ledger:
        found = ledger.decisions(fingerprint=args.fingerprint, proposal=args.proposal, lesson=args.lesson)
        outcomes = ledger.outcomes_of(found)
    entries = [(d, outcomes[(d.report, d.proposal)]) for d in found]
    if args.format == "json":
        write_stdout(canon([decision_json(d, tuple(o)) for d, o in entries]) + b"\n")
    elif not entries:
        emit(f"no decision in {args.ledger} matches")
    else:
        emit(render_history(entries))
    return 0


def run_notes(args: argparse.Namespace) -> int:
    with Ledger.open(args.ledger, create=False) as ledger:
        found = refusals(ledger.decisions(lesson=args.lesson))
    for line in note_lines(found, args.limit):
        emit(line)
    return 0


def run_export(args: argparse.Namespace) -> int:
    with Ledger.open(args.ledger, create=False) as ledger:
        for decision, outcomes in ledger.export():
            write_stdout(canon(decision_json(decision, tuple(outcomes))) + b"\n")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    with Ledger.open(args.ledger, create=False) as ledger:
        reports, decisions, outcomes = verified(ledger, args.ledger)
    emit(
        f"{args.ledger}: {reports} reports sealed and valid, {decisions} decisions derived from them, "
        f"{outcomes} outcomes matching their keys"
    )
    return 0


def run_render(args: argparse.Namespace) -> int:
    # Imported here: only this subcommand needs Jinja2.
    from ranking.render import render_ledger

    with Ledger.open(args.ledger, create=False, read_only=True) as ledger:
        verified(ledger, args.ledger)  # before anything is written: a tampered ledger gets no page
        entries = list(ledger.export())
    out = Path(args.out)
    write_atomic(out, render_ledger(entries).encode("utf-8"))
    runs = len({d.run for d, _ in entries})
    emit(f"{out}: ledger view of {args.ledger} ({runs} run(s), {len(entries)} decisions)")
    return 0


def verified(ledger: Ledger, path: str) -> tuple[int, int, int]:
    """``ledger verify``'s check: (reports, decisions, outcomes) checked; each finding printed,
    and ``ledger.tampered`` (exit 4) when there is any."""
    counts, findings = ledger.audit()
    for finding in findings:
        emit(f"tampered: {finding}")
    if findings:
        first = findings[0]
        raise TamperError(
            "ledger.tampered",
            f"{path}: {len(findings)} finding(s); first: {first.where}: {first.detail}",
            pointer=first.pointer,
        )
    return counts


def run_merge(args: argparse.Namespace) -> int:
    with Ledger.open(args.ledger) as ledger:
        for path in args.others:
            with Ledger.open(path, create=False, read_only=True) as other:
                reports, outcomes = ledger.merge(other)
            emit(f"{path}: {reports} reports and {outcomes} outcomes added")
    return 0


def refusal_marks(ledger: Ledger, report: Mapping[str, Any]) -> dict[str, str]:
    """``{proposal id: "refused 2× before: …"}`` for each proposal of ``report`` whose
    fingerprint the ledger has seen refused in another report; logged too."""
    log = get_logger()
    mine = decisions_of(report)
    earlier = refusals(ledger.on_fingerprints(d.fingerprint for d in mine if d.fingerprint), excluding=report["digest"])
    by_fingerprint = {r.fingerprint: r for r in earlier}
    marks = {}
    for d in mine:
        found = by_fingerprint.get(d.fingerprint) if d.fingerprint else None
        if found is not None:
            marks[d.proposal] = refusal_mark(found)
            log.info(
                "ledger.refused_before",
                proposal=d.proposal,
                fingerprint=d.fingerprint,
                times=found.times,
                codes=list(found.codes),
                run=found.latest.run,
            )
    return marks


def record_scored(path: str, report: Mapping[str, Any], canonical: bytes) -> dict[str, str]:
    """``score --ledger``: the refusal marks for ``report`` (from earlier reports only), then record it."""
    with Ledger.open(path) as ledger:
        marks = refusal_marks(ledger, report)
        ledger.add_produced(canonical)
    return marks


def recorded(results: Iterable[BundleResult], path: str, out: Path) -> Iterator[BundleResult]:
    """``batch --ledger``: each result as it comes, in input order, after recording its report.

    A remote engine's result carries the report's bytes. A local worker has
    written its folder itself and sends none back, so the report is read back
    from the folder: one small read of a file still in the page cache, and no
    change to what workers send through the pipe (see docs/ledger.md).
    """
    with Ledger.open(path) as ledger:
        for index, result in enumerate(results, start=1):
            if result.outcome != "error":
                files = dict(result.files)
                body = files.get("report.json") or read_bytes(out / output_folder(index, result.source) / "report.json")
                ledger.add_produced(body)
            yield result
