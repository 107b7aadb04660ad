"""The catalogue's contract with callers (:mod:`curator_io.catalogue`): every error the tool
raises carries a code of the catalogue's table and exits as the table says, every catalogued
code can happen, every reason code has its sentence, and the named sets are SPEC's words.

The source is read as syntax trees to find what is raised."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

from curator_io import catalogue
from curator_io.errors import EvidenceRankError
from ranking.ledger.fate import REFUSED
from ranking.views.html.run import DISPOSITIONS
from tests.conftest import REPO

SCANNED = ("curator_io", "validator", "ranking", "fuzz")
OWNER = Path("curator_io/catalogue.py")

SCHEMA_IDS = {*catalogue.SCHEMA_IDS.values(), catalogue.SUMMARY_SCHEMA}
FINAL = get_args(catalogue.FinalDisposition)
WORDS = {*catalogue.VALIDATION_DISPOSITIONS, *FINAL, *catalogue.OUTCOMES}
CODE_FORM = re.compile(r"[a-z_]+\.[a-z_]+")


def _sources() -> Iterator[tuple[Path, ast.Module]]:
    for package in SCANNED:
        for path in sorted((REPO / package).rglob("*.py")):
            rel = path.relative_to(REPO)
            if rel != OWNER:
                yield rel, ast.parse(path.read_text("utf-8"), str(rel))


#: Every module but the owner: what raises and uses the catalogue's entries.
EVERY = list(_sources())
#: What must not write the catalogue's values again.
SOURCES = EVERY


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of every docstring's node: prose, not values."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _strings(tree: ast.Module) -> Iterator[ast.Constant]:
    prose = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) is str and id(node) not in prose:
            yield node


def _where(path: Path, node: ast.AST) -> str:
    return f"{path}:{getattr(node, 'lineno', '?')}"


def _is_two_to_the_53(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Pow)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.right, ast.Constant)
        and (node.left.value, node.right.value) == (2, 53)
    )


def _module_of(path: Path) -> object:
    return importlib.import_module(".".join(path.with_suffix("").parts).removesuffix(".__init__"))


def _raised(path: Path, tree: ast.Module) -> Iterator[tuple[str, str, str]]:
    """``(where, class name, code)`` for each ``SomeError("code", ...)`` and each error class's
    ``super().__init__("code", ...)``."""
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for call in (n for n in ast.walk(cls) if isinstance(n, ast.Call)):
            f = call.func
            is_super = isinstance(f, ast.Attribute) and f.attr == "__init__" and isinstance(f.value, ast.Call)
            if is_super and call.args and isinstance(call.args[0], ast.Constant):
                yield _where(path, call), cls.name, call.args[0].value
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        if isinstance(call.func, ast.Name) and call.args:
            first = call.args[0]
            if isinstance(first, ast.Constant) and type(first.value) is str and CODE_FORM.fullmatch(first.value):
                yield _where(path, call), call.func.id, first.value


def _is_error(path: Path, name: str) -> bool:
    cls = getattr(_module_of(path), name, None)
    return isinstance(cls, type) and issubclass(cls, EvidenceRankError)


#: ``(module path, where, class name, code)`` of every error raised with a literal code.
RAISED = [(path, *r) for path, tree in EVERY for r in _raised(path, tree) if _is_error(path, r[1])]


def test_every_error_raised_has_a_catalogued_code_and_its_exit_code() -> None:
    assert len(RAISED) > 60
    wrong = []
    for path, where, name, code in RAISED:
        cls = getattr(_module_of(path), name)
        if catalogue.EXIT_OF_CODE.get(code) != cls.exit_code:
            wrong.append(f"{where}: {name}({code!r}) exits {cls.exit_code}, the catalogue says "
                         f"{catalogue.EXIT_OF_CODE.get(code)}")  # fmt: skip
    assert wrong == []


def test_every_error_code_of_the_catalogue_is_raised_somewhere() -> None:
    raised = {code for *_, code in RAISED}
    # SPEC §7: verification raises each invariant as invariant.<name> from the name it checks.
    checked = {f"invariant.{s.value}" for path, tree in EVERY if path.name == "verification.py" for s in _strings(tree)}
    assert set(catalogue.EXIT_OF_CODE) - raised - checked == set()


def test_every_reason_code_has_a_sentence_and_every_sentence_a_code_that_is_given() -> None:
    written = {s.value for path, tree in EVERY if path.parts[0] != "fuzz" for s in _strings(tree)}
    ranking = {code for code in written if code.startswith("rank.")}
    assert set(catalogue.SENTENCES) == {*catalogue.DISPOSITION_OF, *ranking}
    assert set(catalogue.DISPOSITION_OF) - written == set()
    assert catalogue.INFORMATIONAL_CODES <= set(catalogue.SENTENCES)


def test_the_named_sets_are_made_of_the_spec_dispositions() -> None:
    final = set(FINAL)
    assert set(catalogue.VALIDATION_DISPOSITIONS) - {catalogue.ACCEPTED} <= final
    assert sorted(DISPOSITIONS) == sorted(final)  # the run view lists them all, in its own order
    assert REFUSED < final and catalogue.FINAL_OF_ACCEPTED < final
    assert set(catalogue.DISPOSITION_OF.values()) == set(catalogue.VALIDATION_DISPOSITIONS)
    assert sum(catalogue.MAXIMA.values()) == 100
