"""``evidence-rank render`` as a user runs it: a page per report, a batch page and its run views."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from curator_io.canonical import seal
from ranking.checking.verification import check_report
from ranking.cli import main
from ranking.views.html.batch import refusing_codes
from tests.conftest import expected_report, run_main
from tests.ranking.running.batch_support import read_summary
from tests.ranking.views.html.conftest import CONFLICT, MIXED


def _render(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    return run_main(capsys, "render", *args)


@pytest.fixture
def batch_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    inbox = tmp_path / "in"
    inbox.mkdir()
    for case in (MIXED, CONFLICT):
        shutil.copy(case / "bundle.json", inbox / f"{case.name}.json")
    (inbox / "zz-<img src=x>.json").write_bytes(b"{not json")
    assert main(["batch", str(inbox), "--out-dir", str(tmp_path / "out")]) == 3
    capsys.readouterr()
    return tmp_path / "out"


def test_render_writes_the_run_view_of_a_verified_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pages" / "run.html"
    code, stdout, _ = _render(capsys, str(MIXED / "expected.report.json"), "--out", str(out))

    assert code == 0
    assert stdout.startswith(f"{out}: run view of run-")
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_render_with_the_bundle_replays_the_report_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.html"
    code, _, err = _render(
        capsys, str(MIXED / "expected.report.json"), "--bundle", str(CONFLICT / "bundle.json"), "--out", str(out)
    )

    assert code == 4
    assert "report.tampered" in err and "input_digest differs" in err
    assert not out.exists()


def test_render_refuses_a_report_that_breaks_an_invariant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = expected_report(MIXED)
    report["counts"]["selected"] = 2
    (tmp_path / "report.json").write_text(json.dumps(seal(report)))

    code, _, err = _render(capsys, str(tmp_path / "report.json"), "--out", str(tmp_path / "run.html"))

    assert code == 4
    assert err.startswith(f"evidence-rank: {tmp_path / 'report.json'}: invariant.partition at '/counts/selected'")
    assert not (tmp_path / "run.html").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--out", "x.html"],
        ["r.json", "--batch", "d", "--out", "x.html"],
        ["--batch", "d", "--bundle", "b", "--out", "x"],
    ],
)
def test_render_needs_exactly_one_of_a_report_and_a_batch(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _render(capsys, *args)

    assert code == 2
    assert err.startswith("evidence-rank: usage.invalid_option")


def test_render_batch_writes_the_batch_page_after_a_run_view_per_scored_bundle(
    batch_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site" / "batch.html"
    code, stdout, _ = _render(capsys, "--batch", str(batch_dir), "--out", str(out))

    assert code == 0
    runs = sorted(p.name for p in (tmp_path / "site" / "batch-runs").iterdir())
    assert runs == ["000001-in_002-mixed-dispositions.html", "000002-in_069-rank-conflict-same-key-different-text.html"]
    page = out.read_text(encoding="utf-8")
    for name in runs:
        assert f'<a href="batch-runs/{name}">run view</a>' in page
    assert "zz-&lt;img src=x&gt;.json" in page and "<img" not in page
    assert "<code>input.malformed_json</code>" in page
    assert '<span class="tag t-rejected">error</span> 1 · threshold 40 · at most' in page  # spaced, issue 35
    assert stdout == f"{out}: batch view of 3 bundles; 2 run views in {out.parent / 'batch-runs'}/\n"


def test_the_batch_chart_counts_the_codes_that_refused_proposals(
    batch_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _render(capsys, "--batch", str(batch_dir), "--out", str(tmp_path / "batch.html"))
    page = (tmp_path / "batch.html").read_text(encoding="utf-8")
    expected = refusing_codes(check_report(expected_report(MIXED))) + refusing_codes(
        check_report(expected_report(CONFLICT))
    )

    assert "evidence.quarantined" not in expected and "rank.selected" not in expected
    for code, n in expected.items():
        assert f'<tr><td><code>{code}</code></td><td class="n">{n}</td></tr>' in page
    top = max(expected.values())
    assert page.count('width="320"') == sum(1 for n in expected.values() if n == top)


def test_a_summary_that_disagrees_with_its_report_is_refused(
    batch_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = read_summary(batch_dir)
    summary["bundles"][0]["selected"] = []
    (batch_dir / "summary.json").write_text(json.dumps(seal(summary)))

    code, _, err = _render(capsys, "--batch", str(batch_dir), "--out", str(tmp_path / "batch.html"))

    assert code == 4
    assert err.startswith("evidence-rank: summary.tampered at '/bundles/0': bundle 1: the summary's run")
    assert not (tmp_path / "batch.html").exists() and not (tmp_path / "batch-runs").exists()


def test_an_unsealed_summary_is_refused(batch_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = read_summary(batch_dir)
    summary["counts"]["error"] = 0
    (batch_dir / "summary.json").write_text(json.dumps(summary))

    code, _, err = _render(capsys, "--batch", str(batch_dir), "--out", str(tmp_path / "batch.html"))

    assert code == 4
    assert "summary.tampered" in err


def test_a_batch_view_that_fails_to_write_leaves_no_runs_folder_behind(batch_dir: Path, tmp_path: Path) -> None:
    from tests.ranking.cli.processes import on_a_full_disk

    page = tmp_path / "pages" / "batch.html"
    page.parent.mkdir()
    done = on_a_full_disk("render", "--batch", str(batch_dir), "--out", str(page), limit=100)

    assert done.returncode == 2, done.stderr
    assert "usage.unwritable" in done.stderr
    assert sorted(p.name for p in page.parent.iterdir()) == []  # no page, and no empty batch-runs/ beside it
