"""The files a run leaves: the score folder's protocol under kills, failures and
concurrent runs; file modes; seal through a symlink (docs/outputs.md)."""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from curator_io import canon, parse_json, seal
from ranking.cli import main
from ranking.running.outputs import LOCK_NAME, locked_folder, write_file
from tests.conftest import FIXTURES, REPO, visible_files
from tests.ranking.running.batch_support import cli

EXAMPLE = FIXTURES / "example.json"


def assert_consistent(folder: Path) -> None:
    """The protocol's property: a report.json is whole, and validation.json is the one it names."""
    try:
        report_bytes = (folder / "report.json").read_bytes()
    except FileNotFoundError:
        return
    report = parse_json(report_bytes)
    assert canon(report) == report_bytes
    validation = parse_json((folder / "validation.json").read_bytes())
    assert validation["digest"] == report["validation_digest"]


@pytest.fixture(scope="module")
def large_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Large enough that a kill lands mid-run and mid-write."""
    sys.path.insert(0, str(REPO))
    from bench.generate import generate_bundle

    path = tmp_path_factory.mktemp("large") / "bundle.json"
    path.write_bytes(canon(generate_bundle(1500, 3)))
    return path


def test_a_config_outside_spec_2_keeps_the_earlier_runs_reports(tmp_path: Path) -> None:
    # The config is read and checked before the folder is touched: nothing was scored, nothing is lost.
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path)]) == 0
    before = {name: (tmp_path / name).read_bytes() for name in visible_files(tmp_path)}
    bad = tmp_path.parent / f"{tmp_path.name}-config.json"
    bad.write_text('{"threshold": 101}')
    assert main(["score", str(EXAMPLE), "--config", str(bad), "--out-dir", str(tmp_path)]) == 2
    assert {name: (tmp_path / name).read_bytes() for name in visible_files(tmp_path)} == before


def test_a_tampered_validation_removes_the_report_and_keeps_the_file_under_check(tmp_path: Path) -> None:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path)]) == 0
    validation = tmp_path / "validation.json"
    doc = parse_json(validation.read_bytes())
    doc["proposals"][0]["validation"] = "rejected"
    tampered = canon(seal(doc))
    validation.write_bytes(tampered)
    argv = ["score", str(EXAMPLE), "--validation", str(validation), "--out-dir", str(tmp_path)]
    assert main(argv) == 4
    assert visible_files(tmp_path) == ["error.json", "validation.json"]  # the user's input is never deleted
    assert validation.read_bytes() == tampered


def test_a_mistyped_bundle_path_keeps_the_earlier_runs_reports(tmp_path: Path) -> None:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path)]) == 0
    before = {name: (tmp_path / name).read_bytes() for name in visible_files(tmp_path)}
    assert main(["score", str(tmp_path / "missing.json"), "--out-dir", str(tmp_path)]) == 2
    assert {name: (tmp_path / name).read_bytes() for name in visible_files(tmp_path)} == before
    assert sorted(before) == ["report.json", "validation.json"]


def test_a_bundle_refused_after_it_was_read_removes_the_earlier_runs_report(tmp_path: Path) -> None:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path)]) == 0
    broken = tmp_path.parent / f"{tmp_path.name}-broken.json"
    broken.write_text("{")
    assert main(["score", str(broken), "--out-dir", str(tmp_path)]) == 3
    assert visible_files(tmp_path) == ["error.json"]


def test_leftovers_of_a_killed_write_are_swept_by_the_next_run(tmp_path: Path) -> None:
    for name in ("report.json", "validation.json", "error.json"):
        (tmp_path / f".{name}.x1y2z3.tmp").write_bytes(b"half a rep")
    (tmp_path / ".notes.tmp").write_bytes(b"not ours")
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path)]) == 0
    hidden = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
    assert hidden == [LOCK_NAME, ".notes.tmp"]


def test_a_run_killed_at_random_instants_never_leaves_a_mixed_pair(tmp_path: Path, large_bundle: Path) -> None:
    out = tmp_path / "out"
    loose = tmp_path / "loose.json"
    loose.write_text('{"threshold": 10}')
    assert cli("score", str(large_bundle), "--out-dir", str(out)).wait() == 0
    rng = random.Random(14)
    for attempt in range(12):
        config = ["--config", str(loose)] if attempt % 2 else []
        run = cli("score", str(large_bundle), *config, "--out-dir", str(out))
        time.sleep(rng.uniform(0.05, 1.2))
        run.send_signal(signal.SIGKILL)
        run.wait()
        assert_consistent(out)
    assert cli("score", str(large_bundle), "--out-dir", str(out)).wait() == 0
    assert_consistent(out)
    assert visible_files(out) == ["report.json", "validation.json"]
    assert [p.name for p in out.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_sigterm_and_sigint_end_the_run_with_their_code_and_no_report(tmp_path: Path, signum: int, code: int) -> None:
    out = tmp_path / "out"
    assert main(["score", str(EXAMPLE), "--out-dir", str(out)]) == 0
    with locked_folder(out):  # the run waits for it: the signal lands inside the run, every time
        run = cli("score", str(EXAMPLE), "--out-dir", str(out))
        assert b"waiting for another run" in run.stderr.readline()
        run.send_signal(signum)
        _, err = run.communicate()
    assert run.returncode == code
    assert err.decode().strip() in ("evidence-rank: terminated", "evidence-rank: interrupted")
    assert visible_files(out) == ["report.json", "validation.json"]  # the lock was never had: nothing touched


def test_sigterm_at_random_instants_leaves_the_folder_as_the_protocol_says(tmp_path: Path, large_bundle: Path) -> None:
    """Each run has its own threshold, so a report.json left behind shows whose it is:
    after a terminated run it may only be that run's own (the signal came after its
    report was written), never an earlier run's."""
    out = tmp_path / "out"
    rng = random.Random(143)
    codes = set()
    for attempt in range(8):
        config = tmp_path / f"c{attempt}.json"
        config.write_text(f'{{"threshold": {40 + attempt}}}')
        run = cli("score", str(large_bundle), "--config", str(config), "--out-dir", str(out))
        time.sleep(rng.uniform(0.1, 1.0))
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate()
        codes.add(run.returncode)
        # -15: killed during start-up, before the handler is set (a shell reports 143 for it too)
        assert run.returncode in (0, 143, -signal.SIGTERM), err
        assert b"Traceback" not in err
        assert_consistent(out)
        assert [p.name for p in out.iterdir() if p.name.endswith(".tmp")] == []
        if run.returncode == -signal.SIGTERM:
            continue  # never got as far as the folder
        if run.returncode == 0:
            assert "report.json" in visible_files(out)
        if "report.json" in visible_files(out):
            assert parse_json((out / "report.json").read_bytes())["config"]["threshold"] == 40 + attempt
    assert 143 in codes


