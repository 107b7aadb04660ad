"""``evidence-rank transcript show|check``: an agent's log (a Claude Code session, OTLP JSON spans)
as the evidence it supports, and a bundle's evidence replayed against its logs (docs/transcripts.md)."""

from __future__ import annotations

import argparse

from curator_io.canonical import canon
from curator_io.catalogue import EXIT_FAILED
from curator_io.transcripts.model import FORMS
from ranking.checking.transcript_replay import replay_transcripts
from ranking.cli.commands import add_global_options
from ranking.cli.output import emit, emit_json
from ranking.running.inputs import read_input, read_transcript_file
from ranking.views.transcripts import DEFAULT_LIMIT, replay_json, replay_lines, transcript_json, transcript_lines

__all__ = ["register"]


def _limit(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of 1 or more, got {text!r}")
    return int(text)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "transcript",
        description="An agent's log (a Claude Code session file, or OTLP JSON GenAI spans) read as evidence "
        "(docs/transcripts.md). Exit 0 ok, 1 a bundle's evidence not as its logs give it, 2 usage, 3 a file "
        "in which no record of its form was read.",
    )
    commands = p.add_subparsers(dest="transcript_command", required=True, metavar="SUBCOMMAND")
    show = commands.add_parser("show", help="list each session's evidence: id, step, signal, outcome")
    show.add_argument("files", nargs="+", metavar="FILE", help="a transcript file (- for standard input)")
    show.add_argument("--limit", type=_limit, default=DEFAULT_LIMIT, help="evidence items shown a session")
    show.set_defaults(run=run_show)
    check = commands.add_parser("check", help="replay a bundle's evidence against the transcripts it was read from")
    check.add_argument("bundle", metavar="BUNDLE", help="a curator-bundle-v1")
    check.add_argument("files", nargs="+", metavar="FILE", help="the transcript files")
    check.set_defaults(run=run_check)
    for parser in (show, check):
        parser.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or JSON")
        parser.add_argument("--form", choices=FORMS, help="the log's form (default: its first record says)")
        add_global_options(parser, in_command=True)


def run_show(args: argparse.Namespace) -> int:
    transcripts = [read_transcript_file(path, form=args.form) for path in args.files]
    if args.format == "json":
        emit_json(canon(transcript_json(transcripts, limit=args.limit)))
    else:
        for transcript in transcripts:
            emit(transcript_lines(transcript, limit=args.limit))
    return 0


def run_check(args: argparse.Namespace) -> int:
    bundle = read_input(args.bundle)
    transcripts = [read_transcript_file(path, form=args.form) for path in args.files]
    replay = replay_transcripts(bundle, transcripts)
    if args.format == "json":
        emit_json(canon(replay_json(replay)))
    else:
        emit(replay_lines(replay, files=len(transcripts)))
    return 0 if replay.ok else EXIT_FAILED
