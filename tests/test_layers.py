"""The folders are the architecture (issue 27): each package and each layer of
``ranking`` imports only the layers below it, so a module's folder says what it
may depend on, and a newcomer finds a rule, the CLI, the output protocol and the
ledger by folder name alone.

The source is read as syntax trees. An import under ``if TYPE_CHECKING:`` names
a type for the checker and runs nothing, so it is not an edge; every other
import is, wherever it sits (a function-level import is still a dependency).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

#: The packages of the brief, lowest first: ``curator_io`` <- ``validator`` <- ``ranking``.
PACKAGES = ("curator_io", "validator", "ranking")

#: The layers inside ``ranking``, each with what it may import besides the lower packages and itself.
LAYERS: dict[str, frozenset[str]] = {
    # SPEC §3-§6: load, validate, score, order, select, build the reports.
    "ranking.pipeline": frozenset(),
    # After a report exists: SPEC §7 verification, the pinned policy, §8 apply and the gate, explain.
    "ranking.checking": frozenset({"ranking.pipeline"}),
    # The admission ledger: decisions derived from checked reports, and the SQLite file they are kept in.
    "ranking.ledger": frozenset({"ranking.pipeline", "ranking.checking"}),
    # Files: the output-folder protocol, batch, engines.
    "ranking.running": frozenset({"ranking.pipeline", "ranking.checking", "ranking.ledger"}),
    # What people read: terminal tables, the gate's renderings, HTML pages.
    "ranking.views": frozenset({"ranking.pipeline", "ranking.checking", "ranking.ledger", "ranking.running"}),
    # Other tools: agentdescent, Dask, and who signed what they are given.
    "ranking.integrations": frozenset({"ranking.pipeline", "ranking.checking", "ranking.ledger", "ranking.running"}),
    # The command line wires everything.
    "ranking.cli": frozenset(
        {
            "ranking",
            "ranking.pipeline",
            "ranking.checking",
            "ranking.ledger",
            "ranking.running",
            "ranking.views",
            "ranking.integrations",
        }
    ),
}

#: ``ranking``'s own modules at the top: the public entry points over the layers (docs/api.md).
TOP = frozenset({"ranking", "ranking.__main__", "ranking.testing"})


def _module(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The ids of import nodes inside ``if TYPE_CHECKING:`` blocks."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            skipped |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skipped


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) for every run-time import of our own packages in ``path``."""
    tree = ast.parse(path.read_text("utf-8"))
    skipped = _type_checking_only(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
        elif isinstance(node, ast.Import):
            yield from ((node.lineno, a.name) for a in node.names)


def _home(module: str) -> str | None:
    """The package or ``ranking`` layer ``module`` belongs to; None for another library."""
    for layer in LAYERS:
        if module == layer or module.startswith(layer + "."):
            return layer
    if module in TOP:
        return module
    root = module.split(".")[0]
    return root if root in PACKAGES else None


def _allowed(importer: str, imported: str) -> bool:
    if importer == imported:
        return True
    if importer in PACKAGES:  # curator_io, validator: only the packages below them
        return PACKAGES.index(imported) < PACKAGES.index(importer) if imported in PACKAGES else False
    if imported in ("curator_io", "validator"):
        return True
    if importer in LAYERS:
        return imported in LAYERS[importer]
    # The entry points: anything but the CLI, which only ``python -m ranking`` runs.
    return importer in TOP and (imported != "ranking.cli" or importer == "ranking.__main__")


SOURCES = sorted(p for package in PACKAGES for p in (REPO / package).rglob("*.py"))


def test_the_layers_are_the_folders_of_ranking() -> None:
    folders = {p.name for p in (REPO / "ranking").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert {f"ranking.{f}" for f in folders} == set(LAYERS)


def test_the_tests_mirror_the_layers() -> None:
    # A layer's tests are where a newcomer looks for them: tests/ranking/<layer>/.
    tests = REPO / "tests" / "ranking"
    assert [layer for layer in LAYERS if not (tests / layer.split(".")[1] / "__init__.py").exists()] == []


def test_every_module_belongs_to_a_package_or_a_layer() -> None:
    assert [str(p.relative_to(REPO)) for p in SOURCES if _home(_module(p)) is None] == []


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_imports_flow_down_the_layers(path: Path) -> None:
    importer = _home(_module(path))
    assert importer is not None
    upward = [
        f"line {line}: {module} ({home})"
        for line, module in _imports(path)
        if (home := _home(module)) is not None and not _allowed(importer, home)
    ]
    assert upward == [], f"{importer} may import only {sorted(LAYERS.get(importer, PACKAGES))}"


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    # The checker itself can fail: an import of the CLI from the pipeline is one it names.
    tree = "from ranking.cli.output import emit\nif TYPE_CHECKING:\n    from ranking.views import tables\n"
    imported = [m for _, m in _imports(_write(tmp_path, tree))]
    assert imported == ["ranking.cli.output"]
    assert not _allowed("ranking.pipeline", "ranking.cli")
    assert not _allowed("curator_io", "validator")


def _write(folder: Path, text: str) -> Path:
    path = folder / "module.py"
    path.write_text(text, "utf-8")
    return path
