"""Nothing waits for ever (issue 24): SIGTERM and Ctrl-C end every ledger command within
a second, also while it waits for a ledger another process holds (README, "Signals").
How long the ledger itself waits is tests/ranking/ledger/test_signals.py's."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ranking.cli import main
from tests.conftest import FIXTURES, PARITY, REPO
from tests.ranking.ledger.crafted import BASIC, MIXED, good_ledger, held_ledger


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Path]:
    # Written by ledger add in this process, as before the move: built with the package instead, the
    # first command was at times still starting, not yet waiting, 2 s later on a loaded machine.
    ledger = tmp_path / "ledger.db"
    assert main(["ledger", "add", str(ledger), str(MIXED), str(BASIC)]) == 0
    with held_ledger(ledger) as held:
        yield held


def _argv(command: str, ledger: Path, tmp: Path) -> list[str]:
    inbox = tmp / "inbox"
    inbox.mkdir(parents=True)
    shutil.copy(PARITY / "002-mixed-dispositions" / "bundle.json", inbox / "mixed.json")
    return {
        "add": ["ledger", "add", str(ledger), str(BASIC)],
        "verify": ["ledger", "verify", str(ledger)],
        "export": ["ledger", "export", str(ledger)],
        "history": ["ledger", "history", str(ledger), "--proposal", "p_hook-9"],
        "notes": ["ledger", "notes", str(ledger)],
        "render": ["ledger", "render", str(ledger), "--out", str(tmp / "page.html")],
        "merge": ["ledger", "merge", str(tmp / "merged.db"), str(ledger)],
        "merge into it": ["ledger", "merge", str(ledger), str(good_ledger(tmp / "other.db"))],
        "score --ledger": [
            "score",
            str(FIXTURES / "example.json"),
            "--out-dir",
            str(tmp / "o"),
            "--ledger",
            str(ledger),
        ],
        "batch --ledger": ["batch", str(inbox), "--out-dir", str(tmp / "b"), "--ledger", str(ledger)],
    }[command]


COMMANDS = [
    "add",
    "verify",
    "export",
    "history",
    "notes",
    "render",
    "merge",
    "merge into it",
    "score --ledger",
    "batch --ledger",
]


@pytest.mark.parametrize(("sent", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_ends_every_command_waiting_for_a_held_ledger_at_once(
    held: Path, tmp_path: Path, sent: int, status: int
) -> None:
    # All at once, to keep the suite fast: each would wait 60 s for the ledger.
    processes = {
        command: subprocess.Popen(
            [sys.executable, "-m", "ranking.cli", *_argv(command, held, tmp_path / command.replace(" ", "-"))],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for command in COMMANDS
    }
    time.sleep(2.0)  # every one started, and waiting for the ledger
    assert {c: p.poll() for c, p in processes.items()} == dict.fromkeys(processes)

    ended = {}
    for command, process in processes.items():
        process.send_signal(sent)
        sent_at = time.monotonic()
        _, err = process.communicate(timeout=30)
        ended[command] = (process.returncode, time.monotonic() - sent_at < 3.0, err.decode().splitlines()[-1:])

    last = "evidence-rank: terminated" if status == 143 else "evidence-rank: interrupted"
    assert ended == dict.fromkeys(processes, (status, True, [last]))  # within a second, with room for a loaded machine
