"""``evidence-rank memory show|import``: a memory file, JSON or Markdown (docs/markdown-memory.md).

``show`` prints the memory a file holds as canonical JSON; ``import`` adopts a Markdown file
written by hand: a managed section added where the team says, nothing a person wrote moved
away from its heading.
"""

from __future__ import annotations

import argparse
import os

from curator_io.canonical import canon
from curator_io.errors import ConfigError, InputError
from curator_io.grammar import REPO, is_repo, shown
from curator_io.markdown.adoption import Imported, Placement, import_markdown
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
    owner, _, name = text.partition("/")
    if not owner or not name or any(c.isspace() for c in text) or "" in name.split("/"):
        # A curator scopes its proposals by the repository as its host names it: a bare name
        # would give instructions no proposal of that curator ever matches.
        raise argparse.ArgumentTypeError(
            f"expected OWNER/NAME, the repository as your curator's proposals name it "
            f"(modelcontextprotocol/python-sdk), got {shown(text)}"
        )
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
        "import",
        help="adopt a Markdown file written by hand: add its managed section (at the end, --at HEADING), "
        "or make one heading's bullets its instructions (--adopt HEADING)",
        description="Adopt a Markdown file written by hand (docs/markdown-memory.md, 'Importing a file written "
        "by hand'). By default an empty managed section is added at the end of the file and every line a person "
        "wrote stays where it is, its bullets prose (gated as prose). --at HEADING adds it at the end of what "
        "that heading holds before its first subheading; --adopt HEADING puts it where that heading's bullets "
        "stood, each bullet that stands alone as an instruction (keyed HEADING-SLUG.01, .02, ... in the file's "
        "order). Says what it did per heading. Exit 0 ok, 2 usage, 3 a file not in the form.",
    )
    adopt.add_argument("file", metavar="FILE.md", help="the Markdown file, with no managed section yet")
    adopt.add_argument("--out", metavar="FILE", help="write the result to FILE (atomically; it may be FILE.md itself)")
    adopt.add_argument(
        "--repository",
        metavar="REPO",
        type=_repository,
        help="the scope of the imported instructions: this repository, OWNER/NAME (default: global)",
    )
    where = adopt.add_mutually_exclusive_group()
    where.add_argument("--at", metavar="HEADING", help="add the empty section at the end of this heading's part")
    where.add_argument(
        "--adopt", metavar="HEADING", help="put the section where this heading's bullets are, and them in it"
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
    raw = read_input(args.file)
    try:
        imported = import_markdown(raw, scope=scope, placement=Placement(args.at, args.adopt))
    except (InputError, ConfigError) as e:
        raise e.in_file(args.file) from e
    if args.out:
        # A symlink is followed, as apply follows one: the file it names gets the section.
        write_file(os.path.realpath(args.out), imported.data, keep_mode=os.path.exists(args.out))
    else:
        emit_document(imported.data, json=False)
    for line in import_lines(args.file, imported):
        say(line)
    return 0


def import_lines(file: str, imported: Imported) -> list[str]:
    """What import did, per heading: where the section went, and each heading's bullets."""
    count = len(imported.keys)
    where = f"a managed section at line {imported.start}"
    out = [f"{file}: {where}, {count} instruction(s) adopted" if count else f"{file}: {where}, empty"]
    for heading in imported.outline:
        items = heading.items
        if heading.level == 0 and not items:
            continue
        name = heading.shown() if heading.level == 0 else f"line {heading.line + 1} {heading.shown()}"
        if heading is not imported.adopted:
            said = f"{_bullets(len(items))}, as they are, in the prose" if items else "no bullet"
            out.append(f"  {name}: {said}")
            continue
        keys = [key for _, key in imported.keys]
        span = f" ({keys[0]}-{keys[-1]})" if len(keys) > 1 else f" ({keys[0]})" if keys else ""
        out.append(f"  {name}: {_bullets(len(keys))} adopted{span}")
        for item in items:
            if item.text is None:
                out.append(f"    line {item.first + 1} stays in the prose: {item.why}")
    return out


def _bullets(n: int) -> str:
    return "1 bullet" if n == 1 else f"{n} bullets"
