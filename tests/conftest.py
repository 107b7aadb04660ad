"""Shared fixtures: where the parity corpus and the shipped fixtures live."""

from __future__ import annotations

import atexit
import itertools
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
#: The reference's parity corpus, copied into the repository (tests/parity/README.md).
PARITY = REPO / "tests" / "parity" / "cases"
#: Where the reference's own copy sits when this checkout is the project's working tree:
#: tests/parity/test_parity.py checks the in-repo copies against it when it is there.
SHARED = REPO.parent / "shared"


def expected_report(case: Path) -> dict[str, Any]:
    """A parity case's reference report (``expected.report.json``), parsed."""
    return json.loads((case / "expected.report.json").read_bytes())  # type: ignore[no-any-return]


_BASES = Path(tempfile.mkdtemp(prefix="evidence-rank-bases-"))
atexit.register(shutil.rmtree, _BASES, ignore_errors=True)


_BASE_NUMBERS = itertools.count()


def _base_file(bundle: Path) -> Path:
    path = _BASES / f"{next(_BASE_NUMBERS)}.json"
    path.write_text(json.dumps(json.loads(bundle.read_bytes())["memory"]), encoding="utf-8")
    return path


def base_of(bundle: str | Path) -> tuple[str, str]:
    """``--memory-before FILE`` for ``gate``: the base branch's memory when the bundle was curated
    against it, as an honest pull request has it (a file of the bundle's own ``memory``)."""
    return "--memory-before", str(_base_file(Path(bundle)))


def run_main(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """``evidence-rank ARGV`` in this process: its exit code, stdout and stderr."""
    from ranking.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def visible_files(folder: Path) -> list[str]:
    """The names in ``folder`` a user sees: without the hidden lock an output folder keeps."""
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


_MISSING = object()


def resolve_pointer(doc: Any, pointer: str) -> Any:
    """The value a JSON Pointer (RFC 6901) names in ``doc``; AssertionError when it names nothing.

    A pointer may also name a *missing member of an object that resolves* (how an
    error points at a required member that is absent): then the result is ``MISSING``.
    """
    if pointer == "":
        return doc
    assert pointer.startswith("/"), f"not a JSON Pointer: {pointer!r}"
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]
    node = doc
    for i, token in enumerate(tokens):
        last = i == len(tokens) - 1
        if type(node) is dict:
            if token not in node:
                assert last, f"{pointer!r}: no member {token!r}"
                return MISSING
            node = node[token]
        elif type(node) is list:
            assert token.isdigit() and (token == "0" or not token.startswith("0")), f"{pointer!r}: bad index {token!r}"
            assert int(token) < len(node), f"{pointer!r}: index {token} out of range"
            node = node[int(token)]
        else:
            raise AssertionError(f"{pointer!r}: {token!r} goes into a {type(node).__name__}")
    return node


MISSING = _MISSING


def parity_cases() -> list[Path]:
    """Every case folder; an absent corpus is an error, never a silent skip."""
    if not PARITY.is_dir():
        raise RuntimeError(f"parity corpus not found at {PARITY}")
    return sorted(p for p in PARITY.iterdir() if p.is_dir())


@pytest.fixture
def parity_dir() -> Path:
    return PARITY


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Parity is the first test: the reference corpus runs before everything else."""
    items.sort(key=lambda item: item.path.name != "test_parity.py")


#: tests/ranking/test_pytest_plugin.py runs the README's snapshot example in a scratch project.
pytest_plugins = ["pytester"]


def set_at(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    """An edit that sets the member or item at ``path`` to ``value``, or deletes it when
    ``value`` is ``MISSING``."""

    def edit(doc: dict[str, Any]) -> None:
        node = doc
        for token in path[:-1]:
            node = node[token]
        if value is MISSING:
            del node[path[-1]]
        else:
            node[path[-1]] = value

    return edit
