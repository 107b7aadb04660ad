"""The pinned policy (``ranking.checking.policy``, applied by acceptance), and ``verify --config`` as a user runs it.

The loosened report is parity case 002's bundle ranked with ``{"threshold": 0,
"min_lineages": 1}``: a genuine, sealed report that replays byte for byte, and
selects five proposals where the SPEC §2 defaults select one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from curator_io import DEFAULT_CONFIG, PolicyError, TamperError, canon, load_bundle, parse_config, seal
from ranking.checking.acceptance import accept
from ranking.checking.policy import config_mismatches
from ranking.pipeline import rank
from tests.conftest import PARITY, run_main

MIXED = PARITY / "002-mixed-dispositions"
LOOSE = {"threshold": 0, "min_lineages": 1}


def _loosened_report() -> dict[str, Any]:
    return rank(load_bundle((MIXED / "bundle.json").read_bytes()), parse_config(LOOSE)).report


def _write(tmp_path: Path, name: str, doc: Any) -> str:
    path = tmp_path / name
    path.write_bytes(canon(doc))
    return str(path)


# -- the library ----------------------------------------------------------------------------


def test_a_report_ranked_with_the_defaults_has_no_mismatch_with_the_defaults() -> None:
    report = json.loads((MIXED / "expected.report.json").read_bytes())
    assert config_mismatches(report, DEFAULT_CONFIG) == ()
    assert accept(report, config=DEFAULT_CONFIG).pinned == DEFAULT_CONFIG


def test_each_loosened_member_is_a_mismatch_with_its_pinned_value_its_value_and_its_pointer() -> None:
    report = _loosened_report()
    assert len(report["selected"]) == 5
    mismatches = config_mismatches(report, DEFAULT_CONFIG)
    assert [m.to_json() for m in mismatches] == [
        {"member": "min_lineages", "pointer": "/config/min_lineages", "pinned": 2, "report": 1},
        {"member": "threshold", "pointer": "/config/threshold", "pinned": 40, "report": 0},
    ]
    assert mismatches[1].describe() == "threshold is 0 in the report, 40 in the pinned policy"


def test_a_pin_equal_to_the_reports_config_has_no_mismatch() -> None:
    assert config_mismatches(_loosened_report(), parse_config(LOOSE)) == ()


def test_a_threshold_written_40_point_0_is_the_pinned_40_as_canonical_json_writes_both_40() -> None:
    report = {"config": {**DEFAULT_CONFIG.to_json(), "threshold": 40.0}}
    assert config_mismatches(report, DEFAULT_CONFIG) == ()


def test_a_member_the_report_lacks_or_adds_is_a_mismatch_shown_as_absent() -> None:
    config = DEFAULT_CONFIG.to_json()
    del config["max_operations"]
    mismatches = config_mismatches({"config": {**config, "lenient": True}}, DEFAULT_CONFIG)
    assert [(m.member, m.pinned_text, m.found_text) for m in mismatches] == [
        ("lenient", "absent", "true"),
        ("max_operations", "6", "absent"),
    ]
    assert [m.to_json()["pinned"] for m in mismatches] == [None, 6]


@pytest.mark.parametrize("report", [{}, {"config": [40]}], ids=["no config", "config not an object"])
def test_a_report_without_a_config_object_is_tampered(report: dict[str, Any]) -> None:
    with pytest.raises(TamperError, match=r"^report\.tampered at '/config': the report has no config object$"):
        config_mismatches(report, DEFAULT_CONFIG)


def test_acceptance_refuses_a_loosened_report_naming_every_member_and_pointing_at_the_first() -> None:
    with pytest.raises(PolicyError) as caught:
        accept(_loosened_report(), config=DEFAULT_CONFIG)
    err = caught.value
    assert (err.code, err.pointer, err.exit_code) == ("policy.config_mismatch", "/config/min_lineages", 1)
    assert err.message == (
        "policy.config_mismatch at '/config/min_lineages': the report was not ranked with the pinned policy: "
        "min_lineages is 1 in the report, 2 in the pinned policy; threshold is 0 in the report, 40 in the pinned policy"
    )
    assert "--config POLICY" in err.diagnostics()


# -- evidence-rank verify --config ----------------------------------------------------------


@pytest.fixture
def loosened(tmp_path: Path) -> str:
    return _write(tmp_path, "report.json", _loosened_report())


def _verify(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return run_main(capsys, "verify", *argv)


def test_verify_without_config_trusts_the_loosened_report_and_says_it_did_not_pin(
    loosened: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, out, _ = _verify(capsys, loosened, "--bundle", str(MIXED / "bundle.json"))
    assert rc == 0
    assert out.rstrip().endswith("is byte-identical; config not pinned (--config pins it)")


@pytest.mark.parametrize("with_bundle", [True, False], ids=["with bundle", "without bundle"])
def test_verify_with_the_default_policy_pinned_refuses_the_loosened_report_naming_each_member(
    with_bundle: bool, loosened: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _write(tmp_path, "policy.json", {})
    bundle = ["--bundle", str(MIXED / "bundle.json")] if with_bundle else []
    rc, out, err = _verify(capsys, loosened, *bundle, "--config", policy)
    assert rc == 1
    assert out == ""
    assert err.splitlines()[0] == (
        f"evidence-rank: {loosened}: policy.config_mismatch at '/config/min_lineages': "
        "the report was not ranked with the pinned policy: min_lineages is 1 in the report, 2 in the pinned policy; "
        "threshold is 0 in the report, "
        "40 in the pinned policy"
    )


@pytest.mark.parametrize("with_bundle", [True, False], ids=["with bundle", "without bundle"])
def test_verify_passes_a_report_ranked_with_the_pinned_config(
    with_bundle: bool, loosened: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _write(tmp_path, "policy.json", LOOSE)
    bundle = ["--bundle", str(MIXED / "bundle.json")] if with_bundle else []
    rc, out, _ = _verify(capsys, loosened, *bundle, "--config", policy)
    assert rc == 0
    assert out.rstrip().endswith(f"; ranked with the pinned config {policy}")


def test_verify_refuses_a_forged_report_as_tampered_before_it_discusses_its_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _loosened_report()
    report["run"] = "run-elsewhere"
    forged = _write(tmp_path, "report.json", seal(report))
    policy = _write(tmp_path, "policy.json", {})
    rc, _, err = _verify(capsys, forged, "--bundle", str(MIXED / "bundle.json"), "--config", policy)
    assert rc == 4
    assert ".json: report.tampered at '/run'" in err


def test_verify_with_a_pinned_config_outside_spec_2_is_a_usage_error(
    loosened: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _write(tmp_path, "policy.json", {"threshold": 0, "lenient": True})
    rc, _, err = _verify(capsys, loosened, "--config", policy)
    assert rc == 2
    assert f"evidence-rank: {policy}: config.invalid at '/lenient': 'lenient' is not a config member" in err
