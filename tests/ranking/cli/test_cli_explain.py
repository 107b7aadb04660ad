"""``evidence-rank explain REPORT PROPOSAL_ID``: what it prints, its options and its exit codes.
What an explanation says is ``ranking.checking.explain``'s, tested in
tests/ranking/checking/test_explain.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator_io import canon
from ranking.checking.acceptance import accept
from ranking.checking.explain import explain
from ranking.cli import main
from tests.conftest import PARITY, expected_report, run_main

CONFLICT = PARITY / "069-rank-conflict-same-key-different-text"
MIXED = PARITY / "002-mixed-dispositions"


def _explain(capsys: pytest.CaptureFixture[str], case: Path, pid: str, *extra: str) -> tuple[int, str, str]:
    return run_main(capsys, "explain", case / "expected.report.json", pid, *extra)


def _rendered(case: Path, pid: str, *, bundle: bool) -> str:
    report = (case / "expected.report.json").read_bytes()
    replayed = (case / "bundle.json").read_bytes() if bundle else None
    return "\n".join(explain(accept(report, bundle=replayed), pid).render()) + "\n"


@pytest.mark.parametrize("bundle", [False, True], ids=["report alone", "with --bundle"])
@pytest.mark.parametrize(("case", "pid"), [(CONFLICT, "p.timeout-38"), (MIXED, "p-yaml_env-54")])
def test_explain_prints_the_explanation_of_the_report_and_the_bundle_it_is_given(
    capsys: pytest.CaptureFixture[str], case: Path, pid: str, *, bundle: bool
) -> None:
    extra = ("--bundle", str(case / "bundle.json")) if bundle else ()
    rc, out, err = _explain(capsys, case, pid, *extra)
    assert rc == 0
    assert out == _rendered(case, pid, bundle=bundle)
    assert err == ""


def test_explain_on_an_unknown_proposal_is_a_usage_error_listing_the_ids(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _explain(capsys, MIXED, "p-nope")
    assert rc == 2
    assert out == ""
    assert "evidence-rank: usage.unknown_proposal: no proposal 'p-nope' in the report" in err
    assert (
        "hint: the report's proposals: p-token-27, p-yaml_env-54, p.build-16, p_branch-67, p_hook-9, p_retry-build-37"
        in err
    )


def test_explain_refuses_a_bundle_that_is_not_the_reports(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _explain(capsys, MIXED, "p_hook-9", "--bundle", str(CONFLICT / "bundle.json"))
    assert rc == 4
    assert out == ""
    assert ".json: report.tampered at '/input_digest': the report is not this bundle's" in err


def test_explain_refuses_an_edited_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = expected_report(MIXED)
    report["proposals"][0]["rationale"] = "edited after the fact"
    path = tmp_path / "report.json"
    path.write_bytes(canon(report))
    rc = main(["explain", str(path), "p-token-27"])
    assert rc == 4
    assert ".json: invariant.sealed at '/digest'" in capsys.readouterr().err


def test_explain_refuses_a_report_that_is_not_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "report.json"
    path.write_bytes(b"\xef\xbb\xbf{}")
    rc = main(["explain", str(path), "p-1"])
    assert rc == 3
    assert (
        f"evidence-rank: {path}: input.malformed_json at '': a UTF-8 byte-order mark is not allowed"
        in capsys.readouterr().err
    )


def test_explain_without_a_proposal_id_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["explain", str(MIXED / "expected.report.json")])
    assert caught.value.code == 2
    assert "the following arguments are required: PROPOSAL_ID" in capsys.readouterr().err
