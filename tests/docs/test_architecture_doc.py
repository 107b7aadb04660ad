"""docs/architecture.md is the map a newcomer reads: every path it names exists, and every
SPEC section and every layer of ``ranking`` is on it (issue 27). Its table of layers, the
import-linter contracts in pyproject.toml and the code's imports say one thing, and no
import goes round in a circle (issue 56)."""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import re
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import grimp
import pytest
from importlinter import api
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.layers import LayersContract

from tests.conftest import REPO

PAGE = (REPO / "docs" / "architecture.md").read_text("utf-8")
SPEC = (REPO / "docs" / "SPEC.md").read_text("utf-8")
PACKAGES = ("curator_io", "validator", "ranking")


def _section(title: str) -> str:
    start = PAGE.index(f"## {title}\n")
    end = PAGE.find("\n## ", start + 1)
    return PAGE[start : end if end != -1 else len(PAGE)]


def _paths(text: str) -> list[str]:
    """Every backticked repository path: a name with a slash, or one ending in ``.py``."""
    return [s for s in re.findall(r"`([^`\s]+)`", text) if "/" in s and not s.startswith(("ranking.", "--"))]


@pytest.mark.parametrize("path", sorted(set(_paths(PAGE))))
def test_every_path_on_the_page_exists(path: str) -> None:
    assert (REPO / path).exists()


def test_the_page_names_paths() -> None:
    # Else the test above would have nothing to check and would pass.
    assert len(set(_paths(PAGE))) > 50


def test_every_top_level_spec_section_has_a_module() -> None:
    sections = {f"§{n}" for n in re.findall(r"^## (\d+)\. ", SPEC, re.M)}
    mapped = set(re.findall(r"^\| (?:all|§[\d.]+(?:, §[\d.]+)*) \|", _section("Every SPEC rule"), re.M))
    cited = {m for row in mapped for m in re.findall(r"§\d+", row)}
    assert {f"§{n}" for n in range(9)} <= sections, "the pattern no longer reads SPEC's headings"
    assert sections - cited == set()


def test_every_package_and_layer_is_on_the_page() -> None:
    folders = {f"{package}/" for package in PACKAGES if package != "ranking"}
    folders |= {f"ranking/{p.name}/" for p in (REPO / "ranking").iterdir() if (p / "__init__.py").exists()}
    assert folders - set(_paths(_section("The packages and layers"))) == set()


#: What the README and docs/ name as ``package.module.name``; CHANGELOG.md is history and may name what is gone.
DOTTED = sorted(
    {
        name
        for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
        for name in re.findall(r"\b(?:ranking|curator_io|validator)(?:\.[A-Za-z_]\w*)+", page.read_text("utf-8"))
    }
)


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        except ImportError as e:
            # A module of ours that needs an extra this Python cannot install (ace-framework: 3.12 or newer);
            # tests/ranking/integrations/test_ace.py checks the names docs/api.md gives it where it can.
            module = REPO / f"{'/'.join(parts[:cut])}.py"
            if isinstance(e.__cause__, ModuleNotFoundError) and module.is_file():
                return True
            continue
        return all((obj := getattr(obj, attribute, _GONE)) is not _GONE for attribute in parts[cut:])
    return False


_GONE = object()


def test_the_docs_name_only_modules_and_names_that_exist() -> None:
    # A module that moved (issue 27's layers) leaves no page pointing at where it was.
    assert len(DOTTED) > 50
    assert [name for name in DOTTED if not _resolves(name)] == []
    assert not _resolves("ranking.verification") and not _resolves("ranking.checking.gate.render_text")


# The layers: the table's "May import", the contracts and the code.


@functools.cache
def _may_import() -> dict[str, frozenset[str]]:
    """Each row of the table of layers: its folder and the folders it may import. A row whose
    cells do not read as expected fails here rather than going unread."""
    cells = {}
    for line in _section("The packages and layers").splitlines():
        if line.startswith("| `"):
            folder, _, may = (c.strip() for c in line.strip().strip("|").split("|"))
            cells[folder.strip("`")] = may
    names = {"curator_io": "curator_io/", "validator": "validator/"}
    names |= {f[len("ranking/") : -1]: f for f in cells if f.startswith("ranking/")}
    table = {}
    for folder, may in cells.items():
        if may == "everything":
            table[folder] = frozenset(cells) - {folder}
        elif may == "the standard library and third-party libraries":
            table[folder] = frozenset()
        else:
            assert re.fullmatch(r"`\w+`(, `\w+`)*", may), f"{folder}: {may}"
            table[folder] = frozenset(names[n] for n in re.findall(r"`(\w+)`", may))
    return table


