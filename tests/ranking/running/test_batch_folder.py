"""The batch folder's protocol (docs/batch.md): summary.json never contradicts the
folders beside it, after a re-run, a failure, a kill, or a concurrent run."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from filelock import FileLock

from ranking.cli import main
from ranking.running.outputs import LOCK_NAME
from tests.conftest import PARITY
from tests.ranking.running.batch_support import (
    EXAMPLE,
    assert_summary_agrees_with_the_folders,
    cli,
    example_line,
    leftovers,
    report_folders,
    write_bundles,
)


def test_a_rerun_with_fewer_bundles_removes_the_folders_only_the_earlier_run_wrote(tmp_path: Path) -> None:
    write_bundles(tmp_path / "in", 3)
    out = tmp_path / "out"
    assert main(["batch", str(tmp_path / "in"), "--out-dir", str(out)]) == 0
    (out / "reports" / "notes").mkdir()  # not a name the batch gives: not the batch's to remove
    (tmp_path / "in" / "b0001.json").unlink()
    (tmp_path / "in" / "b0002.json").unlink()

    assert main(["batch", str(tmp_path / "in"), "--out-dir", str(out)]) == 0

    summary = assert_summary_agrees_with_the_folders(out)
    assert summary["counts"]["bundles"] == 1
    assert len(report_folders(out)) == 1
    assert (out / "reports" / "notes").is_dir()


def test_a_bundle_that_changes_outcome_keeps_one_outcome_in_its_folder(tmp_path: Path) -> None:
    bundle = tmp_path / "in" / "bundle.json"
    bundle.parent.mkdir()
    out = tmp_path / "out"
    for data, code in ((EXAMPLE.read_bytes(), 0), (b"{", 3), (EXAMPLE.read_bytes(), 0)):
        bundle.write_bytes(data)
        assert main(["batch", str(bundle), "--out-dir", str(out)]) == code
        assert_summary_agrees_with_the_folders(out)


@pytest.mark.parametrize(
    ("failure", "code"),
    [
        (["{in}", "{tmp}/missing.jsonl"], 2),  # a PATH that does not exist
        (["{in}", "--config", "{tmp}/bad-config.json"], 2),  # a config that is refused
        (["{in}/gone.json"], 2),  # a file that cannot be read, after the folder was listed
    ],
)
def test_a_run_that_fails_leaves_no_summary_of_an_earlier_run(
    tmp_path: Path, failure: list[str], code: int, capsys
) -> None:
    write_bundles(tmp_path / "in", 2)
    out = tmp_path / "out"
    assert main(["batch", str(tmp_path / "in"), "--out-dir", str(out)]) == 0
    (tmp_path / "bad-config.json").write_text('{"threshold": 101}')
    (tmp_path / "in" / "gone.json").symlink_to("nowhere.json")
    argv = [a.format(tmp=tmp_path, **{"in": tmp_path / "in"}) for a in failure]

    assert main(["batch", *argv, "--out-dir", str(out)]) == code

    assert not (out / "summary.json").exists()
    assert "Traceback" not in capsys.readouterr().err


def test_leftovers_of_a_killed_run_are_swept_by_the_next(tmp_path: Path) -> None:
    write_bundles(tmp_path / "in", 2)
    out = tmp_path / "out"
    assert main(["batch", str(tmp_path / "in"), "--out-dir", str(out)]) == 0
    (out / ".summary.json.k1ll3d.tmp").write_bytes(b"half")
    for name in report_folders(out):
        for output in ("report.json", "validation.json", "error.json"):
            (out / "reports" / name / f".{output}.k1ll3d.tmp").write_bytes(b"half")

    assert main(["batch", str(tmp_path / "in"), "--out-dir", str(out)]) == 0

    assert leftovers(out) == []
    assert_summary_agrees_with_the_folders(out)


def test_a_batch_killed_at_random_instants_never_leaves_a_summary_that_contradicts_its_folders(
    tmp_path: Path,
) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    for case in sorted(PARITY.iterdir())[50:90]:  # scored and refused bundles
        shutil.copy(case / "bundle.json", cases / f"{case.name}.json")
    many = tmp_path / "many"
    write_bundles(many, 300)
    out = tmp_path / "out"
    rng = random.Random(14)
    # Runs alternate between inputs of different sizes and names, so each run replaces another's folders.
    runs = [[str(many), "--workers", "2"], [str(cases)], [str(many)]]
    for attempt in range(9):
        run = cli("batch", *runs[attempt % 3], "--out-dir", str(out))
        time.sleep(rng.uniform(0.2, 1.5))
        run.send_signal(signal.SIGKILL)
        run.wait()
        assert_summary_agrees_with_the_folders(out)
    assert cli("batch", *runs[1], "--out-dir", str(out)).wait() == 3
    summary = assert_summary_agrees_with_the_folders(out)
    assert summary["counts"]["bundles"] == 40
    assert leftovers(out) == []


def test_a_second_batch_into_the_folder_waits_its_turn(tmp_path: Path) -> None:
    write_bundles(tmp_path / "in", 2)
    out = tmp_path / "out"
    assert main(["batch", str(tmp_path / "in"), "--out-dir", str(out)]) == 0
    before = (out / "summary.json").read_bytes()
    with FileLock(out / LOCK_NAME):  # another run holds the folder
        run = cli("batch", str(EXAMPLE), "--out-dir", str(out))
        assert b"waiting for another run" in run.stderr.readline()
        assert (out / "summary.json").read_bytes() == before  # untouched while it waits
    _, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    assert assert_summary_agrees_with_the_folders(out)["counts"]["bundles"] == 1


def test_two_concurrent_batches_into_one_folder_leave_one_runs_whole_output(tmp_path: Path) -> None:
    streams = []
    for name, count in (("a", 40), ("b", 25)):
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(b"\n".join(example_line() for i in range(count)) + b"\n")
        streams.append(path)
    out = tmp_path / "out"
    for _ in range(3):
        runs = [cli("batch", str(s), "--workers", "2", "--out-dir", str(out)) for s in streams]
        assert [r.wait(timeout=120) for r in runs] == [0, 0]
        summary = assert_summary_agrees_with_the_folders(out)
        assert summary["counts"]["bundles"] in (40, 25)
    assert leftovers(out) == []


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_sigterm_and_sigint_end_a_batch_with_their_code_and_no_summary(tmp_path: Path, signum: int, code: int) -> None:
    out = tmp_path / "out"
    assert main(["batch", str(EXAMPLE), "--out-dir", str(out)]) == 0
    run = cli("batch", "-", "--out-dir", str(out), stdin=subprocess.PIPE)
    run.stdin.write(example_line() + b"\n")
    run.stdin.flush()
    deadline = time.monotonic() + 30
    while (out / "summary.json").exists():  # removed first thing, under the lock
        assert time.monotonic() < deadline
        time.sleep(0.02)
    run.send_signal(signum)
    _, err = run.communicate(timeout=30)
    assert run.returncode == code, err
    assert err.decode().strip().splitlines()[-1] in ("evidence-rank: terminated", "evidence-rank: interrupted")
    assert not (out / "summary.json").exists()
