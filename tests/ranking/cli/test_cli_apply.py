"""``evidence-rank apply BUNDLE REPORT``, driven as a user would.

The bundles and reports are the parity corpus's (tests/parity/cases):
``expected.apply.json`` is the reference's memory for each case, as canonical bytes.
"""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from curator_io import canon, seal
from ranking.checking.apply import reviewable
from ranking.cli import main
from tests.conftest import FIXTURES, PARITY, REPO, run_main

#: Add only, replace, add and remove, two identical ops, and a no_op.
APPLY_CASES = (
    "001-basic-accepted-selected",
    "003-empty-proposals",
    "028-closure-stale-instruction",
    "037-delta-replace-same-text-other-scope",
    "069-rank-conflict-same-key-different-text",
    "071-rank-identical-op-is-not-a-conflict",
)


def _case(name: str) -> Path:
    return PARITY / name


def _apply(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return run_main(capsys, "apply", *argv)


@pytest.mark.parametrize("name", APPLY_CASES)
def test_apply_canonical_prints_exactly_the_reference_memory(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    case = _case(name)
    rc, out, err = _apply(capsys, str(case / "bundle.json"), str(case / "expected.report.json"), "--canonical")
    assert rc == 0
    assert out.encode("utf-8") == (case / "expected.apply.json").read_bytes()
    assert "evidence-rank:" not in err


@pytest.mark.parametrize("name", APPLY_CASES)
def test_apply_prints_the_reference_memory_for_review_one_member_a_line_in_spec_order(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    case = _case(name)
    rc, out, _ = _apply(capsys, str(case / "bundle.json"), str(case / "expected.report.json"))
    assert rc == 0
    expected = json.loads((case / "expected.apply.json").read_bytes())
    assert canon(json.loads(out)) == canon(expected)  # the same value
    assert out == json.dumps(_spec_ordered(expected), indent=2, ensure_ascii=False) + "\n"


def _spec_ordered(memory: dict[str, Any]) -> dict[str, Any]:
    """SPEC §1's member order: the memory's version first; an instruction's key, text, scope, origin, digest."""
    order = ("key", "text", "scope", "origin", "digest")
    scope = ("level", "repository", "path")
    instructions = [
        {k: {s: i[k][s] for s in scope if s in i[k]} if k == "scope" else i[k] for k in order if k in i}
        for i in memory["instructions"]
    ]
    return {"version": memory["version"], "instructions": instructions}


def test_a_change_to_memory_shows_in_a_diff_as_the_instructions_changed_and_the_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 069 replaces one instruction and adds another (SPEC §8: the version goes up by one).
    case = _case("069-rank-conflict-same-key-different-text")
    base = tmp_path / "memory.json"
    base.write_bytes(reviewable(json.loads((case / "bundle.json").read_bytes())["memory"]))
    old = base.read_text().splitlines()
    rc, _, _ = _apply(capsys, str(case / "bundle.json"), str(case / "expected.report.json"), "--out", str(base))
    assert rc == 0
    diff = list(difflib.unified_diff(old, base.read_text().splitlines(), lineterm="", n=0))[2:]
    removed = [line for line in diff if line.startswith("-")]
    added = [line for line in diff if line.startswith("+")]
    # Removed: the old version, and the replaced instruction's old text and digest; nothing else.
    assert [line.split(":")[0].strip("- ") for line in removed] == ['"version"', '"text"', '"digest"']
    # Added: the new version, text and digest, and the added instruction's block.
    added_keys = [line for line in added if '"key"' in line]
    assert len(added_keys) == 1 and len(added) == 3 + 10


def test_apply_writes_the_memory_atomically_to_out_and_nothing_to_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = _case("069-rank-conflict-same-key-different-text")
    target = tmp_path / "nested" / "memory.json"
    rc, out, _ = _apply(capsys, str(case / "bundle.json"), str(case / "expected.report.json"), "--out", str(target))
    assert rc == 0
    assert out == ""
    assert canon(json.loads(target.read_bytes())) == (case / "expected.apply.json").read_bytes()
    assert [p.name for p in target.parent.iterdir()] == ["memory.json"]  # no temporary file left behind


def test_apply_runs_as_a_module_from_a_shell() -> None:
    case = _case("001-basic-accepted-selected")
    proc = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "apply", str(case / "bundle.json"), str(case / "expected.report.json")],
        capture_output=True,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert canon(json.loads(proc.stdout)) == (case / "expected.apply.json").read_bytes()


def test_apply_refuses_a_report_from_another_bundle_as_tampered(capsys: pytest.CaptureFixture[str]) -> None:
    bundle = _case("001-basic-accepted-selected") / "bundle.json"
    report = _case("002-mixed-dispositions") / "expected.report.json"
    rc, out, err = _apply(capsys, str(bundle), str(report))
    assert rc == 4
    assert out == ""
    assert ".json: report.tampered at '/input_digest': the report is not this bundle's" in err


def test_apply_refuses_an_edited_report_even_when_it_is_resealed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = _case("069-rank-conflict-same-key-different-text")
    report = json.loads((case / "expected.report.json").read_bytes())
    report["selected"] = report["selected"][:1]  # drop a selected proposal, then reseal
    forged = tmp_path / "report.json"
    forged.write_bytes(canon(seal({k: v for k, v in report.items() if k != "digest"})))
    rc, out, err = _apply(capsys, str(case / "bundle.json"), str(forged))
    assert rc == 4
    assert out == ""
    assert "report.tampered" in err and "differs from the replay" in err


def test_apply_refuses_a_report_that_is_not_an_object_as_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = _case("001-basic-accepted-selected")
    report = tmp_path / "report.json"
    report.write_bytes(b"[]")
    rc, _, err = _apply(capsys, str(case / "bundle.json"), str(report))
    assert rc == 3
    assert f"evidence-rank: {report}: input.schema at '': this is a JSON array, not a ranking report" in err


def test_apply_refuses_a_report_that_is_not_json_as_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = _case("001-basic-accepted-selected")
    report = tmp_path / "report.json"
    report.write_bytes(b'{"schema": ')
    rc, _, err = _apply(capsys, str(case / "bundle.json"), str(report))
    assert rc == 3
    assert f"evidence-rank: {report}: input.malformed_json at '': " in err


def test_apply_refuses_a_malformed_bundle_with_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    bundle = _case("076-input-malformed-not-json") / "bundle.json"
    report = _case("001-basic-accepted-selected") / "expected.report.json"
    rc, out, err = _apply(capsys, str(bundle), str(report))
    assert rc == 3
    assert out == ""
    assert f"evidence-rank: {bundle}: input.malformed_json at '': " in err


def test_apply_names_an_unreadable_file_as_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = _case("001-basic-accepted-selected")
    missing = tmp_path / "absent.json"
    rc, _, err = _apply(capsys, str(case / "bundle.json"), str(missing))
    assert rc == 2
    assert f"evidence-rank: usage.unreadable: cannot read {str(missing)!r}" in err


def test_apply_without_a_report_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["apply", str(_case("001-basic-accepted-selected") / "bundle.json")])
    assert caught.value.code == 2
    assert "the following arguments are required: REPORT" in capsys.readouterr().err


@pytest.mark.parametrize("depth", [400, 505])
def test_apply_prints_a_memory_nested_as_deep_as_spec_allows_for_review(
    depth: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from curator_io import BundleBuilder, Scope

    nested: Any = []
    for _ in range(depth):
        nested = [nested]
    b = BundleBuilder(memory_version=1, curator="c@1", frozen_at="2026-12-01T00:00:00Z")
    b.memory_instruction("ci.note", "Deploy on green.", scope=Scope(level="global"), members={"deep": nested})
    bundle = tmp_path / "bundle.json"
    bundle.write_bytes(b.build("run-deep").canonical)
    assert main(["score", str(bundle), "--out-dir", str(tmp_path / "out"), "-q"]) == 0
    report = str(tmp_path / "out" / "report.json")

    rc, out, err = _apply(capsys, str(bundle), report)
    assert (rc, err) == (0, "")
    assert main(["apply", str(bundle), report, "--canonical", "--out", str(tmp_path / "m.json")]) == 0
    assert canon(json.loads(out)) == (tmp_path / "m.json").read_bytes()


@pytest.mark.parametrize("swapped", ["report first", "the bundle twice"])
def test_apply_with_the_report_where_the_bundle_goes_hints_that_they_are_swapped(
    swapped: str, tmp_path: Path, capsys
) -> None:
    example = FIXTURES / "example.json"
    assert run_main(capsys, "score", example, "--out-dir", tmp_path / "out", "-q")[0] == 0
    report = tmp_path / "out" / "report.json"
    argv = (report, example) if swapped == "report first" else (example, example)

    code, _, err = run_main(capsys, "apply", *argv)

    assert code == 3
    assert err.splitlines()[-1] == (
        "hint: BUNDLE and REPORT swapped? A command that takes both takes the bundle first: "
        "evidence-rank apply BUNDLE REPORT"
    )
