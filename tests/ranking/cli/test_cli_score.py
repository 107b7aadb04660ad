"""The main job as a user runs it: score, validate, verify, seal and schema,
and every exit code they can give."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import structlog
from structlog.testing import capture_logs

from curator_io import canon, parse_json, seal
from ranking.cli import main
from ranking.running.outputs import write_file
from tests.conftest import FIXTURES, PARITY, REPO, visible_files

EXAMPLE = FIXTURES / "example.json"
NO_OP = PARITY / "005-no-op-all-below-threshold"
BROKEN_SEAL = PARITY / "087-input-frozen-digest-mismatch-random" / "bundle.json"


def test_score_writes_both_reports_as_canonical_bytes_and_prints_a_table(tmp_path: Path, capsys) -> None:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path)]) == 0
    report = parse_json((tmp_path / "report.json").read_bytes())
    assert canon(report) == (tmp_path / "report.json").read_bytes()
    assert report["selected"] == ["p-make-test"]
    assert parse_json((tmp_path / "validation.json").read_bytes())["digest"] == report["validation_digest"]
    out = capsys.readouterr().out
    assert "p-make-test    selected        81  rank.selected" in out
    assert "outcome: selected" in out


def test_a_no_op_report_is_a_success(tmp_path: Path, capsys) -> None:
    argv = ["score", str(NO_OP / "bundle.json"), "--config", str(NO_OP / "config.json"), "--out-dir", str(tmp_path)]
    assert main(argv) == 0
    assert (tmp_path / "report.json").read_bytes() == (NO_OP / "expected.report.json").read_bytes()
    assert parse_json((tmp_path / "report.json").read_bytes())["outcome"] == "no_op"


def test_an_input_error_exits_3_with_error_json_and_removes_stale_reports(tmp_path: Path, capsys) -> None:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path)]) == 0
    assert main(["score", str(BROKEN_SEAL), "--out-dir", str(tmp_path)]) == 3
    assert visible_files(tmp_path) == ["error.json"]
    error = json.loads((tmp_path / "error.json").read_bytes())
    assert error["code"] == "input.frozen_digest_mismatch"
    assert error["pointer"] == "/frozen/digest"
    err = capsys.readouterr().err
    assert f"evidence-rank: {BROKEN_SEAL}: input.frozen_digest_mismatch at '/frozen/digest'" in err
    assert "Traceback" not in err
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path)]) == 0
    assert visible_files(tmp_path) == ["report.json", "validation.json"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", "no-such-bundle.json"], "usage.unreadable"),
        (["score", str(EXAMPLE), "--config", "no-such-config.json"], "usage.unreadable"),
    ],
)
def test_an_unreadable_file_is_a_usage_error(argv: list[str], message: str, tmp_path: Path, capsys) -> None:
    assert main([*argv, "--out-dir", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "report.json").exists()


def test_a_config_out_of_range_is_a_usage_error(tmp_path: Path, capsys) -> None:
    config = tmp_path / "config.json"
    config.write_text('{"max_selected": 6}')
    assert main(["score", str(EXAMPLE), "--config", str(config), "--out-dir", str(tmp_path / "out")]) == 2
    assert f"evidence-rank: {config}: config.invalid at '/max_selected'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # refused before the output folder is touched


def test_bad_arguments_exit_2() -> None:
    with pytest.raises(SystemExit) as caught:
        main(["score"])
    assert caught.value.code == 2


def test_score_against_a_tampered_validation_report_exits_4(tmp_path: Path, capsys) -> None:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path / "a")]) == 0
    validation = tmp_path / "a" / "validation.json"
    assert main(["score", str(EXAMPLE), "--validation", str(validation), "--out-dir", str(tmp_path / "b")]) == 0
    doc = parse_json(validation.read_bytes())
    doc["proposals"][2]["validation"] = "accepted"
    validation.write_bytes(canon(seal(doc)))
    assert main(["score", str(EXAMPLE), "--validation", str(validation), "--out-dir", str(tmp_path / "c")]) == 4
    assert "validation.tampered at '/proposals/2/validation'" in capsys.readouterr().err
    assert visible_files(tmp_path / "c") == ["error.json"]


def test_validate_prints_the_validation_report_alone(capsys) -> None:
    assert main(["validate", str(EXAMPLE)]) == 0
    report = parse_json(capsys.readouterr().out.strip().encode())
    assert report["schema"] == "evidence-validation-v1"
    assert [p["validation"] for p in report["proposals"]] == ["accepted", "rejected", "deferred"]


def test_verify_accepts_a_true_report_and_refuses_an_edited_one(tmp_path: Path, capsys) -> None:
    main(["score", str(EXAMPLE), "--out-dir", str(tmp_path)])
    report_path = str(tmp_path / "report.json")
    assert main(["verify", report_path]) == 0
    assert main(["verify", report_path, "--bundle", str(EXAMPLE)]) == 0
    doc = parse_json((tmp_path / "report.json").read_bytes())
    doc["proposals"][0]["rationale"] = "edited"
    (tmp_path / "report.json").write_bytes(canon(seal(doc)))
    assert main(["verify", report_path]) == 0  # every invariant still holds ...
    assert main(["verify", report_path, "--bundle", str(EXAMPLE)]) == 4  # ... but the replay differs
    assert "report.tampered at '/proposals/0/rationale'" in capsys.readouterr().err


def test_seal_then_score_on_a_hand_edited_bundle(tmp_path: Path, capsys) -> None:
    bundle = tmp_path / "bundle.json"
    shutil.copy(EXAMPLE, bundle)
    doc = parse_json(bundle.read_bytes())
    doc["proposals"][0]["confidence"] = 0.95
    bundle.write_bytes(canon(doc))
    assert main(["score", str(bundle), "--out-dir", str(tmp_path / "o1")]) == 3
    assert main(["seal", "--check", str(bundle)]) == 1
    assert "unsealed: /frozen/digest" in capsys.readouterr().out
    assert main(["seal", str(bundle)]) == 0
    assert main(["seal", "--check", str(bundle)]) == 0
    assert main(["score", str(bundle), "--out-dir", str(tmp_path / "o2")]) == 0
    report = parse_json((tmp_path / "o2" / "report.json").read_bytes())
    assert report["proposals"][0]["score"]["confidence"] == 9.5


def test_schema_prints_each_published_schema(capsys) -> None:
    for name, title in [
        ("bundle", "BundleModel"),
        ("validation", "ValidationReportModel"),
        ("report", "RankingReportModel"),
    ]:
        assert main(["schema", name]) == 0
        assert json.loads(capsys.readouterr().out)["title"] == title


def test_one_debug_event_per_decision(tmp_path: Path, monkeypatch) -> None:
    # Keep capture_logs' processors; only open the level to debug.
    monkeypatch.setattr(
        "ranking.cli.configure_logging",
        lambda fmt, verbosity: structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG)),
    )
    with capture_logs() as logs:
        main(["-vv", "score", str(EXAMPLE), "--out-dir", str(tmp_path)])
    decisions = [e for e in logs if e["event"] == "decision"]
    assert [(e["proposal"], e["disposition"], e["codes"]) for e in decisions] == [
        ("p-make-test", "selected", ["rank.selected"]),
        ("p-ruff-format", "rejected", ["closure.stale_instruction", "closure.stale_memory"]),
        ("p-sleep-flaky", "deferred", ["support.insufficient_lineages"]),
    ]


def test_logs_go_to_stderr_and_never_mix_with_stdout(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "-vv", "--log-format", "json", "validate", str(EXAMPLE)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0
    assert parse_json(done.stdout.strip().encode())["schema"] == "evidence-validation-v1"
    for line in done.stderr.splitlines():
        json.loads(line)


def test_an_atomic_write_that_fails_leaves_the_old_file_whole(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "report.json"
    write_file(target, b"old")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(Exception, match="No space left"):
        write_file(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


MALFORMED = PARITY / "076-input-malformed-not-json" / "bundle.json"


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", str(MALFORMED)],
        ["seal", str(MALFORMED)],
        ["verify", str(MALFORMED)],
        ["verify", "{report}", "--bundle", str(MALFORMED)],
        ["apply", str(MALFORMED), "{report}"],
        ["explain", str(MALFORMED), "p-make-test"],
    ],
)
def test_every_command_refuses_a_document_that_is_not_json_with_exit_3(argv: list[str], tmp_path: Path, capsys) -> None:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path)]) == 0
    argv = [a.replace("{report}", str(tmp_path / "report.json")) for a in argv]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "input.malformed_json" in err and "Traceback" not in err


def test_an_unknown_schema_name_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as caught:
        main(["schema", "bundles"])
    assert caught.value.code == 2


def test_score_marks_and_counts_the_edits_that_resemble_an_instruction_under_another_key(
    tmp_path: Path, capsys
) -> None:
    from tests.curator_scenario import scenario

    bundle = tmp_path / "bundle.json"
    bundle.write_bytes(scenario().canonical)
    assert main(["score", str(bundle), "--out-dir", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "p-deps         selected        86  rank.selected · resembles deps.setup" in lines
    assert "p-lint         selected        86  rank.selected" in lines
    assert lines[-1] == (
        "look-alikes: 2 selected edits (p-deps, p-test-runner) resemble an instruction under another key; "
        "evidence-rank explain REPORT ID --bundle BUNDLE says which"
    )
    assert main(["score", str(bundle), "--out-dir", str(tmp_path / "out"), "--summary"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("look-alikes: 2 selected edits")


def test_score_prints_no_look_alike_line_when_there_is_none(tmp_path: Path, capsys) -> None:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path)]) == 0
    assert "look-alike" not in capsys.readouterr().out