#: The modules over the layers, in no row: only ``cli`` imports them.
ENTRY_POINTS = frozenset({"ranking", "ranking.testing", "ranking.__main__"})


@functools.cache
def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imported_by(module: str, path: Path) -> frozenset[str]:
    """The modules of ours ``module`` imports, as import-linter counts them: every ``import``
    statement, at the top, in a function or under ``if TYPE_CHECKING:``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in _modules() else base for a in node.names)
    ours = {m for m in found if m.split(".")[0] in PACKAGES}
    assert ours <= set(_modules()), f"{module} imports what is not a module of ours: {sorted(ours - set(_modules()))}"
    return frozenset(ours - {module})


@functools.cache
def _imports() -> dict[str, frozenset[str]]:
    """Each module of ours and the modules of ours it imports."""
    return {module: _imported_by(module, path) for module, path in _modules().items()}


def _row(module: str) -> str | None:
    """The folder of the table ``module`` is in; None for an entry point."""
    parts = module.split(".")
    folder = "/".join(parts[:2] if parts[0] == "ranking" else parts[:1]) + "/"
    if folder in _may_import():
        return folder
    assert module in ENTRY_POINTS, f"{module} is in no row of the table and is not an entry point"
    return None


def test_the_table_of_layers_has_one_row_for_each_package_and_layer() -> None:
    folders = {f"{package}/" for package in PACKAGES if package != "ranking"}
    folders |= {f"ranking/{p.name}/" for p in (REPO / "ranking").iterdir() if (p / "__init__.py").exists()}
    assert set(_may_import()) == folders
    assert [folder for folder, may in _may_import().items() if not may] == ["curator_io/"]


def test_what_a_layer_may_import_it_may_also_import_through_another() -> None:
    # The table is a layering, so contracts that also refuse an import made through another
    # module refuse nothing the table allows.
    table = _may_import()
    for folder, may in table.items():
        assert folder not in may
        for below in may:
            assert table[below] <= may, f"{folder} may import {below}, not all it imports"


def _contracts() -> list[LayersContract | ForbiddenContract]:
    config = api.read_configuration(str(REPO / "pyproject.toml"))
    kinds = {"layers": LayersContract, "forbidden": ForbiddenContract}
    return [
        kinds[options["type"]](
            name=options["name"], session_options=config["session_options"], contract_options=options
        )
        for options in config["contracts_options"]
    ]


def _kept(contracts: list[LayersContract | ForbiddenContract], graph: grimp.ImportGraph) -> bool:
    return all(contract.check(copy.deepcopy(graph), verbose=False).kept for contract in contracts)


def test_the_contracts_refuse_exactly_the_imports_the_table_does_not_allow() -> None:
    # Every module of ours and no import, then one import from a row's package to another's:
    # the contracts must keep it if and only if the table allows it.
    contracts, table = _contracts(), _may_import()
    graph = grimp.ImportGraph()
    for module in _modules():
        graph.add_module(module)
    for library in ("cryptography", "nacl"):
        graph.add_module(library, is_squashed=True)
    assert _kept(contracts, graph)
    disagree = []
    for importer, imported in ((a, b) for a in table for b in table if a != b):
        probe = copy.deepcopy(graph)
        probe.add_import(
            importer=importer.rstrip("/").replace("/", "."),
            imported=imported.rstrip("/").replace("/", "."),
            line_number=1,
            line_contents="import probe",
        )
        if _kept(contracts, probe) != (imported in table[importer]):
            disagree.append(f"{importer} -> {imported}")
    assert disagree == []


def test_every_import_in_the_code_is_one_the_table_allows() -> None:
    table, crossings, refused = _may_import(), set(), []
    for module, imported in _imports().items():
        for target in imported:
            here, there = _row(module), _row(target)
            if here is None or here == there:
                continue
            # An entry point is over the layers: only the command line imports one.
            allowed = there in table[here] if there is not None else here == "ranking/cli/"
            crossings.add((here, there))
            if not allowed:
                refused.append(f"{module} -> {target}")
    assert refused == []
    # The walk found the code's imports: every row but the floor imports another.
    assert {here for here, _ in crossings} == set(table) - {"curator_io/"}


def test_no_module_imports_itself_through_others() -> None:
    # Type-only imports and imports inside functions included: each is an arrow all the same.
    assert sum(map(len, _imports().values())) > 500
    try:
        TopologicalSorter(_imports()).prepare()
    except CycleError as e:
        pytest.fail(f"an import circle, each module importing the next: {' -> '.join(reversed(e.args[1]))}")
