"""A newcomer's first hour, as they would type it: --version, options anywhere,
stdin, and errors that say what is wrong."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from curator_io import canon, parse_json
from ranking.cli import main, version_line
from tests.conftest import FIXTURES, base_of

EXAMPLE = FIXTURES / "example.json"


@pytest.fixture
def scored(tmp_path: Path) -> Path:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path / "out"), "-q"]) == 0
    return tmp_path / "out"


def test_version_names_the_tool_and_the_document_formats(capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    out = capsys.readouterr().out
    assert out == version_line() + "\n"
    assert out.startswith("evidence-rank 0.") and "evidence-ranking-v1" in out


def test_global_options_are_accepted_after_the_command(tmp_path: Path, capsys) -> None:
    argv = ["score", str(EXAMPLE), "--out-dir", str(tmp_path), "-vv", "--log-format", "json"]
    assert main(argv) == 0
    events = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert {e["event"] for e in events} >= {"decision"}


def test_score_and_validate_read_a_bundle_from_stdin_with_the_same_bytes_out(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path / "file"), "-q"]) == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(EXAMPLE.read_bytes())))
    assert main(["score", "-", "--out-dir", str(tmp_path / "stdin"), "-q"]) == 0
    for name in ("validation.json", "report.json"):
        assert (tmp_path / "stdin" / name).read_bytes() == (tmp_path / "file" / name).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(EXAMPLE.read_bytes())))
    capsys.readouterr()
    assert main(["validate", "-"]) == 0
    assert capsys.readouterr().out.encode() == (tmp_path / "file" / "validation.json").read_bytes() + b"\n"


def test_summary_prints_the_outcome_line_and_quiet_prints_nothing(tmp_path: Path, capsys) -> None:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path), "--summary"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "outcome: selected · selected 1 of 3 (accepted 1, deferred 1, quarantined 0, rejected 1, "
        "below threshold 0, superseded 0)"
    ]
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path), "--quiet"]) == 0
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    ("document", "says"),
    [
        ("bundle", "this is a curator bundle, not a ranking report"),
        ("validation", "this is a validation report, not a ranking report"),
        ("empty", "not a ranking report: it has no schema member"),
        ("array", "this is a JSON array, not a ranking report"),
    ],
)
@pytest.mark.parametrize("command", ["verify", "explain"])
def test_verify_and_explain_on_something_that_is_not_a_ranking_report_say_what_it_is(
    document: str, says: str, command: str, scored: Path, tmp_path: Path, capsys
) -> None:
    path = {"bundle": EXAMPLE, "validation": scored / "validation.json"}.get(document, tmp_path / "doc.json")
    if document == "empty":
        path.write_text("{}")
    elif document == "array":
        path.write_text("[]")
    argv = [command, str(path)] + (["p-make-test"] if command == "explain" else [])
    assert main(argv) == 3
    err = capsys.readouterr().err
    pointer = "''" if document == "array" else "'/schema'"
    assert err.startswith(f"evidence-rank: {path}: input.schema at {pointer}: {says}")
    assert "tamper" not in err


def test_an_id_that_does_not_fit_says_what_an_id_is_and_what_it_got(tmp_path: Path, capsys) -> None:
    doc = parse_json(EXAMPLE.read_bytes())
    doc["traces"][0]["id"] = "task 101"
    path = tmp_path / "b.json"
    path.write_bytes(canon(doc))
    assert main(["validate", str(path)]) == 3
    err = capsys.readouterr().err
    assert "input.schema at '/traces/0/id': expected an ID (1-128 ASCII letters, digits and . _ : / -, " in err
    assert "got 'task 101'" in err


def test_a_huge_whole_number_in_a_config_is_described_as_what_it_is(tmp_path: Path, capsys) -> None:
    config = tmp_path / "c.json"
    config.write_text('{"max_selected": 1e300}')
    assert main(["score", str(EXAMPLE), "--config", str(config), "--out-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "expected a whole number from 1 to 9007199254740991, got 1e+300" in err


def test_malformed_json_in_a_config_gets_no_hint_about_bundles_and_no_at_at(tmp_path: Path, capsys) -> None:
    config = tmp_path / "c.json"
    config.write_bytes(b'{"threshold": "\x01"}')
    assert main(["score", str(EXAMPLE), "--config", str(config), "--out-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "Invalid control character at line 1 column 16" in err
    assert "at at" not in err and "bundle" not in err


@pytest.fixture
def memory(tmp_path: Path, scored: Path) -> Path:
    assert main(["apply", str(EXAMPLE), str(scored / "report.json"), "--out", str(tmp_path / "m.json")]) == 0
    return tmp_path / "m.json"


def gate(scored: Path, memory: Path) -> list[str]:
    report = str(scored / "report.json")
    return ["gate", "--bundle", str(EXAMPLE), "--report", report, "--memory-after", str(memory), *base_of(EXAMPLE)]


def test_a_memory_version_of_the_wrong_type_is_an_input_error_not_a_finding(memory: Path, scored: Path, capsys):
    doc = parse_json(memory.read_bytes())
    doc["version"] = str(doc["version"])
    memory.write_bytes(canon(doc))
    assert main(gate(scored, memory)) == 3
    err = capsys.readouterr().err
    assert f"evidence-rank: {memory}: input.schema at '/version': expected an INT" in err


@pytest.mark.parametrize(
    ("spoil", "exit_code", "code"),
    [("version", 3, "input.schema"), ("missing", 2, "usage.unreadable"), ("report", 4, "report.tampered")],
)
def test_gate_json_and_github_print_a_verdict_on_exits_2_3_and_4(
    spoil: str, exit_code: int, code: str, memory: Path, scored: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    argv = gate(scored, memory)
    if spoil == "version":
        memory.write_text('{"version": "8", "instructions": []}')
    elif spoil == "missing":
        argv[argv.index("--memory-after") + 1] = str(tmp_path / "nope.json")
    else:
        report = parse_json((scored / "report.json").read_bytes())
        report["input_digest"] = "sha256:" + "0" * 64
        from curator_io import seal

        (scored / "report.json").write_bytes(canon(seal(report)))
    assert main([*argv, "--format", "json"]) == exit_code
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["passed"] is False
    assert (verdict["error"]["code"], verdict["error"]["exit_code"]) == (code, exit_code)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main([*argv, "--format", "github"]) == exit_code
    out = capsys.readouterr().out
    assert out.startswith("::error ") and f"title=evidence-rank gate%3A {code}::" in out
    assert summary.read_text().startswith(f"### evidence-rank gate: refused (exit {exit_code})")


def test_a_passing_gate_counts_one_instruction_in_the_singular(tmp_path: Path, capsys) -> None:
    from ranking.checking.gate import GateResult
    from ranking.views.gate import render_text

    assert "(version 8, 1 instruction)" in render_text(GateResult((), 8, 1))[-1]
    assert "(version 8, 2 instructions)" in render_text(GateResult((), 8, 2))[-1]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--workers", "x"], "argument --workers: expected a whole number >= 1, got 'x'"),
        (
            ["--connect-timeout", "abc"],
            "argument --connect-timeout: expected a finite number of seconds > 0, got 'abc'",
        ),
    ],
)
def test_a_bad_number_on_the_command_line_says_what_was_expected(argv: list[str], says: str, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["batch", str(EXAMPLE), "--out-dir", "x", *argv])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "_positive" not in err


def test_batch_quiet_prints_no_table_and_no_progress(tmp_path: Path, capsys) -> None:
    assert main(["batch", str(EXAMPLE), "--out-dir", str(tmp_path), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    assert (tmp_path / "summary.json").exists()
