"""Every "SPEC §N" the project writes names a section of docs/SPEC.md.

A reference is looked for in the help text of every command (as argparse
prints it), in the source of the three packages (messages, docstrings and
comments), and in the docs. ``§N`` must be a ``## N.`` heading and ``§N.M`` a
``### N.M`` heading; as SPEC.md itself writes "deferred by §5.1", a last
number may also be a step of the numbered list directly under the section
before it (``§5.3``: step 3 of §5, ``§3.5.2``: step 2 of §3.5). A bare ``§N``
is the SPEC's too, unless it follows an RFC's number (``RFC 8785 §3.2.3``).
"""

from __future__ import annotations

import argparse
import importlib
import re
from pathlib import Path

import pytest

from ranking.cli import build_parser
from ranking.cli.commands import COMMANDS, _Listed
from tests.conftest import REPO

SPEC = REPO / "docs" / "SPEC.md"
#: A section reference; group 1 is the section number, ``3.5`` in "SPEC §3.5" or "§3.5".
REFERENCE = re.compile(r"(?<!RFC \d{4} )§\s?(\d+(?:\.\d+)*)")


def _sections(spec: str) -> set[str]:
    """Every heading's number (``3``, ``3.5``) and every top-level step of a section (``3.5.2``, ``5.3``)."""
    found: set[str] = set()
    current: str | None = None
    for line in spec.splitlines():
        heading = re.match(r"#{2,3} (\d+(?:\.\d+)?)\.? ", line)
        if heading:
            current = heading.group(1)
            found.add(current)
            continue
        step = re.match(r"(\d+)\. ", line)  # a step at the start of a line, not an indented sub-item
        if step and current is not None:
            found.add(f"{current}.{step.group(1)}")
    return found


SECTIONS = _sections(SPEC.read_text(encoding="utf-8"))


def _help_texts() -> str:
    """What ``--help`` prints for the tool and for every command, each command's arguments declared."""
    parser = build_parser()
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    texts = [parser.format_help()]
    for name in COMMANDS:
        command = commands.choices[name]
        importlib.import_module(COMMANDS[name].module).register(_Listed(command))
        texts.append(command.format_help())
        for action in command._actions:  # nested commands (ledger add, ledger render, ...)
            if isinstance(action, argparse._SubParsersAction):
                texts.extend(sub.format_help() for sub in action.choices.values())
    return "\n".join(texts)


def _documents() -> list[Path]:
    packages = [p for layer in ("curator_io", "validator", "ranking") for p in sorted((REPO / layer).rglob("*.py"))]
    templates = sorted((REPO / "ranking" / "views" / "html" / "templates").glob("*"))
    docs = [p for p in sorted((REPO / "docs").glob("*.md")) if p != SPEC]
    others = [
        REPO / name
        for name in ("README.md", "CHANGELOG.md", ".pre-commit-hooks.yaml", "action.yml", "bench/RESULTS.md")
    ]
    return packages + templates + docs + [p for p in others if p.exists()] + [REPO / "fixtures" / "README.md"]


def _unknown(text: str) -> list[str]:
    return sorted({m.group(0) for m in REFERENCE.finditer(text) if m.group(1) not in SECTIONS})


def test_the_sections_are_read_from_the_spec_headings_and_steps() -> None:
    # The reader above must find what SPEC.md has, or every reference would pass or fail for nothing.
    assert {str(n) for n in range(9)} <= SECTIONS
    assert {"3.1", "3.5", "3.7", "3.5.2", "5.1", "5.5"} <= SECTIONS
    assert not {"9", "3.8", "5.6", "3.5.10"} & SECTIONS


def test_the_help_texts_name_only_sections_the_spec_has() -> None:
    text = _help_texts()
    assert "SPEC §" in text  # the help does cite the SPEC: the check below is not vacuous
    assert _unknown(text) == []


def test_the_help_says_where_the_spec_is_and_the_sdist_carries_it() -> None:
    assert "docs/SPEC.md" in build_parser().format_help()
    assert "graft docs" in (REPO / "MANIFEST.in").read_text().splitlines()


@pytest.mark.parametrize("path", _documents(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_the_source_and_docs_name_only_sections_the_spec_has(path: Path) -> None:
    assert _unknown(path.read_text(encoding="utf-8")) == []


def test_a_reference_to_a_section_the_spec_lacks_is_caught() -> None:
    assert _unknown("see SPEC §9 and §3.8, SPEC §5.6; not RFC 8785 §3.2.3; but SPEC §5.3 is fine") == [
        "§3.8",
        "§5.6",
        "§9",
    ]
