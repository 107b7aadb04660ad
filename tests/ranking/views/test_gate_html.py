"""``gate --format github --html PAGE``: the step summary links to the run view."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ranking.checking.gate import GateResult
from ranking.cli import main
from ranking.views.gate import render_step_summary
from tests.conftest import PARITY, base_of

CASE = PARITY / "003-empty-proposals"


def _passed() -> GateResult:
    return GateResult((), 8, 2)


def test_the_summary_links_to_the_page_when_one_is_given() -> None:
    assert "Run view" not in render_step_summary(_passed())
    assert "Run view: [artifacts/run.html](<artifacts/run.html>)\n" in render_step_summary(
        _passed(), "artifacts/run.html"
    )


def test_a_link_with_spaces_parentheses_or_angle_brackets_stays_one_link() -> None:
    summary = render_step_summary(_passed(), "out/run (1) <x>.html")

    assert "(<out/run%20(1)%20%3Cx%3E.html>)" in summary


def _gate(tmp_path: Path, *extra: str) -> int:
    memory = tmp_path / "memory.json"
    memory.write_text(json.dumps(json.loads((CASE / "expected.apply.json").read_bytes())))
    return main(
        [
            "gate",
            "--bundle",
            str(CASE / "bundle.json"),
            "--report",
            str(CASE / "expected.report.json"),
            "--memory-after",
            str(memory),
            *base_of(CASE / "bundle.json"),
            *extra,
        ]
    )


def test_gate_links_the_run_view_in_the_step_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))

    assert _gate(tmp_path, "--format", "github", "--html", "https://example.test/run.html") == 0
    assert "Run view: [https://example.test/run.html](<https://example.test/run.html>)" in summary.read_text()


def test_html_without_the_github_format_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _gate(tmp_path, "--html", "run.html") == 2
    assert capsys.readouterr().err.startswith("evidence-rank: usage.invalid_option: --html links the page")
