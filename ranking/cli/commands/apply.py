"""``evidence-rank apply BUNDLE REPORT``: the memory the selection permits (SPEC §8), printed, written
to a file, or put into a Markdown memory's managed section (docs/markdown-memory.md)."""

from __future__ import annotations

import argparse
import os

from curator_io.canonical import canon
from curator_io.errors import ConfigError
from curator_io.memory import is_markdown_name
from ranking.checking.acceptance import Replayed, Sources, accept
from ranking.checking.apply import apply_selection, reviewable
from ranking.checking.into_markdown import into_markdown
from ranking.cli.collector import collector_off
from ranking.cli.logs import get_logger
from ranking.cli.output import emit_document, say
from ranking.cli.targets import refuse_input_as_output
from ranking.running.inputs import read_if_present, read_input, read_memory_file
from ranking.running.outputs import locked_for_update, write_file
from ranking.running.outputs.atomic import refuse_special_file

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "apply",
        description="Apply the report's selection to the bundle's memory (SPEC §8) and print it for review: "
        "indented, one member a line, members in SPEC §1's order, so a pull request shows the instructions "
        "added, changed and removed (--canonical: RFC 8785 bytes instead; the gate takes either). The report "
        "must be this bundle's, byte for byte: any other is refused with report.tampered (exit 4). "
        "--out FILE.md (an AGENTS.md) rewrites only the file's managed section and keeps its prose byte for "
        "byte (docs/markdown-memory.md); a file that does not exist is created holding the section.",
    )
    p.add_argument("bundle", metavar="BUNDLE", help="the curator-bundle-v1 JSON file the report was computed from")
    p.add_argument("report", metavar="REPORT", help="the evidence-ranking-v1 report (report.json)")
    p.add_argument(
        "--out",
        metavar="FILE",
        help="write the memory to FILE (atomically) instead of stdout; a .md FILE gets it as its managed section",
    )
    p.add_argument("--canonical", action="store_true", help="write canonical RFC 8785 bytes (one line) instead")
    p.set_defaults(run=run)


@collector_off
def run(args: argparse.Namespace) -> int:
    markdown = args.out is not None and is_markdown_name(args.out)
    if markdown and args.canonical:
        raise ConfigError("usage.invalid_option", "--canonical writes JSON: it does not go with a Markdown --out")
    if args.out:
        refuse_input_as_output(args.out, [("BUNDLE", args.bundle), ("REPORT", args.report)])
    bundle, report = read_input(args.bundle), read_input(args.report)
    accepted = accept(report, bundle=bundle, sources=Sources(report=args.report, bundle=args.bundle))
    memory = apply_selection(accepted)
    if markdown:
        _into_markdown(args.out, accepted, memory)
    else:
        data = canon(memory) if args.canonical else reviewable(memory)
        if args.out:
            write_file(args.out, data)
        else:
            emit_document(data)
    get_logger().info("applied", bundle=args.bundle, selected=list(accepted.report.selected), version=memory["version"])
    return 0


def _into_markdown(out: str, accepted: Replayed, memory: dict[str, object]) -> None:
    """The Markdown file ``out`` with ``memory`` in its section. A symlink (a CLAUDE.md that links to
    AGENTS.md) is followed: the file it names is rewritten, with its mode, and the link stays. The
    file is locked from its read to its write, so of two applies at once the second reads what the
    first wrote, and is refused (``policy.base_mismatch``) as if it had run after."""
    refuse_special_file(out)  # before it is read: a FIFO there would block the read, a device never end
    with locked_for_update(out, waiting=say):
        raw = read_if_present(out)
        found = None if raw is None else read_memory_file(out, raw).document.markdown
        write_file(os.path.realpath(out), into_markdown(accepted, memory, found), keep_mode=raw is not None)
