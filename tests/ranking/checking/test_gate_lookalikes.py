"""The gate's look-alike warnings (issue 50): each instruction the write adds or changes that
resembles another instruction memory-after keeps, under another key, in every format; a warning,
not a failure, unless ``--fail-on-lookalikes``. Memory-after is the scenario's honest write
(tests/curator_scenario.py): everything the selection permits, so no finding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from curator_io import DEFAULT_CONFIG, MemoryFile, canon
from curator_io.positions import position_of
from ranking.checking.acceptance import accept
from ranking.checking.apply import apply_selection, reviewable
from ranking.checking.gate import gate
from ranking.pipeline import rank
from ranking.views.gate import render_github, render_json, render_step_summary, render_text
from ranking.views.terminal import Command
from tests.conftest import run_main
from tests.curator_scenario import scenario

# The write holds both texts, so the advice is what a curator's note says of an admitted edit (issue 56).
DEPS = (
    "instruction 'deps.install' resembles instruction 'deps.setup' (score 100; shared words: anything, uv, sync, "
    "install, dependencies): one instruction, one key: remove 'deps.setup' or 'deps.install', in a proposal of its own"
)
TESTS = (
    "instruction 'test.runner' resembles instruction 'test.command' (score 100; shared words: pytest, test): "
    "memory holds both: remove the one the evidence does not support ('test.runner' or 'test.command'), in a "
    "proposal of its own"
)


def _base(bundle: bytes) -> MemoryFile:
    """The base branch's memory: the bundle's, as a JSON file."""
    return MemoryFile(canon(json.loads(bundle)["memory"]), markdown=False)


def _file(memory: dict[str, Any]) -> MemoryFile:
    return MemoryFile(canon(memory), markdown=False)


def _written() -> tuple[bytes, bytes, dict[str, Any]]:
    sealed = scenario()
    report = rank(sealed.bundle).canonical
    return report, sealed.canonical, apply_selection(accept(report, bundle=sealed.canonical))


def test_the_honest_write_passes_with_a_warning_for_each_new_instruction_that_resembles_a_kept_one() -> None:
    report, bundle, memory = _written()
    result = gate(report, bundle, _file(memory), config=DEFAULT_CONFIG, base=_base(bundle), trust=None)
    assert result.passed and result.findings == ()
    assert [(w.kind, w.key, w.pointer, w.message) for w in result.warnings] == [
        ("lookalike", "deps.install", "/instructions/0", DEPS),
        ("lookalike", "test.runner", "/instructions/4", TESTS),
    ]
    assert render_text(result) == [
        f"warning: lookalike  /instructions/0  {DEPS}",
        f"warning: lookalike  /instructions/4  {TESTS}",
        "warning: not checked: who signed the bundle (no --trust), so anyone who can edit the change can invent "
        "evidence and reseal it",
        "gate passed: memory-after is exactly what the selection permits (version 5, 5 instructions); "
        "2 look-alikes under other keys to review",
    ]


def test_with_fail_on_lookalikes_the_same_write_fails_the_gate_and_says_why() -> None:
    report, bundle, memory = _written()
    result = gate(report, bundle, _file(memory), config=DEFAULT_CONFIG, base=_base(bundle), fail_on_lookalikes=True)
    assert not result.passed and result.findings == ()
    assert render_text(result)[0] == f"lookalike  /instructions/0  {DEPS}"
    assert render_text(result)[-1] == "gate failed: 2 look-alikes under other keys (--fail-on-lookalikes)"


def test_the_json_format_carries_each_warning_with_the_pair_the_score_the_words_and_the_relation() -> None:
    report, bundle, memory = _written()
    doc = json.loads(render_json(gate(report, bundle, _file(memory), config=DEFAULT_CONFIG, base=_base(bundle))))
    assert doc["passed"] is True and doc["findings"] == []
    assert doc["warnings"][1] == {
        "kind": "lookalike",
        "key": "test.runner",
        "document": "memory-after",
        "pointer": "/instructions/4",
        "line": None,
        "message": TESTS,
        "resembles": {"where": "memory-after", "key": "test.command"},
        "score": 100,
        "words": ["pytest", "test"],
        "relation": "contradicts",  # "Never run bare pytest" rejects what "Run the tests with pytest" requires
    }
    assert doc["warnings_left_out"] == 0


def test_an_instruction_the_writer_adds_on_its_own_is_a_finding_and_also_a_look_alike_when_it_resembles_one() -> None:
    report, bundle, memory = _written()
    (command,) = [i for i in memory["instructions"] if i["key"] == "test.command"]
    own = {**command, "key": "test.pytest", "text": "Always run the tests with pytest."}
    result = gate(
        report,
        bundle,
        _file({**memory, "instructions": [*memory["instructions"], own]}),
        config=DEFAULT_CONFIG,
        base=_base(bundle),
    )
    assert [(f.kind, f.key) for f in result.findings] == [("unexpected_addition", "test.pytest")]
    assert [(w.key, w.lookalike.other.key) for w in result.warnings] == [
        ("deps.install", "deps.setup"),
        ("test.pytest", "test.command"),
        ("test.pytest", "test.runner"),
        ("test.runner", "test.command"),
        ("test.runner", "test.pytest"),
    ]


def test_the_github_format_puts_each_warning_on_its_line_of_memory_after_and_in_the_step_summary() -> None:
    report, bundle, memory = _written()
    written = reviewable(memory)  # apply's indented form: each instruction on lines of its own
    result = gate(report, bundle, MemoryFile(written, markdown=False), config=DEFAULT_CONFIG, base=_base(bundle))
    text = written.decode("utf-8")
    lines = [c.line() for c in render_github(result, "agent/memory.json") if isinstance(c, Command)]
    line, col = position_of(text, "/instructions/4")  # type: ignore[misc]
    assert lines[1] == (
        f"::warning file=agent/memory.json,line={line},col={col},title=evidence-rank gate%3A look-alike::"
        f"{TESTS} (/instructions/4)"
    )
    summary = render_step_summary(result)
    assert "| key | pointer | resembles | score | shared words |" in summary
    assert "| test.runner | /instructions/4 | instruction 'test.command' | 100 | pytest, test |" in summary


def test_the_command_line_fails_on_look_alikes_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, bundle, memory = _written()
    files = {"report.json": report, "bundle.json": bundle, "memory.json": reviewable(memory)}
    files["base.json"] = canon(json.loads(bundle)["memory"])
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    argv = ["gate", "--bundle", tmp_path / "bundle.json", "--report", tmp_path / "report.json"]
    argv += ["--memory-after", tmp_path / "memory.json", "--memory-before", tmp_path / "base.json"]
    code, out, _ = run_main(capsys, *argv)
    assert code == 0 and out.splitlines()[0] == f"warning: lookalike  /instructions/0  {DEPS}"
    code, out, _ = run_main(capsys, *argv, "--fail-on-lookalikes")
    assert code == 1 and out.splitlines()[-1] == "gate failed: 2 look-alikes under other keys (--fail-on-lookalikes)"
