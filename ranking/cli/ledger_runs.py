"""What ``evidence-rank ledger ...``, ``score --ledger`` and ``batch --ledger`` run
(arguments are parsed in :mod:`ranking.cli.commands.ledger`)."""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Generator, Iterable, Mapping
from pathlib import Path
from typing import Any

import orjson

from curator_io.canonical import canon
from curator_io.errors import EvidenceRankError, TamperError
from curator_io.files import refuse_folder_name, write_atomic
from curator_io.grammar import printable
from ranking.batch import BundleResult
from ranking.cli.common import read_report
from ranking.cli.logs import get_logger
from ranking.cli.output import emit, write_stdout
from ranking.cli.targets import ledger_files, refuse_input_as_output
from ranking.ledger import Ledger, decisions_of, note_lines, refusal_mark, refusals, render_history
from ranking.ledger.records import Recording, checked_report, decision_json, recording_of

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
            emit(printable(f"{path}: {what if added else 'already recorded'} ({document['digest']})"))
    return 0


def run_history(args: argparse.Namespace) -> int:
    with Ledger.open(args.ledger, read_only=True) as ledger:
        found = ledger.decisions(fingerprint=args.fingerprint, proposal=args.proposal, lesson=args.lesson)
        outcomes = ledger.outcomes_of(found)
    entries = [(d, outcomes[(d.report, d.proposal)]) for d in found]
    if args.format == "json":
        write_stdout(canon([decision_json(d, tuple(o)) for d, o in entries]) + b"\n")
    elif not entries:
        emit(printable(f"no decision in {args.ledger} matches"))
    else:
        emit(render_history(entries))
    return 0


def run_notes(args: argparse.Namespace) -> int:
    with Ledger.open(args.ledger, read_only=True) as ledger:
        found = refusals(ledger.decisions(lesson=args.lesson))
    for line in note_lines(found, args.limit):
        emit(line)
    return 0


def run_export(args: argparse.Namespace) -> int:
    with Ledger.open(args.ledger, read_only=True) as ledger:
        for decision, outcomes in ledger.export():
            write_stdout(canon(decision_json(decision, tuple(outcomes))) + b"\n")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    with Ledger.open(args.ledger, read_only=True) as ledger:
        reports, decisions, outcomes = verified(ledger, args.ledger)
    emit(
        printable(
            f"{args.ledger}: {reports} reports sealed and valid, {decisions} decisions derived from them, "
            f"{outcomes} outcomes matching their keys"
        )
    )
    return 0


def run_render(args: argparse.Namespace) -> int:
    # Imported here: only this subcommand needs Jinja2.
    from ranking.render import render_ledger

    refuse_input_as_output(args.out, ledger_files(args.ledger))
    refuse_folder_name(args.out)
    with Ledger.open(args.ledger, read_only=True) as ledger:
        verified(ledger, args.ledger)  # before anything is written: a tampered ledger gets no page
        entries = list(ledger.export())
    out = Path(args.out)
    write_atomic(out, render_ledger(entries).encode("utf-8"))
    runs = len({d.run for d, _ in entries})
    emit(printable(f"{out}: ledger view of {args.ledger} ({runs} run(s), {len(entries)} decisions)"))
    return 0


def verified(ledger: Ledger, path: str) -> tuple[int, int, int]:
    """``ledger verify``'s check: (reports, decisions, outcomes) checked; each finding printed,
    and ``ledger.tampered`` (exit 4) when there is any."""
    counts, findings = ledger.audit()
    for finding in findings:
        emit(f"tampered: {finding}")  # Finding escapes what the ledger stored: one finding, one line
    if findings:
        first = findings[0]
        raise TamperError(
            "ledger.tampered",
            f"{printable(path)}: {len(findings)} finding(s); first: {first.where_shown}: {printable(first.detail)}",
            pointer=first.pointer,
        )
    return counts


def run_merge(args: argparse.Namespace) -> int:
    # PATH may be an OTHER (nothing to add), never a file SQLite keeps beside one: written as a
    # ledger, it would be taken for (and dropped as) that ledger's WAL or journal.
    for path in args.others:
        refuse_input_as_output(args.ledger, ledger_files(path)[1:], option="PATH")
    with contextlib.ExitStack() as stack:
        # Every OTHER is opened (and its schema checked) first: a missing or foreign one creates nothing.
        others = [(path, stack.enter_context(Ledger.open(path, read_only=True))) for path in args.others]
        with Ledger.open(args.ledger) as ledger:
            for path, other in others:
                reports, outcomes = ledger.merge(other)
                emit(printable(f"{path}: {reports} reports and {outcomes} outcomes added"))
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
        ledger.add_produced([recording_of(report, canonical)])
    return marks


#: ``batch --ledger`` records its reports in groups, one transaction per group: each commit
#: rewrites the index pages its rows touch, and one report per commit cost 2.2x the SQLite
#: time (137 against 62 ms for 1,000 small reports; bench/RESULTS.md). The limits bound what
#: a killed batch has scored but not recorded.
GROUP_REPORTS = 64
GROUP_SECONDS = 0.5
_STOPPING_BUSY_S = 0.5


def recorded(results: Iterable[BundleResult], path: str) -> Generator[BundleResult, None, None]:
    """``batch --ledger``: each result as it comes, in input order; its report recorded in
    input order too, in a group of at most :data:`GROUP_REPORTS` reports or
    :data:`GROUP_SECONDS` seconds.

    Each report lands whole, with its rows, or not at all; a batch that stops
    (an unreadable input, SIGTERM) records the group it holds before it ends,
    and a killed one loses at most that group, which running it again records.

    A local worker derives the ledger's rows where it scored the bundle (the
    engine function's ``keep`` is :func:`recording_of`) and sends them with the
    report's bytes, so this process, which collects every result, only writes.
    A result without them (a remote engine's) has the report's bytes in its
    files; this process then derives the rows itself.
    """
    group: list[Recording] = []
    with Ledger.open(path) as ledger:
        try:
            started = 0.0
            for result in results:
                if result.outcome != "error":
                    if not group:
                        started = time.monotonic()
                    group.append(_recording(result))
                    if len(group) >= GROUP_REPORTS or time.monotonic() - started >= GROUP_SECONDS:
                        full, group = group, []
                        ledger.add_produced(full)
                yield result
        except BaseException:
            # Stopped early (an unreadable input, SIGTERM, Ctrl-C): what was scored is recorded, if the
            # ledger lets us within a moment; the error that stopped the batch is the one reported.
            ledger.busy_timeout = _STOPPING_BUSY_S
            with contextlib.suppress(EvidenceRankError):
                ledger.add_produced(group)
            raise
        ledger.add_produced(group)


def _recording(result: BundleResult) -> Recording:
    if isinstance(result.kept, Recording):
        return result.kept
    body = dict(result.files)["report.json"]
    return recording_of(orjson.loads(body), body)
