"""The ``score`` walk returns to the loader at most 3 times (issue 27, "one owner per rule").

Read from the command down, ``evidence-rank score`` loads the bundle once and then
works on the frozen :class:`~curator_io.models.Bundle`: validation, ranking, the
reports and the writing should not call back into the code that turns bytes into a
bundle.

**The loader** is :mod:`curator_io.bundle` (``load_bundle``, ``bundle_from_document``:
bytes, or a parsed document, to a ``Bundle``) with the two helpers no other module
imports (:data:`LOADER`; ``test_the_loaders_helpers_are_imported_by_the_loader_alone``
keeps that true):

* :mod:`curator_io._jsonstream`, which reads a bundle's top-level object a chunk at a time;
* :mod:`curator_io.artifacts`, which checks the artifacts against the tables of
  :mod:`curator_io.kinds` and builds their models.

Not the loader: :mod:`curator_io.jsonio`, the strict I-JSON parser (SPEC §0) every
input goes through (the config, a validation report, a signature envelope, a ledger's
bodies): reading the config with it reads another document, it does not load the
bundle again. Nor :mod:`curator_io.kinds` (the validator reads a proposal's scope
with its ``parse_scope``) or :mod:`curator_io.models` (the ``Bundle`` itself).

**A return to the loader** is one distinct *call site*: a function (its module and
qualified name, i.e. its code object) of ``curator_io``, ``validator`` or ``ranking``
outside the loader that calls a function defined in the loader. Frames of the
stdlib, of third-party packages and of the tests in between are looked through (a
loader function handed to ``map`` is called from the frame that called ``map``). A
call made by the cyclic garbage collector is not counted: it closes a generator the
collector frees (seen: ``ArrayMember._read`` of an earlier run's refused bundle, at a
``yield``) in whatever frame the collection starts in, which did not call it. Counting sites, not calls, makes
the number independent of the bundle's size.

The walk is ``ranking.cli.main(["score", ...])`` in this process, under
:func:`sys.setprofile`, over every shipped example bundle (``fixtures/``), every
parity case (with its config where it has one; a refused bundle exits 3 and writes
``error.json``) and the example once more with the options that read more input
(``--validation``, ``--trust`` with a signature, ``--ledger``): the number is the union
of the call sites over all of them. bench/RESULTS.md ("the score walk") records what
it found.
"""

from __future__ import annotations

import ast
import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from curator_io.bundle import load_bundle
from ranking.cli import main
from tests.conftest import FIXTURES, REPO, parity_cases
from tests.signing import envelope, signing_key, trust_file

#: The loader's modules: :mod:`curator_io.bundle` and the helpers only it imports.
LOADER = frozenset({"curator_io.bundle", "curator_io._jsonstream", "curator_io.artifacts"})
#: Whose frames are callers; any other frame (stdlib, third-party, tests) is looked through.
PACKAGES = frozenset({"curator_io", "validator", "ranking"})
#: Issue 27's done-when: "The `score` walk returns to the loader module at most 3 times."
BOUND = 3

#: ``{"module:qualname" of a caller outside the loader: {loader functions it called}}``.
Sites = dict[str, set[str]]


@dataclass
class Walk:
    """What a profiled block called: the loader from outside it, and the JSON it parsed."""

    sites: Sites = field(default_factory=dict)
    """The call sites outside the loader that call into it."""
    parsed: list[tuple[str, bytes]] = field(default_factory=list)
    """``(site, bytes)`` of each document ``curator_io.jsonio.parse_json`` read for a caller
    outside the loader (a config, a report, an envelope: never the bundle again)."""


def _module(frame: FrameType) -> str:
    return frame.f_globals.get("__name__", "")  # type: ignore[no-any-return]


def _caller(frame: FrameType) -> FrameType | None:
    """The nearest frame of :data:`PACKAGES` that ``frame`` was called from."""
    caller = frame.f_back
    while caller is not None and _module(caller).partition(".")[0] not in PACKAGES:
        caller = caller.f_back
    return caller


@contextmanager
def _walked() -> Iterator[Walk]:
    """What the block runs, seen by a profile hook (calls only; a C function's are its caller's)."""
    walk = Walk()
    collecting: list[bool] = []

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        collecting[:] = [phase == "start"]

    def on_event(frame: FrameType, event: str, arg: object) -> None:
        if event != "call" or any(collecting):
            return
        module = _module(frame)
        parses = module == "curator_io.jsonio" and frame.f_code.co_name == "parse_json"
        if module not in LOADER and not parses:
            return
        caller = _caller(frame)
        if caller is None or _module(caller) in LOADER:
            return
        site = f"{_module(caller)}:{caller.f_code.co_qualname}"
        if parses:
            walk.parsed.append((site, frame.f_locals["raw"]))
        else:
            walk.sites.setdefault(site, set()).add(f"{module}.{frame.f_code.co_qualname}")

    previous = sys.getprofile()
    gc.callbacks.append(on_gc)
    sys.setprofile(on_event)
    try:
        yield walk
    finally:
        sys.setprofile(previous)
        gc.callbacks.remove(on_gc)


