"""Inputs and streams that once ended in a traceback: each ends in its exit code and
one line on stderr (issue: no input crashes any command)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from curator_io import canon, parse_json
from curator_io.sealing import seal_bundle
from ranking.cli import main
from tests.conftest import FIXTURES, REPO

EXAMPLE = FIXTURES / "example.json"
HUGE = "7" * 5000  # past Python's 4,300-digit limit for int()


def run_cli(*argv: str, env: dict[str, str] | None = None, **kwargs) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ranking.cli", *argv],
        cwd=REPO,
        capture_output=True,
        env={**os.environ, **(env or {})},
        **kwargs,
    )


def one_error_line(err: str, code: str) -> None:
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert lines and lines[0].startswith("evidence-rank: ") and code in lines[0], err
    assert all(line.startswith("hint: ") for line in lines[1:]), err


@pytest.fixture
def scored(tmp_path: Path) -> Path:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path / "out")]) == 0
    return tmp_path / "out"


@pytest.fixture
def huge(tmp_path: Path) -> Path:
    path = tmp_path / "huge.json"
    path.write_text(f'{{"version": {HUGE}, "instructions": []}}')
    return path


@pytest.mark.parametrize(
    ("argv", "code", "exit_code"),
    [
        (["score", "{huge}", "--out-dir", "{tmp}/o"], "input.malformed_json", 3),
        (["validate", "{huge}"], "input.malformed_json", 3),
        (["verify", "{huge}"], "input.malformed_json", 3),
        (["verify", "{report}", "--bundle", "{huge}"], "input.malformed_json", 3),
        (["explain", "{huge}", "p-make-test"], "input.malformed_json", 3),
        (["seal", "{huge}"], "input.malformed_json", 3),
        (["apply", "{huge}", "{report}"], "input.malformed_json", 3),
        (["score", str(EXAMPLE), "--config", "{huge}", "--out-dir", "{tmp}/o"], "config.invalid", 2),
        (["score", str(EXAMPLE), "--validation", "{huge}", "--out-dir", "{tmp}/o"], "input.malformed_json", 3),
        (
            ["gate", "--bundle", str(EXAMPLE), "--report", "{report}", "--memory-after", "{huge}", "--skip-base-check"],
            "input.malformed_json",
            3,
        ),
    ],
)
def test_an_integer_of_5000_digits_anywhere_is_refused_not_a_crash(
    argv: list[str], code: str, exit_code: int, huge: Path, scored: Path, tmp_path: Path, capsys
) -> None:
    argv = [a.format(huge=huge, report=scored / "report.json", tmp=tmp_path) for a in argv]
    assert main(argv) == exit_code
    one_error_line(capsys.readouterr().err, code)


def test_a_bundle_nested_512_levels_can_be_sealed_and_scored(tmp_path: Path, capsys) -> None:
    doc = parse_json(EXAMPLE.read_bytes())
    deep: list = []
    node = deep
    for _ in range(509):  # the document, run and deep itself make 512
        node.append([])
        node = node[0]
    doc["run"]["deep"] = deep
    path = tmp_path / "deep.json"
    path.write_bytes(canon(doc))
    assert main(["seal", str(path)]) == 0
    assert parse_json(path.read_bytes()) == seal_bundle(doc)
    assert main(["score", str(path), "--out-dir", str(tmp_path / "out")]) == 0
    node.append([])  # 513: refused, as SPEC §0 says
    path.write_bytes(canon(doc))
    assert main(["seal", str(path)]) == 3
    one_error_line(capsys.readouterr().err, "input.malformed_json")


@pytest.mark.parametrize("encoding", ["ascii", "cp1252"])
def test_a_stdout_that_cannot_encode_our_characters_gets_them_degraded(encoding: str, tmp_path: Path) -> None:
    score = run_cli("score", str(EXAMPLE), "--out-dir", str(tmp_path), env={"PYTHONIOENCODING": encoding})
    assert score.returncode == 0, score.stderr
    assert score.stderr == b""
    expected = "outcome: selected · selected 1 of 3" if encoding == "cp1252" else "outcome: selected - selected 1 of 3"
    assert expected in score.stdout.decode(encoding)
    explain = run_cli("explain", str(tmp_path / "report.json"), "p-make-test", env={"PYTHONIOENCODING": encoding})
    assert explain.returncode == 0, explain.stderr
    explain.stdout.decode(encoding)  # every byte is the stream's own encoding


def test_a_full_stdout_is_one_line_and_a_usage_exit_code(tmp_path: Path) -> None:
    with open("/dev/full", "wb") as full:
        argv = [sys.executable, "-m", "ranking.cli", "score", str(EXAMPLE), "--out-dir", str(tmp_path)]
        done = subprocess.run(argv, cwd=REPO, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert done.stderr.decode().strip().splitlines() == [
        "evidence-rank: usage.unwritable at '': cannot write to standard output: No space left on device"
    ]
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [
        "report.json",
        "validation.json",
    ]


@pytest.mark.parametrize("argv", [["schema", "report"], ["validate", str(EXAMPLE)]])
@pytest.mark.parametrize("how", ["closed before start", "closed after start"])
def test_a_closed_stdout_is_one_line_and_a_usage_exit_code(argv: list[str], how: str) -> None:
    if how == "closed before start":  # the shell's >&-: Python starts with no sys.stdout
        done = subprocess.run(
            f"{sys.executable} -m ranking.cli {' '.join(argv)} >&-", shell=True, cwd=REPO, stderr=subprocess.PIPE
        )
    else:
        code = "import os, sys; os.close(1); from ranking.cli import main; sys.exit(main())"
        done = subprocess.run([sys.executable, "-c", code, *argv], cwd=REPO, stderr=subprocess.PIPE)
    assert done.returncode == 2
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "usage.unwritable" in lines[0] and "standard output" in lines[0], lines


def test_a_reader_that_goes_away_is_not_an_error(tmp_path: Path) -> None:
    done = subprocess.run(
        f"{sys.executable} -m ranking.cli schema report | head -c 10",
        shell=True,
        cwd=REPO,
        capture_output=True,
    )
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "0", "1e400"])
def test_a_connect_timeout_that_is_not_a_finite_positive_number_is_a_usage_error(value: str, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["batch", str(EXAMPLE), "--out-dir", "x", "--engine", "dask", "--connect-timeout", value])
    assert caught.value.code == 2
    assert "--connect-timeout" in capsys.readouterr().err


def test_the_file_comes_first_in_an_error_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "b.json"
    path.write_bytes(b'{"schema": 1, "schema": 2}')
    assert main(["validate", str(path)]) == 3
    err = capsys.readouterr().err
    assert err.startswith(f"evidence-rank: {path}: input.malformed_json at '': duplicate member name 'schema'")
    assert json.loads(canon({"ok": True})) == {"ok": True}


def test_score_with_a_ledger_logs_nothing_at_the_default_level(tmp_path: Path) -> None:
    """The ledger imports structlog; unconfigured, structlog prints every level: it must stay quiet."""
    ledger = tmp_path / "l.db"
    done = run_cli("score", str(EXAMPLE), "--out-dir", str(tmp_path / "out"), "--ledger", str(ledger), "-q")
    assert done.returncode == 0
    assert done.stderr == b"" and done.stdout == b""
    verbose = run_cli("score", str(EXAMPLE), "--out-dir", str(tmp_path / "out"), "--ledger", str(ledger), "-q", "-vv")
    assert b'"event": "decision"' in verbose.stderr or b"decision" in verbose.stderr


def _address_space_of_a_gigabyte() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))  # a run that reads for ever fails fast, not the machine


@pytest.mark.parametrize(
    "argv",
    [
        ["score", str(EXAMPLE), "--out-dir", "{tmp}/o", "--config", "/dev/zero"],
        ["score", str(EXAMPLE), "--out-dir", "{tmp}/o", "--trust", "/dev/zero"],
        ["sign", str(EXAMPLE), "--key", "/dev/zero", "--out", "{tmp}/sig"],
        ["verify", "/dev/urandom"],
        ["apply", "/dev/zero", "/dev/zero", "--out", "{tmp}/m"],
        ["batch", "/dev/zero", "--out-dir", "{tmp}/o"],
    ],
    ids=["--config", "--trust", "sign --key", "verify REPORT", "apply BUNDLE", "batch PATH"],
)
def test_an_endless_device_as_an_input_file_is_one_unreadable_line(argv: list[str], tmp_path: Path) -> None:
    done = run_cli(
        *[a.format(tmp=tmp_path) for a in argv], preexec_fn=_address_space_of_a_gigabyte, timeout=60, check=False
    )
    assert done.returncode == 2, done.stderr[-500:]
    one_error_line(done.stderr.decode(), "usage.unreadable")
    assert "not a file" in done.stderr.decode()
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["o"])


def test_a_worker_count_past_a_c_int_is_a_usage_error_not_a_traceback(tmp_path: Path) -> None:
    done = run_cli("batch", str(EXAMPLE), "--out-dir", str(tmp_path / "o"), "--workers", "9" * 20, timeout=60)
    assert done.returncode == 2
    err = done.stderr.decode()
    assert "Traceback" not in err and "--workers: expected at most " in err


@pytest.mark.parametrize("workers", ["100000", str(2**31)])
def test_a_worker_count_no_machine_can_run_is_refused_before_anything_starts(workers: str) -> None:
    from ranking.cli import _UsageError, build_parser

    with pytest.raises(_UsageError, match="expected at most "):
        build_parser().parse_args(["batch", str(EXAMPLE), "--out-dir", "o", "--workers", workers])
