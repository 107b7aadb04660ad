"""One owner for every cross-cutting rule (issue 27): :mod:`curator_io.catalogue`.

The source of ``curator_io``, ``validator``, ``ranking`` and ``fuzz`` is read as
syntax trees, so the scan sees values (what code compares or writes), not prose:

* no schema id is written outside the catalogue;
* no set of dispositions or outcomes is written outside it;
* every error raised carries a code of the catalogue's table, from a class whose
  exit code is the one the table gives it;
* every entry of the catalogue is used.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest

from curator_io import catalogue
from curator_io.errors import EvidenceRankError
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


def test_no_schema_id_is_written_outside_the_catalogue() -> None:
    # A value is the id alone, or the id and punctuation ("evidence-ranking-v1:"); a sentence that
    # names the format (a --help text) is prose, which the scan leaves to the reader.
    value = re.compile(rf"\W*(?:{'|'.join(map(re.escape, sorted(SCHEMA_IDS)))})\W*")
    found = [_where(path, s) for path, tree in SOURCES for s in _strings(tree) if value.fullmatch(s.value)]
    assert found == []


def test_the_digest_prefix_is_written_only_in_the_catalogue() -> None:
    # SPEC §0's DIGEST form: built with catalogue.DIGEST_PREFIX (canonical.sha256_digest) and
    # matched with grammar.DIGEST_PATTERN, never spelled again. (fuzz/ writes digests as hostile
    # input on purpose: data, not the rule.)
    found = [
        _where(path, s)
        for path, tree in SOURCES
        if path.parts[0] != "fuzz"
        for s in _strings(tree)
        if s.value.startswith("sha256:")
    ]
    assert found == []


def _is_two_to_the_53(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Pow)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.right, ast.Constant)
        and (node.left.value, node.right.value) == (2, 53)
    )


def test_the_integer_range_is_written_only_in_the_grammar() -> None:
    # SPEC §0: numbers are binary64, an INT at most 2^53 - 1: grammar.MAX_INT, used by the parser,
    # the canonical writer and the ledger's row checks alike.
    owner = Path("curator_io/grammar.py")
    found = [
        _where(path, node)
        for path, tree in EVERY
        if path != owner and path.parts[0] != "fuzz"
        for node in ast.walk(tree)
        if _is_two_to_the_53(node)
    ]
    assert found == []
    assert any(_is_two_to_the_53(node) for node in ast.walk(ast.parse((REPO / owner).read_text("utf-8"))))


def _collections(tree: ast.Module) -> Iterator[tuple[ast.AST, list[ast.expr]]]:
    """Every tuple, list and set display, and every ``Literal[...]``, with its elements."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            yield node, node.elts
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            inner = node.slice
            yield node, inner.elts if isinstance(inner, ast.Tuple) else [inner]


def test_no_set_of_dispositions_or_outcomes_is_written_outside_the_catalogue() -> None:
    found = []
    for path, tree in SOURCES:
        for node, elements in _collections(tree):
            words = {e.value for e in elements if isinstance(e, ast.Constant) and e.value in WORDS}
            if len(words) >= 2:
                found.append(f"{_where(path, node)}: {sorted(words)}")
    assert found == []


def test_the_scan_finds_what_it_looks_for() -> None:
    # The two scans above pass on an empty result: prove they would see a copy.
    copy = ast.parse('REFUSED = frozenset({"rejected", "deferred"})\nTAG = "evidence-ranking-v1:"\nD = "sha256:" + h\n')
    assert [len(e) for _, e in _collections(copy)] == [2]
    assert sorted(s.value for s in _strings(copy)) == ["deferred", "evidence-ranking-v1:", "rejected", "sha256:"]
    assert len(SOURCES) > 80


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


def _names_used() -> set[str]:
    used = set()
    for _, tree in SOURCES:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "curator_io.catalogue":
                used |= {a.name for a in node.names}
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "catalogue":
                used.add(node.attr)
    return used


@pytest.mark.parametrize("name", catalogue.__all__)
def test_each_entry_of_the_catalogue_is_used_outside_it(name: str) -> None:
    assert name in _names_used()


def test_every_reason_code_has_a_sentence_and_every_sentence_a_code_that_is_given() -> None:
    written = {s.value for path, tree in EVERY if path.parts[0] != "fuzz" for s in _strings(tree)}
    ranking = {code for code in written if code.startswith("rank.")}
    assert set(catalogue.SENTENCES) == {*catalogue.DISPOSITION_OF, *ranking}
    assert set(catalogue.DISPOSITION_OF) - written == set()
    assert catalogue.INFORMATIONAL_CODES <= set(catalogue.SENTENCES)


def test_the_named_sets_are_made_of_the_spec_dispositions() -> None:
    final = set(FINAL)
    assert set(catalogue.VALIDATION_DISPOSITIONS) - {catalogue.ACCEPTED} <= final
    assert sorted(catalogue.DISPOSITIONS_BY_SEVERITY) == sorted(final)
    assert catalogue.REFUSED < final and catalogue.FINAL_OF_ACCEPTED < final
    assert set(catalogue.DISPOSITION_OF.values()) == set(catalogue.VALIDATION_DISPOSITIONS)
    assert sum(catalogue.MAXIMA.values()) == 100


def test_which_materializations_quarantine_is_said_once_in_the_validator() -> None:
    # SPEC §3.5.1: explain and the render views import validator.support.QUARANTINED_STATUSES.
    statuses = {"compatible", "incompatible", "invalid"}
    found = {
        str(path)
        for path, tree in SOURCES
        if path.parts[0] != "fuzz"  # the fuzzer's dictionary of tokens to mutate with
        for s in _strings(tree)
        if s.value in statuses
    }
    # curator_io/kinds.py: the bundle's grammar of a status; validator/support.py: which ones quarantine.
    assert found == {"curator_io/kinds.py", "validator/support.py"}
