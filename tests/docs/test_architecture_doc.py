"""docs/architecture.md is the map a newcomer reads: every path it names exists, every
SPEC section and every layer of ``ranking`` is on it, and every module that exists only
for speed is private, listed, and names in its docstring what it equals and the tests
that prove it (issue 27)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

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


def test_every_top_level_spec_section_has_a_module() -> None:
    sections = {f"§{n}" for n in re.findall(r"^## (\d+)\. ", SPEC, re.M)}
    mapped = set(re.findall(r"^\| (?:all|§[\d.]+(?:, §[\d.]+)*) \|", _section("Every SPEC rule"), re.M))
    cited = {m for row in mapped for m in re.findall(r"§\d+", row)}
    assert sections - cited == set()


def test_every_package_and_layer_is_on_the_page() -> None:
    folders = {f"{package}/" for package in PACKAGES if package != "ranking"}
    folders |= {f"ranking/{p.name}/" for p in (REPO / "ranking").iterdir() if (p / "__init__.py").exists()}
    assert folders - set(_paths(_section("The packages and layers"))) == set()


def _private_modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (REPO / package).rglob("_*.py") if not p.name.startswith("__"))


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
