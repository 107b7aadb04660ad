"""bench/floor.py does the floor's work, and bench/whole.py reports every cell (its times are never asserted)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from bench import floor, whole
from curator_io.canonical import canon
from curator_io.sealing import ARTIFACT_LISTS
from tests.conftest import FIXTURES


def test_the_floor_hashes_the_places_sealing_seals_and_imports_nothing_of_the_project() -> None:
    assert floor.ARTIFACT_LISTS == ARTIFACT_LISTS
    script = (
        "import runpy, sys\n"
        f"sys.argv = ['floor.py', {str(FIXTURES / 'example.json')!r}]\n"
        "try:\n"
        f"    runpy.run_path({floor.__file__!r}, run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('curator_io', 'validator', 'ranking')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_floor_canonicalizes_the_bundle_as_canon_does() -> None:
    raw = (FIXTURES / "example.json").read_bytes()
    assert floor.floor_once(raw) == canon(orjson.loads(raw))


def test_a_floor_batch_writes_two_files_per_bundle_in_path_order(tmp_path: Path) -> None:
    inbox = tmp_path / "in"
    inbox.mkdir()
    raw = (FIXTURES / "example.json").read_bytes()
    for name in ("b", "a"):
        (inbox / f"{name}.json").write_bytes(raw)
    assert floor.main(["--batch", str(inbox), str(tmp_path / "out")]) == 0
    folders = sorted(p.name for p in (tmp_path / "out" / "reports").iterdir())
    assert folders == ["000001-a", "000002-b"]
    validation = orjson.loads((tmp_path / "out" / "reports" / "000001-a" / "validation.json").read_bytes())
    assert validation["input_digest"] == "sha256:" + hashlib.sha256(canon(orjson.loads(raw))).hexdigest()


def test_measured_gives_a_childs_own_cpu_and_peak_rss_and_refuses_a_failure() -> None:
    grow = "b = bytearray(64 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"
    usage = whole.measured([sys.executable, "-c", grow])
    assert usage.cpu > 0
    assert usage.rss >= 64 * 1024 * 1024
    with pytest.raises(SystemExit, match="exited 3"):
        whole.measured([sys.executable, "-c", "raise SystemExit(3)"])


def test_whole_prints_a_row_per_layout_and_size_and_per_small_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--sizes", "20,40", "--layouts", "canonical,reverse", "--small", "10", "--small-count", "4"]
    assert whole.main([*argv, "--repeat", "1", "--work-dir", str(tmp_path)]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "---" not in line]
    cells = [row.split(" | ")[:2] for row in rows]
    assert cells == [
        ["| layout", "N"],
        ["| canonical", "20"],
        ["| reverse", "20"],
        ["| canonical", "40"],
        ["| reverse", "40"],
        ["| layout", "proposals"],
        ["| canonical", "10"],
        ["| reverse", "10"],
    ]
