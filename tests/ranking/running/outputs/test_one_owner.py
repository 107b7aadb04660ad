"""The output folder's names are written once, in ``ranking.running.outputs`` (issue 27): a module
that spells ``"report.json"`` itself would not follow a change of the protocol."""

from __future__ import annotations

import ast

from ranking.running.outputs import BUNDLE_FILES, LOCK_NAME, SUMMARY
from tests.conftest import REPO

NAMES = (*BUNDLE_FILES, SUMMARY, LOCK_NAME)
OWNER = REPO / "ranking" / "running" / "outputs"


def _literals(source: str, names: tuple[str, ...]) -> list[tuple[int, str]]:
    """``(line, text)`` of each string constant that is one of ``names`` or a path ending in one
    (an f-string's constant parts included). Prose that mentions a name (a docstring, a help
    text: it has spaces) is not code that uses it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            path_like = " " not in node.value
            if any(node.value == n or (path_like and node.value.endswith("/" + n)) for n in names):
                found.append((node.lineno, node.value))
    return found


def test_the_scan_finds_a_protocol_name_written_as_a_literal() -> None:
    source = 'A = "report.json"\nB = f"{out}/summary.json"\nC = "see report.json and DIR/error.json"\n'

    assert _literals(source, NAMES) == [(1, "report.json"), (2, "/summary.json")]


def test_no_module_outside_ranking_outputs_spells_an_output_file_name() -> None:
    offenders = []
    for package in ("ranking", "curator_io", "validator"):
        for path in sorted((REPO / package).rglob("*.py")):
            if path.is_relative_to(OWNER):
                continue
            for line, text in _literals(path.read_text(encoding="utf-8"), NAMES):
                offenders.append(f"{path.relative_to(REPO)}:{line}: {text!r}")

    assert offenders == []


def test_the_owner_defines_every_name_it_is_asked_for() -> None:
    # The scan above is only as good as its list: each name is a constant of the owner's module.
    source = (OWNER / "names.py").read_text(encoding="utf-8")

    assert sorted(text for _, text in _literals(source, NAMES)) == sorted(NAMES)
