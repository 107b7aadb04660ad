"""``evidence-rank memory show|import``: a memory file, JSON or Markdown (docs/markdown-memory.md).

``show`` prints the memory a file holds as canonical JSON; ``import`` adopts a Markdown file
written by hand, its bullet instructions moved into a managed section.
"""

from __future__ import annotations

import argparse
import os

from curator_io.canonical import canon
from curator_io.grammar import REPO, is_repo, shown
from curator_io.markdown_import import import_markdown
from curator_io.memory import check_memory
from curator_io.models import Scope
from ranking.cli.commands import add_global_options
from ranking.cli.output import emit_document, emit_json, say
from ranking.running.inputs import read_input, read_memory_file
from ranking.running.outputs import write_file

__all__ = ["register"]


def _repository(text: str) -> str:
    if not is_repo(text):
        raise argparse.ArgumentTypeError(f"expected {REPO.expected}, got {shown(text)}")
    return text


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "memory",
        description="A memory file: JSON, or Markdown (.md: an AGENTS.md, a CLAUDE.md) whose managed section "
        "holds the memory (docs/markdown-memory.md). Exit 0 ok, 2 usage, 3 a file not in the form.",
    )
    commands = p.add_subparsers(dest="memory_command", required=True, metavar="SUBCOMMAND")

    show = commands.add_parser("show", help="print the memory a file holds, as canonical JSON")
    show.add_argument("file", metavar="FILE", help="a memory file, .md or JSON")
    show.set_defaults(run=run_show)

    adopt = commands.add_parser(
        "import", help="adopt a Markdown file written by hand: its bullets become its managed section"
    )
    adopt.add_argument("file", metavar="FILE.md", help="the Markdown file, with no managed section yet")
    adopt.add_argument("--out", metavar="FILE", help="write the result to FILE (atomically; it may be FILE.md itself)")
    adopt.add_argument(
        "--repository",
        metavar="REPO",
        type=_repository,
        help="the scope of the imported instructions: this repository (default: global)",
    )
    adopt.set_defaults(run=run_import)
    for parser in (show, adopt):
        add_global_options(parser, in_command=True)


def run_show(args: argparse.Namespace) -> int:
    memory = read_memory_file(args.file).document.memory
    check_memory(memory)
    emit_json(canon(memory))
    return 0


def run_import(args: argparse.Namespace) -> int:
    scope = Scope("global") if args.repository is None else Scope("repository", args.repository)
    imported = import_markdown(read_input(args.file), scope=scope)
    if args.out:
        # A symlink is followed, as apply follows one: the file it names gets the section.
        write_file(os.path.realpath(args.out), imported.data, keep_mode=os.path.exists(args.out))
    else:
        emit_document(imported.data, json=False)
    say(f"imported {len(imported.keys)} instruction(s) from {args.file}")
    for line, key in imported.keys:
        say(f"  line {line}: {key}")
    for line, why in imported.left:
        say(f"  line {line}: left in the prose: {why}")
    return 0
