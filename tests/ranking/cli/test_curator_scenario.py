"""Issue 50's "gate your own curator" scenario, as a user runs it (tests/curator_scenario.py): a
curator proposes ``deps.install``, a reworded copy of ``deps.setup``, and ``test.runner``, which
contradicts ``test.command``, under new keys. SPEC selects 3 of the 4 edits (the keys differ, so
there is no duplicate and no conflict); ``explain`` and the gate both name the two look-alikes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_main
from tests.curator_scenario import scenario

HEADING = "Look-alikes under other keys (advice: SPEC decides duplicates and conflicts by key)"


@pytest.fixture
def scored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The bundle scored, the selection applied as the Writer writes it, and the base's memory."""
    sealed = scenario()
    (tmp_path / "bundle.json").write_bytes(sealed.canonical)
    (tmp_path / "memory-before.json").write_text(json.dumps(sealed.document["memory"], indent=2), "utf-8")
    assert run_main(capsys, "score", tmp_path / "bundle.json", "--out-dir", tmp_path / "out", "-q")[0] == 0
    report = tmp_path / "out" / "report.json"
    assert json.loads(report.read_bytes())["selected"] == ["p-deps", "p-lint", "p-test-runner"]
    assert run_main(capsys, "apply", tmp_path / "bundle.json", report, "--out", tmp_path / "memory.json")[0] == 0
    return tmp_path


def test_explain_names_the_memory_instruction_each_new_key_resembles(
    scored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = {}
    for pid in ("p-deps", "p-test-runner"):
        code, out, _ = run_main(
            capsys, "explain", scored / "out" / "report.json", pid, "--bundle", scored / "bundle.json"
        )
        assert code == 0
        lines = out.splitlines()
        shown[pid] = lines[lines.index(HEADING) + 1 :]
    assert shown["p-deps"][:2] == [
        "  add deps.install resembles memory 'deps.setup' (score 100; shared words: anything, uv, sync, install, "
        "dependencies): 'Install the dependencies with uv sync before running anything.'",
        "    if it updates 'deps.setup', replace 'deps.setup' with this text instead of adding 'deps.install'",
    ]
    assert shown["p-test-runner"][:2] == [
        "  add test.runner resembles memory 'test.command' (score 100; shared words: pytest, test): "
        "'Run the tests with pytest.'",
        "    do not keep both: if the evidence shows 'test.command' is wrong, replace 'test.command' with this text "
        "instead of adding 'test.runner'",
    ]


def test_the_gate_passes_the_honest_write_and_warns_of_both_look_alikes(
    scored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["gate", "--bundle", scored / "bundle.json", "--report", scored / "out" / "report.json"]
    argv += ["--memory-after", scored / "memory.json", "--memory-before", scored / "memory-before.json"]
    code, out, _ = run_main(capsys, *argv, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["passed"] is True and doc["findings"] == []
    assert [(w["key"], w["resembles"]["key"], w["score"]) for w in doc["warnings"]] == [
        ("deps.install", "deps.setup", 100),
        ("test.runner", "test.command", 100),
    ]
    code, out, _ = run_main(capsys, *argv, "--fail-on-lookalikes")
    assert code == 1
    assert [line.split("  ")[:2] for line in out.splitlines()[:2]] == [
        ["lookalike", "/instructions/0"],
        ["lookalike", "/instructions/4"],
    ]
