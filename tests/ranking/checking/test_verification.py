"""SPEC §7: each invariant catches the corruption it guards against; replay
catches any single-value change, resealed or not."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator_io import InvariantError, TamperError, canon, load_bundle, parse_json, seal
from curator_io.config import DEFAULT_CONFIG
from curator_io.sealing import seal_bundle
from ranking.checking.verification import INVARIANTS, check_report, check_validation, replay_report
from tests.conftest import PARITY, REPO, expected_report
from validator import proposals_of, validate

LIMIT_CASE = PARITY / "074-rank-limit-more-than-5-survivors"
CONFLICT_CASE = PARITY / "069-rank-conflict-same-key-different-text"
DUPLICATE_CASE = PARITY / "068-rank-duplicate-different-rationale"


def entry(report: dict[str, Any], pid: str) -> dict[str, Any]:
    return next(p for p in report["proposals"] if p["id"] == pid)


def assert_invariant(report: dict[str, Any], name: str, **kwargs: Any) -> InvariantError:
    with pytest.raises(InvariantError) as caught:
        check_report(report, **kwargs)
    assert caught.value.code == f"invariant.{name}"
    assert caught.value.exit_code == 4
    return caught.value


def test_every_parity_report_satisfies_every_invariant() -> None:
    for case in sorted(PARITY.iterdir()):
        if (case / "expected.report.json").exists():
            bundle = load_bundle((case / "bundle.json").read_bytes())
            check_report(expected_report(case), proposals=proposals_of(bundle))


def test_an_edited_byte_without_resealing_breaks_sealed() -> None:
    report = expected_report(LIMIT_CASE)
    report["run"] = report["run"] + "x"
    err = assert_invariant(report, "sealed")
    assert err.pointer == "/digest"


def test_a_resealed_report_with_a_wrong_type_breaks_schema() -> None:
    report = expected_report(LIMIT_CASE)
    report["outcome"] = "maybe"
    err = assert_invariant(seal(report), "schema")
    assert err.pointer == "/outcome"


def test_a_dropped_proposal_breaks_partition() -> None:
    report = expected_report(LIMIT_CASE)
    report["proposals"] = [p for p in report["proposals"] if p["disposition"] not in ("unselected", "superseded")][1:]
    err = assert_invariant(seal(report), "partition")
    assert "counts" in err.message


def test_a_flipped_disposition_breaks_partition() -> None:
    report = expected_report(LIMIT_CASE)
    entry(report, "p-env-59")["disposition"] = "selected"
    err = assert_invariant(seal(report), "partition")
    assert err.pointer == "/counts/selected"


def test_a_changed_component_breaks_components() -> None:
    report = expected_report(LIMIT_CASE)
    score = entry(report, "p:build_zone-9")["score"]
    score["recurrence"] = score["recurrence"] - 10
    err = assert_invariant(seal(report), "components")
    assert "p:build_zone-9" in err.message and "recurrence" in err.message


def test_a_final_that_is_not_the_sum_breaks_components() -> None:
    report = expected_report(LIMIT_CASE)
    entry(report, "p:build_zone-9")["score"]["final"] += 1
    err = assert_invariant(seal(report), "components")
    assert err.pointer.endswith("/score/final")


def test_a_raised_threshold_breaks_threshold() -> None:
    report = expected_report(LIMIT_CASE)
    report["config"]["threshold"] = 99
    err = assert_invariant(seal(report), "threshold")
    assert "ranked" in err.message


def test_a_reordered_ranking_breaks_order() -> None:
    report = expected_report(LIMIT_CASE)
    report["ranking"][0], report["ranking"][1] = report["ranking"][1], report["ranking"][0]
    err = assert_invariant(seal(report), "order")
    assert err.pointer == "/ranking/1"


def test_a_rejected_proposal_given_a_rank_breaks_order_and_does_not_crash() -> None:
    report = expected_report(PARITY / "002-mixed-dispositions")
    entry(report, "p_retry-build-37")["rank"] = len(report["ranking"]) + 1
    report["ranking"].append("p_retry-build-37")
    report["counts"]["eligible"] += 1
    err = assert_invariant(seal(report), "order")
    assert err.message.endswith("proposal p_retry-build-37 is ranked without a score")
    assert err.pointer == "/ranking/1"


def test_a_sixth_selected_proposal_breaks_limit() -> None:
    report = expected_report(LIMIT_CASE)
    entry(report, "p-env-59").update(disposition="selected", reasons=[{"code": "rank.selected", "subject": None}])
    report["selected"] = report["selected"] + ["p-env-59"]
    report["counts"]["selected"] += 1
    report["counts"]["unselected"] -= 1
    err = assert_invariant(seal(report), "schema")  # the schema itself caps selected at five
    assert err.pointer == "/selected"
    report["config"]["max_selected"] = 4
    report["selected"] = report["selected"][:5]
    entry(report, "p-env-59").update(disposition="unselected", reasons=[{"code": "rank.limit", "subject": None}])
    report["counts"]["selected"] -= 1
    report["counts"]["unselected"] += 1
    err = assert_invariant(seal(report), "limit")
    assert "max_selected is 4" in err.message


def test_selecting_a_later_survivor_instead_of_an_earlier_one_breaks_selection() -> None:
    report = expected_report(LIMIT_CASE)
    entry(report, "p:schema-49")["disposition"] = "unselected"
    entry(report, "p-env-59")["disposition"] = "selected"
    report["selected"] = [p for p in report["selected"] if p != "p:schema-49"] + ["p-env-59"]
    err = assert_invariant(seal(report), "selection")
    assert "first survivors" in err.message


def test_selecting_two_proposals_with_one_fingerprint_breaks_unique() -> None:
    report = expected_report(DUPLICATE_CASE)
    dup = entry(report, "p-hook-make-10")
    dup.update(disposition="selected", superseded_by=None, reasons=[{"code": "rank.selected", "subject": None}])
    report["selected"] = ["p.pytest_import-31", "p-hook-make-10"]
    report["counts"]["selected"] += 1
    report["counts"]["superseded"] -= 1
    err = assert_invariant(seal(report), "unique")
    assert "p-hook-make-10" in err.message


def test_selecting_two_proposals_that_conflict_breaks_conflict_free() -> None:
    report = expected_report(CONFLICT_CASE)
    loser = entry(report, "p_retry-19")
    loser.update(disposition="selected", superseded_by=None, reasons=[{"code": "rank.selected", "subject": None}])
    report["selected"] = ["p/seed-9", "p_retry-19", "p/modulealpha-29"]
    report["counts"]["selected"] += 1
    report["counts"]["superseded"] -= 1
    resealed = seal(report)
    check_report(resealed)  # the report alone does not carry the operations ...
    bundle = load_bundle((CONFLICT_CASE / "bundle.json").read_bytes())
    err = assert_invariant(resealed, "conflict_free", proposals=proposals_of(bundle))  # ... the bundle does
    assert "p/seed-9" in err.message and "p_retry-19" in err.message


def test_every_invariant_has_a_test() -> None:
    names = {name.removeprefix("test_") for name in globals() if name.startswith("test_")}
    for invariant in INVARIANTS:
        assert any(f"breaks_{invariant}" in n for n in names), invariant


def _leaves(value: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, (*path, i))]
    return [path]


def _mutate(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    return "null-was-here"


REPLAY_BUNDLE = load_bundle((LIMIT_CASE / "bundle.json").read_bytes())
REPLAY_REPORT = expected_report(LIMIT_CASE)
LEAVES = _leaves(REPLAY_REPORT)


@settings(max_examples=150, deadline=None)
@given(index=st.integers(0, len(LEAVES) - 1), reseal=st.booleans())
def test_any_single_value_mutation_is_caught_by_replay(index: int, reseal: bool) -> None:
    report = copy.deepcopy(REPLAY_REPORT)
    *parents, last = LEAVES[index]
    node = report
    for token in parents:
        node = node[token]
    node[last] = _mutate(node[last])
    if reseal and last != "digest":
        report = seal(report)
    with pytest.raises(TamperError) as caught:
        replay_report(REPLAY_BUNDLE, report)
    assert caught.value.code == "report.tampered"


def test_replay_names_the_first_differing_pointer() -> None:
    report = copy.deepcopy(REPLAY_REPORT)
    entry(report, "p_wheel-39")["rationale"] = "edited"
    with pytest.raises(TamperError, match=r"/proposals/\d+/rationale"):
        replay_report(REPLAY_BUNDLE, seal(report))


def test_a_report_scored_in_a_fresh_process_from_shuffled_arrays_replays(tmp_path) -> None:
    doc = parse_json((LIMIT_CASE / "bundle.json").read_bytes())
    rng = random.Random(20261129)
    for name in ("instructions", "materializations", "traces", "evidence", "lessons", "proposals"):
        rng.shuffle(doc[name])
    rng.shuffle(doc["memory"]["instructions"])
    shuffled = tmp_path / "shuffled.json"
    shuffled.write_bytes(canon(seal_bundle(doc)))
    # A fresh process (its own hash seed, nothing cached) ranks the bundle: the pipeline, not the CLI.
    score = "import sys; from curator_io import load_bundle; from ranking.pipeline import rank; "
    score += "sys.stdout.buffer.write(rank(load_bundle(open(sys.argv[1], 'rb').read())).canonical)"
    done = subprocess.run([sys.executable, "-c", score, str(shuffled)], cwd=REPO, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    report = parse_json(done.stdout)
    replay_report(load_bundle(shuffled.read_bytes()), report)
    # Only the digests over the bundle's bytes follow the shuffle.
    original = expected_report(LIMIT_CASE)
    for r in (report, original):
        for member in ("input_digest", "validation_digest", "digest"):
            r.pop(member)
    assert report == original


def test_validation_recomputation_refuses_an_unsealed_or_edited_report() -> None:
    bundle = load_bundle((LIMIT_CASE / "bundle.json").read_bytes())
    given = json.loads((LIMIT_CASE / "expected.validation.json").read_bytes())
    assert check_validation(bundle, given, config=DEFAULT_CONFIG).report == given
    edited = copy.deepcopy(given)
    edited["proposals"][0]["validation"] = (
        "rejected" if edited["proposals"][0]["validation"] != "rejected" else "accepted"
    )
    with pytest.raises(TamperError, match="not sealed") as caught:
        check_validation(bundle, edited, config=DEFAULT_CONFIG)
    assert caught.value.code == "validation.tampered"
    with pytest.raises(TamperError, match=r"differs .* at /proposals/0/validation") as caught:
        check_validation(bundle, seal(edited), config=DEFAULT_CONFIG)
    assert caught.value.code == "validation.tampered"
    assert validate(bundle, config=DEFAULT_CONFIG).report == given
