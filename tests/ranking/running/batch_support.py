"""What the batch tests share: running the command as a process, building inputs,
checking that a batch's folder agrees with its summary, and watching processes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson

from curator_io import canon, parse_json
from ranking.running.outputs import LOCK_NAME
from tests.conftest import FIXTURES, PARITY, REPO

EXAMPLE = FIXTURES / "example.json"
#: What ``ranking.running.batch.output_folder`` names a bundle's folder.
FOLDER_NAME = re.compile(r"[0-9]{6,}-[A-Za-z0-9][A-Za-z0-9._-]*")


#: Parity cases a batch scores, and two it refuses.
SCORED = (
    "001-basic-accepted-selected",
    "002-mixed-dispositions",
    "004-no-op-all-rejected-or-deferred",
    "072-rank-superseded-does-not-block",
)
REFUSED = ("076-input-malformed-not-json", "087-input-frozen-digest-mismatch-random")


def one_line(case: str) -> bytes:
    """A parity bundle as one compact JSONL line (digests do not depend on whitespace)."""
    return orjson.dumps(parse_json((PARITY / case / "bundle.json").read_bytes()))


def write_mixed_batch(root: Path) -> list[str]:
    """A folder of parity bundles (two refused), a JSONL with a blank and a bad line, and a lone file.

    Returns the PATH arguments, relative to ``root``.
    """
    cases = root / "in" / "cases"
    cases.mkdir(parents=True)
    for case in (*SCORED, *REFUSED):
        shutil.copy(PARITY / case / "bundle.json", cases / f"{case}.json")
    lines = [one_line(SCORED[0]), b"", b"{not json", one_line(SCORED[1]) + b"\r", one_line(SCORED[2])]
    (root / "in" / "stream.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    shutil.copy(FIXTURES / "example.json", root / "example.json")
    return ["in", "example.json"]


def tree_bytes(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (the lock left out) by its relative path: its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != LOCK_NAME
    }


def read_summary(out: Path) -> dict:
    """The batch's summary.json in ``out``, parsed."""
    return json.loads((out / "summary.json").read_bytes())  # type: ignore[no-any-return]


def cli(*argv: str, **kwargs) -> subprocess.Popen:
    """``evidence-rank ARGV`` as a user starts it, stdout discarded, stderr piped."""
    kwargs.setdefault("stdout", subprocess.DEVNULL)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen([sys.executable, "-m", "ranking.cli", *argv], cwd=REPO, **kwargs)


def example_line() -> bytes:
    """The example bundle as one JSONL line (its digests do not depend on whitespace)."""
    return orjson.dumps(parse_json(EXAMPLE.read_bytes()))


def write_bundles(folder: Path, count: int, *, prefix: str = "b") -> None:
    """``count`` copies of the example bundle as files in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    data = EXAMPLE.read_bytes()
    for i in range(count):
        (folder / f"{prefix}{i:04d}.json").write_bytes(data)


def report_folders(out: Path) -> set[str]:
    reports = out / "reports"
    if not reports.is_dir():
        return set()
    return {p.name for p in reports.iterdir() if FOLDER_NAME.fullmatch(p.name)}


def assert_summary_agrees_with_the_folders(out: Path) -> dict | None:
    """The batch protocol's property: a summary.json, if present, is whole and sealed, names
    exactly the bundle folders beside it, and each holds the one outcome its entry records."""
    try:
        raw = (out / "summary.json").read_bytes()
    except FileNotFoundError:
        return None
    summary = parse_json(raw)
    assert canon(summary) == raw
    named = {e["output"].removeprefix("reports/") for e in summary["bundles"]}
    assert report_folders(out) == named
    for entry in summary["bundles"]:
        folder = out / entry["output"]
        files = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
        if entry["outcome"] == "error":
            assert files == ["error.json"], folder
            assert json.loads((folder / "error.json").read_bytes()) == entry["error"]
        else:
            assert files == ["report.json", "validation.json"], folder
            report = json.loads((folder / "report.json").read_bytes())
            assert (report["run"], report["outcome"]) == (entry["run"], entry["outcome"])
            validation = json.loads((folder / "validation.json").read_bytes())
            assert validation["digest"] == report["validation_digest"]
    return summary


def leftovers(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*.tmp"))


# --- Processes: /proc, no extra dependency --------------------------------------------


def children(pid: int) -> set[int]:
    """The processes ``pid`` started (every thread's children), from /proc."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.update(int(c) for c in (task / "children").read_text().split())
        except OSError:
            pass  # the thread or the process ended meanwhile
    return found


def descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def running(pid: int) -> bool:
    """Alive, and not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.02)


def kill_all(pids: set[int]) -> None:
    """Clean up after a failed test: the processes it started, by pid."""
    for pid in pids:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
