"""docs/security.md promises a test behind every attack it says the gate answers: each test it
names exists, and each attack names at least one."""

from __future__ import annotations

import ast
import re

from tests.conftest import REPO

PAGE = (REPO / "docs" / "security.md").read_text(encoding="utf-8")
NAMED = re.compile(r"`([\w/]+\.py)::(test_\w+)`")


def _tests_in(path: str) -> set[str]:
    tree = ast.parse((REPO / "tests" / path).read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def test_every_test_the_threat_model_names_exists() -> None:
    named = NAMED.findall(PAGE)
    assert len(named) >= 20
    missing = [f"{path}::{name}" for path, name in named if name not in _tests_in(path)]
    assert missing == []


def test_every_attack_the_gate_answers_names_a_test() -> None:
    answered = PAGE.split("### Attacks the gate answers", 1)[1].split("### The limits", 1)[0]
    attacks = re.split(r"^#### ", answered, flags=re.MULTILINE)[1:]
    titles = [a.splitlines()[0] for a in attacks]
    assert len(titles) >= 9, titles
    assert [t for t, a in zip(titles, attacks, strict=True) if not NAMED.search(a)] == []


def test_every_attack_the_gate_answers_names_the_door_that_answers_it() -> None:
    answered = PAGE.split("### Attacks the gate answers", 1)[1].split("### The limits", 1)[0]
    attacks = re.split(r"^#### ", answered, flags=re.MULTILINE)[1:]
    assert [a.splitlines()[0] for a in attacks if "\n*The door.* " not in a] == []
