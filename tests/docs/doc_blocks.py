"""The fenced blocks of the README and docs/*.md, with what each page says about them.

A block is read with the HTML comments on the lines right before its fence (its *marks*,
tests/docs/test_doc_blocks.py says which there are), the heading it sits under, and the prose
between it and the block before, which says whether a plain block is a runnable block's
output ("This prints:"). Reading only: running a page is tests/docs/test_doc_blocks.py's.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import REPO

__all__ = ["Block", "MARKS", "PAGES", "read_blocks", "workflow_steps"]

#: Every page a reader runs blocks from: docs/SPEC.md is the specification, and holds none.
PAGES = ("README.md", *sorted(f"docs/{p.name}" for p in (REPO / "docs").glob("*.md") if p.name != "SPEC.md"))

#: What a comment before a fence may say, each on a line of its own: `<!-- exits: 1 -->`.
MARKS = ("not run", "run by", "exits", "given")
_COMMENT = re.compile(r"<!-- (?P<text>.+?) -->")
_MARK = re.compile(rf"(?P<name>{'|'.join(MARKS)}):? (?P<value>.+)")
_FENCE = re.compile(r"(?P<indent> *)(?P<ticks>`{3,})(?P<info>[\w-]*)\s*")
_HEADING = re.compile(r"#{1,6} ")

SHELL = {"sh", "bash", "shell"}
PYTHON = {"python", "py"}
#: Prose ending so introduces the block after it as the output of the block before.
OUTPUT_CUES = ("prints:", "shows:")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    """1-based line of the opening fence."""
    info: str
    """The fence's language: `sh`, `console`, `python`, `yaml`, or empty."""
    text: str
    """The block's lines, without the fence's indentation."""
    section: str
    """The heading the block is under, as written (`## Batch scoring`)."""
    before: str
    """The prose between the previous block (or the page's start) and this one."""
    marks: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def givens(self) -> list[str]:
        """The names `<!-- given: A; B -->` lists, in order."""
        return self.marks["given"].split("; ") if "given" in self.marks else []

    @property
    def exits(self) -> int:
        """The exit code `<!-- exits: N -->` says the block ends with: 0 unless marked."""
        return int(self.marks.get("exits", "0"))

    @property
    def kind(self) -> str:
        """`shell`, `transcript` (commands after `$ `, each followed by its output), `python`,
        `workflow` (YAML with `run:` steps), `output` (shown output), or `other`."""
        if self.info in SHELL:
            return "shell"
        if self.info == "console" or (not self.info and self.text.startswith("$ ")):
            return "transcript"
        if self.info in PYTHON:
            return "python"
        if self.info == "yaml" and workflow_steps(self):
            return "workflow"
        if not self.info and self.before.rstrip().endswith(OUTPUT_CUES):
            return "output"
        return "other"


def read_blocks(path: Path, page: str) -> list[Block]:
    """Every fenced block of the Markdown file ``path``, in order; ``page`` names it in messages."""
    lines = path.read_text("utf-8").splitlines()
    blocks: list[Block] = []
    section, prose_from, i = "", 0, 0
    while i < len(lines):
        if _HEADING.match(lines[i]):
            section = lines[i]
        opening = _FENCE.fullmatch(lines[i])
        if opening is None:
            i += 1
            continue
        end = _closing(lines, i, opening)
        blocks.append(
            Block(
                page=page,
                line=i + 1,
                info=opening["info"],
                text=textwrap.dedent("\n".join(lines[i + 1 : end]) + "\n"),
                section=section,
                before="\n".join(lines[prose_from:i]),
                marks=_marks(lines, i, f"{page}:{i + 1}"),
            )
        )
        prose_from = i = end + 1
    return blocks


def _closing(lines: list[str], start: int, opening: re.Match[str]) -> int:
    """The line of the fence that closes the one at ``start``: as long, as indented, no info."""
    close = opening["indent"] + opening["ticks"]
    for j in range(start + 1, len(lines)):
        if lines[j].rstrip() == close:
            return j
    raise AssertionError(f"line {start + 1}: a fence that is never closed")


def _marks(lines: list[str], fence: int, where: str) -> dict[str, str]:
    """The marks in the comment lines right above the fence at ``fence``."""
    marks: dict[str, str] = {}
    j = fence - 1
    while j >= 0 and (comment := _COMMENT.fullmatch(lines[j].strip())):
        mark = _MARK.fullmatch(comment["text"])
        assert mark is not None, f"{where}: {comment[0]} is no mark; the marks are {MARKS}"
        assert mark["name"] not in marks, f"{where}: {mark['name']!r} twice"
        marks[mark["name"]] = mark["value"]
        j -= 1
    return marks


def workflow_steps(block: Block) -> list[str]:
    """The shell of every `run:` step of a YAML block (a workflow, or a list of its steps)."""

    def runs(node: Any) -> list[str]:
        if isinstance(node, dict):
            own = [node["run"]] if isinstance(node.get("run"), str) else []
            return own + [r for value in node.values() for r in runs(value)]
        if isinstance(node, list):
            return [r for item in node for r in runs(item)]
        return []

    return runs(yaml.safe_load(block.text))
