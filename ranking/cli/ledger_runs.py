"""What ``evidence-rank ledger ...`` runs (arguments are parsed in :mod:`ranking.cli.commands.ledger`);
``score --ledger`` runs :mod:`ranking.cli.score_ledger`, ``batch --ledger`` :mod:`ranking.running.recorder`."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from curator_io.canonical import canon
from curator_io.errors import ConfigError, InputError, TamperError
from curator_io.jsonio import parse_json
from curator_io.memory_object import check_memory
from ranking.cli.common import load_named_bundle
from ranking.cli.output import emit, emit_json
from ranking.cli.targets import ledger_files, refuse_input_as_output
from ranking.ledger.carry import LEFT_OUT, carried_bundle
from ranking.ledger.curator import notes_of
from ranking.ledger.history import counted, render_history
from ranking.ledger.notes.model import Budget
from ranking.ledger.pool import export_lines
from ranking.ledger.records import decision_json
from ranking.ledger.store import Ledger
from ranking.running.inputs import read_input, read_memory_file
from ranking.running.outputs import write_file
from ranking.running.outputs.atomic import refuse_folder_name
from ranking.views.terminal import printable

__all__ = [
    "run_history",
    "run_notes",
    "run_export",
    "run_verify",
    "run_merge",
    "run_carry",
    "verified",
]


def run_history(args: argparse.Namespace) -> int:
    with Ledger.open(args.ledger, read_only=True) as ledger:
        if args.proposal is not None:
            # The same edit worded otherwise has the same fingerprint (SPEC §3.6): its decisions belong here.
            found = ledger.same_edit_as(args.proposal, lesson=args.lesson)
        else:
            found = ledger.decisions(fingerprint=args.fingerprint, lesson=args.lesson)
        outcomes = ledger.outcomes_of(found)
        signers = ledger.signers_of({d.report for d in found})
        edits = ledger.edits_of(d.fingerprint for d in found if d.fingerprint is not None)
    entries = [(d, outcomes[(d.report, d.proposal)]) for d in found]
    if args.format == "json":
        json = [decision_json(d, tuple(o), signers.get(d.report, ())) for d, o in entries]
        emit_json(canon(json))
    elif not entries:
        emit(f"no decision in {args.ledger} matches")
    else:
        emit(render_history(entries, signers, proposal=args.proposal, edits=edits))
    return 0


def run_notes(args: argparse.Namespace) -> int:
    given = {
        "notes": args.limit,
        "per_lesson": args.per_lesson,
        "note_bytes": args.note_bytes,
        "prompt_bytes": args.prompt_bytes,
    }
    try:
        budget = Budget(**{name: value for name, value in given.items() if value is not None})
    except ValueError as e:
        raise ConfigError("usage.invalid_option", str(e)) from e
    memory, prose = None, tuple[tuple[int, str], ...]()
    if args.memory is not None:
        document = read_memory_file(args.memory).document
        memory = document.memory
        try:
            check_memory(memory)
        except InputError as e:
            raise e.in_file(args.memory) from None
        prose = () if document.markdown is None else document.markdown.prose_rules
    json = args.format == "json"
    with Ledger.open(args.ledger, read_only=True) as ledger:
        notes = notes_of(
            ledger,
            lesson=args.lesson,
            memory_version=args.memory_version,
            budget=budget,
            memory=memory,
            # Text is printed through the escaper, and each line is fitted to the budget as printed.
            printed=None if json else printable,
            prose=prose,
        )
    if json:
        emit_json(canon(notes.to_json()))
    else:
        counted = notes.left_out_line()
        emit([n.line for n in notes] + ([counted] if counted else []))
    return 0


def run_export(args: argparse.Namespace) -> int:
    if args.pool:
        with Ledger.open(args.ledger, read_only=True) as ledger:
            for line in export_lines(ledger.memories(), ledger.pool(), ledger.pool_dropped()):
                emit_json(canon(line))
        return 0
    with Ledger.open(args.ledger, read_only=True) as ledger:
        signers = ledger.signers_of()
        for decision, outcomes in ledger.export():
            line = decision_json(decision, tuple(outcomes), signers.get(decision.report, ()))
            emit_json(canon(line))
    return 0


def run_verify(args: argparse.Namespace) -> int:
    with Ledger.open(args.ledger, read_only=True) as ledger:
        reports, decisions, outcomes = verified(ledger, args.ledger)
    emit(
        f"{args.ledger}: {reports} reports sealed and valid, {decisions} decisions derived from them, "
        f"{outcomes} outcomes matching their keys"
    )
    return 0


def run_carry(args: argparse.Namespace) -> int:
    """``ledger carry LEDGER BUNDLE --out BUNDLE``: the pool carried into BUNDLE, written atomically."""
    refuse_input_as_output(args.out, [*ledger_files(args.ledger), ("BUNDLE", args.bundle)])
    refuse_folder_name(args.out)
    raw = read_input(args.bundle)
    load_named_bundle(raw, args.bundle)  # what is not a bundle is refused as every command refuses it
    with Ledger.open(args.ledger, read_only=True) as ledger:
        entries = ledger.pool()
    document = parse_json(raw)  # Cannot fail: it loaded.
    try:
        canonical, said = carried_bundle(document, entries)
    except InputError as e:  # pragma: no cover - carry writes only what loads; kept for the message's place
        raise e.in_file(args.out) from e
    write_file(Path(args.out), canonical + b"\n")
    for item in said:
        emit(item.sentence())
    kept = sum(item.outcome != LEFT_OUT for item in said)
    emit(f"{args.out}: {counted(kept, 'edit')} carried from {args.ledger}, {len(said) - kept} left out")
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
                emit(f"{path}: {counted(reports, 'report')} and {counted(outcomes, 'outcome')} added")
    return 0