def _runs(out: Path) -> Iterator[tuple[str, list[str], int]]:
    """``(name, argv, expected exit code)`` for each run of the walk, in order."""
    for bundle in sorted(FIXTURES.glob("*.json")):
        yield bundle.name, ["score", str(bundle), "--out-dir", str(out / bundle.stem), "--quiet"], 0
    for case in parity_cases():
        argv = ["score", str(case / "bundle.json"), "--out-dir", str(out / case.name), "--quiet"]
        if (case / "config.json").exists():
            argv += ["--config", str(case / "config.json")]
        refused = (case / "expected.error.json").exists()
        yield case.name, argv, 3 if refused else 0
    yield "example.json with every input option", _every_option(out), 0


def _every_option(out: Path) -> list[str]:
    """``score`` of the example against its earlier validation (the fixtures' run above),
    signed by a trusted key, recorded in a ledger."""
    raw = (FIXTURES / "example.json").read_bytes()
    bundle = out / "signed" / "example.json"
    bundle.parent.mkdir()
    bundle.write_bytes(raw)
    key = signing_key("walker")
    (out / "signed" / "trust").write_bytes(trust_file((key, "walker")))
    signature = envelope(key, "bundle", load_bundle(raw).input_digest, bundle.name)
    (out / "signed" / "example.json.intoto.json").write_bytes(signature)
    return [
        "score",
        str(bundle),
        "--out-dir",
        str(out / "signed" / "out"),
        "--quiet",
        "--validation",
        str(out / "example" / "validation.json"),
        "--trust",
        str(out / "signed" / "trust"),
        "--ledger",
        str(out / "signed" / "ledger.sqlite"),
    ]


@pytest.fixture(scope="module")
def score_walk(tmp_path_factory: pytest.TempPathFactory) -> Walk:
    """The union over every run of :func:`_runs`; ``parsed`` keeps what was parsed
    that is the bytes of the run's own bundle, with the run's name for a site."""
    union = Walk()
    out = tmp_path_factory.mktemp("walk")
    for name, argv, expected in _runs(out):
        with _walked() as walk:
            code = main(argv)
        assert code == expected, f"{name}: score exited {code}, not {expected}: the walk did not run whole"
        for site, called in walk.sites.items():
            union.sites.setdefault(site, set()).update(called)
        bundle = Path(argv[1]).read_bytes()
        union.parsed += [(f"{name}: {site}", raw) for site, raw in walk.parsed if raw == bundle]
        assert walk.parsed or "--config" not in argv, f"{name}: the config was read, and not seen"
    return union


def _shown(sites: Sites) -> str:
    return "\n".join(f"  {site} -> {', '.join(sorted(called))}" for site, called in sorted(sites.items()))


def test_the_score_walk_returns_to_the_loader_at_most_three_times(score_walk: Walk) -> None:
    sites = score_walk.sites
    # Not vacuous: the walk is seen loading the bundle, from exactly one place.
    loads = [site for site, called in sites.items() if "curator_io.bundle.load_bundle" in called]
    assert len(loads) == 1, f"load_bundle is called from {loads}, not from one place:\n{_shown(sites)}"
    assert len(sites) <= BOUND, (
        f"the score walk returns to the loader ({', '.join(sorted(LOADER))}) from {len(sites)} places, "
        f"at most {BOUND} allowed; each caller and the loader functions it calls:\n{_shown(sites)}"
    )


def test_nothing_outside_the_loader_parses_the_bundle_again(score_walk: Walk) -> None:
    # jsonio is not the loader (the module docstring says why), but a parse of the bundle's own
    # bytes from outside the loader would be loading it a second time.
    again = sorted({site.partition(": ")[2] for site, _ in score_walk.parsed})
    assert again == [], f"the bundle's bytes are parsed again, outside the loader, by {again}"


def test_the_walk_counts_a_caller_once_however_often_it_calls() -> None:
    # The count is of sites, so a bundle of any size gives the same number: two loads from
    # one function are one site; a caller outside the packages (this test) is looked through.
    from ranking.cli.common import load_named_bundle

    raw = (FIXTURES / "example.json").read_bytes()
    with _walked() as walk:
        load_bundle(raw)
    assert walk.sites == {}
    with _walked() as walk:
        load_named_bundle(raw, "example.json")
        load_named_bundle(raw, "example.json")
    site = f"{load_named_bundle.__module__}:{load_named_bundle.__qualname__}"
    assert walk.sites == {site: {"curator_io.bundle.load_bundle"}}


def test_the_walk_sees_a_parse_of_the_bundle_outside_the_loader() -> None:
    # What the second test looks for, made on purpose: read_config parsing the bundle's bytes.
    from curator_io.errors import ConfigError
    from ranking.cli.common import read_config

    with _walked() as walk, pytest.raises(ConfigError, match="'schema' is not a config member"):
        read_config(str(FIXTURES / "example.json"))  # a bundle for a config: refused after the parse
    assert walk.parsed == [
        (f"{read_config.__module__}:{read_config.__qualname__}", (FIXTURES / "example.json").read_bytes())
    ]


def _imports(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_the_loaders_helpers_are_imported_by_the_loader_alone() -> None:
    # What makes jsonstream and artifacts part of the loader: nothing else uses them. A module
    # that starts to would be a second owner of loading, and this docstring's definition stale.
    helpers = LOADER - {"curator_io.bundle"}
    importers: dict[str, list[str]] = {helper: [] for helper in helpers}
    for package in sorted(PACKAGES):
        for path in sorted((REPO / package).rglob("*.py")):
            name = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
            for helper in helpers & _imports(ast.parse(path.read_text("utf-8"), str(path))):
                importers[helper].append(name)
    assert importers == {helper: ["curator_io.bundle"] for helper in helpers}
