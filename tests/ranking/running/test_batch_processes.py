"""``batch --workers N`` and signals: workers end with their parent, however it ends.

Each test starts the command as a user would, on standard input kept open (so
the batch is surely mid-run when the signal lands), and watches its processes
through /proc.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.ranking.running.batch_support import (
    cli,
    descendants,
    example_line,
    kill_all,
    report_folders,
    running,
    wait_until,
)

LINES = b"".join(example_line() + b"\n" for _ in range(400))


def start_batch(out: Path) -> tuple[subprocess.Popen, set[int]]:
    """A 2-worker batch on standard input, mid-run: its workers started and folders written."""
    run = cli("batch", "-", "--workers", "2", "--out-dir", str(out), stdin=subprocess.PIPE, start_new_session=True)
    run.stdin.write(LINES)
    run.stdin.flush()
    wait_until(lambda: descendants(run.pid) and len(report_folders(out)) >= 4, 30, "workers started")
    return run, descendants(run.pid)


@pytest.mark.parametrize(
    ("signum", "group", "code"),
    [
        (signal.SIGTERM, False, 143),  # CI cancellation, `timeout`, Kubernetes: to the parent
        (signal.SIGTERM, True, 143),  # `kill -TERM -PGID`: to every process of the run
        (signal.SIGINT, True, 130),  # Ctrl-C on a terminal: to the foreground group
        (signal.SIGINT, False, 130),
    ],
)
def test_a_signal_ends_the_batch_with_its_code_no_worker_left_and_no_summary(
    tmp_path: Path, signum: int, group: bool, code: int
) -> None:
    out = tmp_path / "out"
    run, workers = start_batch(out)
    try:
        if group:
            os.killpg(run.pid, signum)
        else:
            run.send_signal(signum)
        _, err = run.communicate(timeout=10)
        assert run.returncode == code, err
        assert b"Traceback" not in err, err.decode()
        assert err.decode().strip().splitlines()[-1] in ("evidence-rank: terminated", "evidence-rank: interrupted")
        wait_until(lambda: not any(running(p) for p in workers), 5, f"workers {workers} gone")
        assert not (out / "summary.json").exists()
    finally:
        kill_all(workers | {run.pid})


def test_workers_die_with_a_parent_that_is_killed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run, workers = start_batch(out)
    try:
        run.kill()
        run.wait(timeout=10)
        wait_until(lambda: not any(running(p) for p in workers), 5, f"workers {workers} gone")
        assert not (out / "summary.json").exists()
    finally:
        kill_all(workers)
        run.stdin.close()


def test_a_sigterm_that_lands_while_workers_are_forked_still_ends_the_batch_with_143(tmp_path: Path) -> None:
    import sys

    from tests.conftest import FIXTURES, REPO

    out = tmp_path / "out"
    # The signal lands inside os.fork's own hooks: where a handler's exception is printed and dropped.
    script = (
        "import os, signal, sys; from ranking.cli import main; "
        "os.register_at_fork(before=lambda: os.kill(os.getpid(), signal.SIGTERM)); "
        f"sys.exit(main(['batch', {str(FIXTURES / 'example.json')!r}, {str(FIXTURES / 'example.json')!r}, "
        f"'--workers', '2', '--out-dir', {str(out)!r}, '-q']))"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, timeout=60, check=False)
    assert done.returncode == 143, done.stderr.decode()[-800:]
    assert done.stderr.decode().strip() == "evidence-rank: terminated"
    assert not (out / "summary.json").exists()
