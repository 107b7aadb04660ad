"""``EVIDENCE_RANK_REFERENCE=1``: the tool on the reference paths alone gives the same bytes and
imports nothing from ``curator_io._fast`` (issue 34)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import FIXTURES, PARITY, REPO

_RUN = """
import sys
from ranking.cli import main
code = main(sys.argv[1:])
print("FAST:" + ",".join(sorted(m for m in sys.modules if m.startswith("curator_io._fast"))), file=sys.stderr)
sys.exit(code)
"""


def _run(*argv: str | Path, reference: bool) -> tuple[int, set[str], subprocess.CompletedProcess[str]]:
    env = {k: v for k, v in os.environ.items() if k != "EVIDENCE_RANK_REFERENCE"}
    if reference:
        env["EVIDENCE_RANK_REFERENCE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", _RUN, *map(str, argv)], cwd=REPO, env=env, capture_output=True, text=True
    )
    line = [x for x in done.stderr.splitlines() if x.startswith("FAST:")][-1]
    return done.returncode, {m for m in line.removeprefix("FAST:").split(",") if m}, done


def test_the_reference_path_imports_nothing_of_the_fast_one_and_writes_the_same_reports(tmp_path: Path) -> None:
    case = PARITY / "002-mixed-dispositions"
    for reference in (False, True):
        out = tmp_path / ("reference" if reference else "fast")
        code, fast, done = _run("score", case / "bundle.json", "--out-dir", out, "--quiet", reference=reference)
        assert code == 0, done.stderr
        assert (fast == set()) is reference, fast
        assert (out / "report.json").read_bytes() == (case / "expected.report.json").read_bytes()
        code, fast, done = _run("verify", out / "report.json", "--bundle", case / "bundle.json", reference=reference)
        assert code == 0, done.stderr
        assert (fast == set()) is reference, fast


def test_a_bundle_above_the_chunk_threshold_loads_whole_on_the_reference_path(tmp_path: Path) -> None:
    doc = json.loads((FIXTURES / "example.json").read_bytes())
    doc["padding"] = "x" * 900_000  # an unknown top-level member: allowed, and counted in the digest
    from curator_io import canon
    from curator_io.canonical import digest

    doc.pop("frozen")
    doc["frozen"] = {"digest": digest(doc)}
    big = tmp_path / "big.json"
    big.write_bytes(canon(doc))
    for reference in (False, True):
        code, fast, done = _run("validate", big, "--out", tmp_path / f"v{reference}.json", reference=reference)
        assert code == 0, done.stderr
        assert ("curator_io._fast.chunked" in fast) is not reference
    assert (tmp_path / "vTrue.json").read_bytes() == (tmp_path / "vFalse.json").read_bytes()


def test_each_speed_module_turned_off_alone_gives_the_same_reports(tmp_path: Path) -> None:
    from curator_io.reference import SPEED_MODULES

    case = PARITY / "069-rank-conflict-same-key-different-text"
    for module in SPEED_MODULES:
        env = {**os.environ, "EVIDENCE_RANK_REFERENCE": module}
        out = tmp_path / module
        argv = [sys.executable, "-m", "ranking.cli", "score", str(case / "bundle.json"), "--out-dir", str(out), "-q"]
        done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert (out / "report.json").read_bytes() == (case / "expected.report.json").read_bytes(), module
        assert (out / "validation.json").read_bytes() == (case / "expected.validation.json").read_bytes(), module
