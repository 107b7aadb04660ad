"""bench/generate.py writes one sealed content in every layout of bench/layouts.py."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from bench import generate
from bench.layouts import LAYOUTS, layout_path
from curator_io.canonical import canon
from ranking.cli import main

SPEC_TOP = [
    "schema",
    "run",
    "memory",
    "instructions",
    "materializations",
    "traces",
    "evidence",
    "lessons",
    "proposals",
    "frozen",
]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("layouts") / "bundle.json"
    argv = ["40", "--seed", "5", "--out", str(base)]
    assert generate.main([*argv, *(f"--layout={name}" for name in LAYOUTS)]) == 0
    return {name: layout_path(base, name) for name in LAYOUTS}


def test_every_layout_is_other_bytes_of_the_same_sealed_document(written: dict[str, Path]) -> None:
    raws = {name: path.read_bytes() for name, path in written.items()}
    assert len(set(raws.values())) == len(LAYOUTS)
    docs = {name: orjson.loads(raw) for name, raw in raws.items()}
    assert raws["canonical"] == canon(docs["canonical"])
    for doc in docs.values():
        body = {k: v for k, v in doc.items() if k != "frozen"}
        # SPEC §1: frozen.digest is over the canonical bytes of the rest, whatever the layout.
        assert doc["frozen"]["digest"] == "sha256:" + hashlib.sha256(canon(body)).hexdigest()
        assert canon(doc) == raws["canonical"]
    assert len({doc["frozen"]["digest"] for doc in docs.values()}) == 1


def test_spec_order_follows_spec_section_1_and_reverse_order_is_its_mirror(written: dict[str, Path]) -> None:
    spec = orjson.loads(written["spec"].read_bytes())
    reverse = orjson.loads(written["reverse"].read_bytes())
    assert list(spec) == SPEC_TOP
    assert list(reverse) == SPEC_TOP[::-1]
    trace = ["id", "lineage", "materialization", "steps", "completeness", "verified_prefix", "digest"]
    assert list(spec["traces"][0]) == trace
    assert list(reverse["traces"][0]) == trace[::-1]
    first = spec["proposals"][0]
    assert list(first)[:3] == ["id", "lesson", "scope"]
    assert list(first["operations"][0])[:2] == ["action", "key"]
    assert list(spec["memory"]["instructions"][0]) == ["key", "text", "scope", "origin", "digest"]


def test_the_indented_layout_is_indented_by_two_spaces(written: dict[str, Path]) -> None:
    lines = written["indented"].read_bytes().splitlines()
    assert lines[0] == b"{"
    assert lines[1].startswith(b'  "evidence": [')


def test_every_layout_scores_to_the_same_reports(written: dict[str, Path], tmp_path: Path) -> None:
    outputs = {}
    for name, path in written.items():
        out = tmp_path / name
        assert main(["score", str(path), "--out-dir", str(out), "-q"]) == 0
        outputs[name] = ((out / "report.json").read_bytes(), (out / "validation.json").read_bytes())
    assert len(set(outputs.values())) == 1
