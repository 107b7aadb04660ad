"""Every input the fuzzer found that broke the property, by name, with what it must do now.

Minimized by hand from the campaign's findings (docs/fuzzing.md, "Findings").
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from curator_io import InvariantError, TamperError, canon, load_bundle, parse_json, seal
from curator_io.config import DEFAULT_CONFIG
from curator_io.sealing import seal_bundle, unsealed_places
from ranking.checking.diffing import differences
from ranking.checking.verification import check_report, check_validation, replay_report
from ranking.cli import main
from tests.conftest import FIXTURES, PARITY, expected_report, resolve_pointer

LIMIT_CASE = PARITY / "074-rank-limit-more-than-5-survivors"

#: Documents that are not bundles but that `seal` is given all the same.
NOT_QUITE_BUNDLES = {
    "memory is a number": {"memory": 5},
    "no memory": {"evidence": [{"id": "ev-1"}]},
    "memory is a list of pairs": {"memory": [["instructions", []]]},
    "instructions are not a list": {"memory": {"instructions": 5}},
}


@pytest.mark.parametrize("doc", NOT_QUITE_BUNDLES.values(), ids=NOT_QUITE_BUNDLES.keys())
def test_sealing_a_document_without_a_memory_object_seals_what_is_there(doc: dict[str, Any]) -> None:
    sealed = seal_bundle(doc)
    assert unsealed_places(sealed) == []
    assert sealed["memory"] == doc["memory"] if "memory" in doc else "memory" not in sealed


def test_seal_then_score_a_document_whose_memory_is_a_number(tmp_path: Path, capsys) -> None:
    path = tmp_path / "b.json"
    path.write_text('{"memory": 5}')
    assert main(["seal", str(path)]) == 0
    assert capsys.readouterr() == (f"{path}: sealed 1 place\n", "")
    assert main(["score", str(path), "--out-dir", str(tmp_path / "out")]) == 3
    assert capsys.readouterr().err.startswith(f"evidence-rank: {path}: input.schema at '/schema'")


def test_a_difference_in_length_points_at_the_shorter_array_not_past_its_end() -> None:
    assert differences({"a": [1]}, {"a": [1, 2]}) == ["/a"]
    assert differences({"a": [1, 2]}, {"a": [1]}) == ["/a/1"]


def test_a_report_short_of_a_selected_id_is_tampered_at_the_selected_array() -> None:
    bundle = load_bundle((LIMIT_CASE / "bundle.json").read_bytes())
    report = json.loads((LIMIT_CASE / "expected.report.json").read_bytes())
    report["selected"].pop()
    with pytest.raises(TamperError, match="differs from the replay at /selected") as caught:
        replay_report(bundle, seal(report))
    assert caught.value.code == "report.tampered"
    assert caught.value.pointer == "/selected"
    resolve_pointer(report, caught.value.pointer)


def test_a_validation_report_short_of_a_proposal_is_tampered_at_its_proposals() -> None:
    bundle = load_bundle((LIMIT_CASE / "bundle.json").read_bytes())
    given = parse_json((LIMIT_CASE / "expected.validation.json").read_bytes())
    short = copy.deepcopy(given)
    short["proposals"].pop()
    with pytest.raises(TamperError) as caught:
        check_validation(bundle, seal(short), config=DEFAULT_CONFIG)
    assert (caught.value.code, caught.value.pointer) == ("validation.tampered", "/proposals")
    resolve_pointer(short, caught.value.pointer)


def test_an_unknown_config_member_with_a_line_break_is_named_on_one_line(tmp_path: Path, capsys) -> None:
    config = tmp_path / "config.json"
    config.write_text('{"th\\reshold": 39.99}')  # a carriage return inside the name
    assert main(["validate", str(FIXTURES / "example.json"), "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err == f"evidence-rank: {config}: config.invalid at '/th\\reshold': 'th\\reshold' is not a config member\n"


def test_a_scored_proposal_without_its_support_summary_breaks_components(tmp_path: Path, capsys) -> None:
    report = json.loads((PARITY / "001-basic-accepted-selected" / "expected.report.json").read_bytes())
    i = next(i for i, e in enumerate(report["proposals"]) if e["score"] is not None)
    report["proposals"][i]["support"] = None
    report = seal(report)
    with pytest.raises(InvariantError) as caught:
        check_report(report)
    assert (caught.value.code, caught.value.pointer) == ("invariant.components", f"/proposals/{i}/support")
    path = tmp_path / "report.json"
    path.write_bytes(canon(report))
    assert main(["verify", str(path)]) == 4
    assert f".json: invariant.components at '/proposals/{i}/support': " in capsys.readouterr().err


def _parity_report(case: str) -> dict[str, Any]:
    return expected_report(PARITY / case)


@pytest.mark.parametrize(("member", "value"), [("threshold", 101), ("max_selected", 6), ("min_lineages", 0)])
def test_a_report_whose_config_is_outside_spec_2_breaks_schema_at_that_member(member: str, value: int) -> None:
    report = _parity_report("001-basic-accepted-selected")
    report["config"][member] = value
    with pytest.raises(InvariantError) as caught:
        check_report(seal(report))
    assert (caught.value.code, caught.value.pointer) == ("invariant.schema", f"/config/{member}")
    resolve_pointer(report, caught.value.pointer)


def test_an_unranked_proposal_naming_a_superseder_breaks_selection(tmp_path: Path, capsys) -> None:
    report = _parity_report("002-mixed-dispositions")
    i, e = next((i, e) for i, e in enumerate(report["proposals"]) if e["rank"] is None)
    e["superseded_by"] = "complete"  # no such proposal: explain looked it up and died with a KeyError
    report = seal(report)
    with pytest.raises(InvariantError) as caught:
        check_report(report)
    assert (caught.value.code, caught.value.pointer) == ("invariant.selection", f"/proposals/{i}/superseded_by")
    path = tmp_path / "report.json"
    path.write_bytes(canon(report))
    assert main(["explain", str(path), e["id"]]) == 4
    assert f".json: invariant.selection at '/proposals/{i}/superseded_by': " in capsys.readouterr().err


def test_a_ranked_proposal_without_support_earliest_breaks_order() -> None:
    report = _parity_report("001-basic-accepted-selected")
    entry = next(e for e in report["proposals"] if e["id"] == report["ranking"][0])
    entry["support"]["earliest"] = None  # instant_key(None) was a TypeError
    with pytest.raises(InvariantError) as caught:
        check_report(seal(report))
    assert (caught.value.code, caught.value.pointer) == ("invariant.order", "/ranking/0")


def test_verify_pinned_to_another_config_is_a_policy_finding_that_the_property_allows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the campaign on the merged code: verify --config exits 1 (policy.config_mismatch),
    which the harness had only allowed gate and seal --check."""
    from fuzz.prop import CODES, exit_code_of

    report = LIMIT_CASE / "expected.report.json"
    policy = tmp_path / "policy.json"
    policy.write_text('{"threshold": 39.99}')
    assert main(["verify", str(report), "--config", str(policy)]) == 1
    line, *hint = capsys.readouterr().err.splitlines()
    assert line.startswith(f"evidence-rank: {report}: policy.config_mismatch at '/config/threshold': ")
    assert all(h.startswith("hint: ") for h in hint)
    assert "policy.config_mismatch" in CODES and exit_code_of("policy.config_mismatch") == 1
    resolve_pointer(parse_json(report.read_bytes()), "/config/threshold")