def test_two_concurrent_runs_into_one_folder_never_pair_one_runs_validation_with_the_others_report(
    tmp_path: Path, large_bundle: Path
) -> None:
    out = tmp_path / "out"
    configs = []
    for threshold in (41, 42):
        path = tmp_path / f"t{threshold}.json"
        path.write_text(f'{{"threshold": {threshold}}}')
        configs.append(path)
    seen = 0
    stop = threading.Event()
    broken: list[AssertionError] = []

    def watch() -> None:
        # A reader's two reads are two instants: between them the other run may replace both
        # files. So the watcher reads as docs/outputs.md tells a reader to: report.json, then
        # validation.json, then report.json again; the pair is one run's when the report did not
        # change. What it finds fails the test (an assert in a thread alone would only warn).
        nonlocal seen
        while not stop.is_set():
            try:
                before = (out / "report.json").read_bytes()
                validation = (out / "validation.json").read_bytes()
                if (out / "report.json").read_bytes() != before:
                    continue  # another run wrote between the reads: read again
            except FileNotFoundError:
                continue  # a run between its removal of report.json and its write: read again
            try:
                report = parse_json(before)
                assert canon(report) == before
                assert parse_json(validation)["digest"] == report["validation_digest"]
                seen += 1
            except AssertionError as e:
                broken.append(e)
                return

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for _ in range(4):
            runs = [cli("score", str(large_bundle), "--config", str(c), "--out-dir", str(out)) for c in configs]
            assert [r.wait() for r in runs] == [0, 0]
            assert_consistent(out)
    finally:
        stop.set()
        watcher.join()
    assert broken == []
    assert seen > 0
    report = parse_json((out / "report.json").read_bytes())
    assert report["config"]["threshold"] in (41, 42)


def test_output_files_honour_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o027)
    try:
        write_file(tmp_path / "a.json", b"{}")
    finally:
        os.umask(previous)
    code = "import os; os.umask(0o002); from ranking.cli import main; raise SystemExit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, "score", str(EXAMPLE), "--out-dir", str(tmp_path / "o")], cwd=REPO
    )
    assert done.returncode == 0
    assert stat.S_IMODE((tmp_path / "o" / "report.json").stat().st_mode) == 0o664
    assert stat.S_IMODE((tmp_path / "o" / "validation.json").stat().st_mode) == 0o664


def _unsealed_copy(path: Path) -> None:
    doc = parse_json(EXAMPLE.read_bytes())
    doc["frozen"]["digest"] = "sha256:" + "0" * 64
    path.write_bytes(canon(doc))


def test_seal_keeps_the_files_mode(tmp_path: Path, capsys) -> None:
    bundle = tmp_path / "bundle.json"
    _unsealed_copy(bundle)
    bundle.chmod(0o644)
    assert main(["seal", str(bundle)]) == 0
    assert "sealed 1 place" in capsys.readouterr().out
    assert stat.S_IMODE(bundle.stat().st_mode) == 0o644
    assert main(["seal", str(bundle), "--check"]) == 0


def test_seal_through_a_symlink_seals_the_target_and_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real" / "bundle.json"
    target.parent.mkdir()
    _unsealed_copy(target)
    target.chmod(0o640)
    link = tmp_path / "bundle.json"
    link.symlink_to(target)
    assert main(["seal", str(link)]) == 0
    assert link.is_symlink() and link.resolve() == target
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert main(["seal", str(target), "--check"]) == 0


@pytest.mark.parametrize("name", ["report.json", "validation.json", "error.json"])
def test_a_bundle_that_is_one_of_the_folders_own_outputs_is_refused_before_anything_is_removed(
    tmp_path: Path, name: str, capsys
) -> None:
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path), "-q"]) == 0
    (tmp_path / "error.json").write_bytes(b"{}")  # stands in for a failed run's record
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if not p.name.startswith(".")}
    assert main(["score", str(tmp_path / name), "--out-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"is {name} in --out-dir, which this run replaces" in err
    assert "was removed" not in err  # nothing was: the note would say otherwise
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if not p.name.startswith(".")} == before
