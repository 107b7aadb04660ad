"""docs/api.md is the public API: every name it lists imports, every signature it
writes names the parameters the code takes, and every name a public package
exports (its ``__all__``) is listed, so the page and the code cannot drift apart."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

API_MD = Path(__file__).resolve().parents[2] / "docs" / "api.md"

#: The packages and modules whose ``__all__`` is what users call (README "As a library",
#: docs/agentdescent.md, docs/gepa.md, docs/dspy.md, docs/lookalikes.md, the pytest plugin's entry point).
PUBLIC_MODULES = (
    "curator_io",
    "validator",
    "ranking",
    "ranking.testing",
    "ranking.integrations.agentdescent",
    "ranking.integrations.gepa",
    "ranking.integrations.ace",
    "ranking.integrations.dspy_gepa",
    "ranking.ledger",
    "ranking.advice.lookalikes",
    "evidence_rank_pytest",
)

#: A module that needs a package this Python cannot install: ace-framework needs Python 3.12. Its
#: names are left out here and checked where it is installed (.venv-ace: tests/ranking/integrations/test_ace.py).
NEEDS = {"ranking.integrations.ace": "ace"}


def _unimportable_here(name: str) -> bool:
    """Whether ``name`` lives in a module whose package is not installed in this environment."""
    return any(
        (name == module or name.startswith(module + ".")) and importlib.util.find_spec(package) is None
        for module, package in NEEDS.items()
    )


#: A fixture's documented signature is the callable it returns, not the fixture function's.
FIXTURES = {"evidence_rank_pytest.rank_bundle": ("path", "config")}


def _entries() -> list[tuple[str, str | None]]:
    """(qualified name, the text between its parentheses or None) for each name a bullet opens with."""
    entries = []
    for line in API_MD.read_text("utf-8").splitlines():
        if not line.startswith("- `"):
            continue
        head = line[2 : line.index("`: ") + 1]  # the backticked names, before the description
        for span in re.findall(r"`([^`]+)`", head):
            name, paren, rest = span.partition("(")
            entries.append((name, rest[: rest.rindex(")")] if paren else None))
    return entries


def _resolve(qualified: str) -> Any:
    """The object ``qualified`` names: the longest importable module prefix, then attributes."""
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute)
        return obj
    raise AssertionError(f"{qualified}: no module prefix imports")


def _parameter_names(text: str) -> tuple[str, ...]:
    """The parameter names of a written signature: split at top-level commas, markers dropped."""
    names, depth, current = [], 0, ""
    for char in text + ",":
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            name = re.split(r"[:=]", current)[0].strip().lstrip("*")
            if name and name != "/":
                names.append(name)
            current = ""
        else:
            current += char
    return tuple(names)


ENTRIES = _entries()


def test_docs_api_lists_names() -> None:
    assert len(ENTRIES) >= 50
    assert len({name for name, _ in ENTRIES}) == len(ENTRIES), "a name is listed twice"


@pytest.mark.parametrize("name", [name for name, _ in ENTRIES if not _unimportable_here(name)])
def test_every_name_docs_api_lists_imports(name: str) -> None:
    assert _resolve(name) is not None


@pytest.mark.parametrize(
    ("name", "written"), [(n, w) for n, w in ENTRIES if w is not None and not _unimportable_here(n)]
)
def test_every_signature_docs_api_writes_names_the_parameters_the_code_takes(name: str, written: str) -> None:
    if name in FIXTURES:
        expected = FIXTURES[name]
    else:
        parameters = inspect.signature(_resolve(name)).parameters
        expected = tuple(p for p in parameters if p != "self")
    assert _parameter_names(written) == expected


@pytest.mark.parametrize("module", [m for m in PUBLIC_MODULES if not _unimportable_here(m)])
def test_every_name_a_public_module_exports_is_in_docs_api(module: str) -> None:
    listed = {name for name, _ in ENTRIES}
    exported = importlib.import_module(module).__all__
    assert exported, f"{module} exports nothing"
    assert sorted(f"{module}.{name}" for name in exported if f"{module}.{name}" not in listed) == []


def test_the_signature_parser_reads_nested_brackets_defaults_and_markers() -> None:
    written = "items: list[tuple[A, B]], *, config: C = D(x=1, y=2), /, **rest"
    assert _parameter_names(written) == ("items", "config", "rest")
