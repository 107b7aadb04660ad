"""Issue 40's speed targets, side by side with another checkout: instructions, not seconds.

    python bench/doors.py --baseline ../baseline [--runs 3] [--proposals 2000]

Each measurement runs the same command twice under ``valgrind --tool=callgrind`` (which
counts instructions, so a busy machine does not move it), once on this checkout's code
and once on ``--baseline``'s (a checkout of the commit to compare with; its code is put
first on ``PYTHONPATH``, the interpreter and libraries are this venv's), interleaved,
the median of ``--runs`` each:

* **large**: ``rank_bytes`` on a generated bundle of ``--proposals`` proposals written as
  users' files are, indented and in spec order (``bench/layouts.py``): the process less the
  same process that only imports and reads the file;
* **small batch**: ``evidence-rank batch`` over the parity bundles (``tests/parity/cases``),
  one worker, the whole process;
* **start-up**: ``evidence-rank score fixtures/example.json``, the whole process;
* **gate**: ``evidence-rank gate`` on the example with its base and memory-after.

Targets (issue 40): large within +5%; the small batch and start-up no slower.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.generate import generate_bundle  # noqa: E402
from bench.layouts import spec_ordered  # noqa: E402

_TOTAL = re.compile(rb"Collected : (\d+)")
_RANK = "import sys\nfrom ranking.pipeline import rank_bytes\nraw = open(sys.argv[1], 'rb').read()\n"


def _instructions(code: Path, argv: list[str], *, less: list[str] | None = None) -> int:
    """Instructions of ``argv`` (a Python command line) with ``code`` first on the path; less
    those of ``less`` (the same process stopped before the work measured), when given."""
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, *argv],
        cwd=code,
        env=env,
        capture_output=True,
        check=False,
    )
    # 3: a batch of the parity bundles holds refused ones (their error.json is the work measured).
    assert done.returncode in (0, 3), done.stderr[-500:]
    found = _TOTAL.search(done.stderr)
    assert found is not None, done.stderr[-500:]
    return int(found.group(1)) - (_instructions(code, less) if less else 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="a checkout of the commit to compare with")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--proposals", type=int, default=2000)
    args = parser.parse_args()
    baseline = args.baseline.resolve()
    for code in (baseline, REPO):
        # Both sides from compiled bytecode: with PYTHONDONTWRITEBYTECODE set (as it is on some
        # machines) a checkout nobody compiled pays for compiling every module on every run.
        packages = [p for p in ("curator_io", "validator", "ranking") if (code / p).is_dir()]
        subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], cwd=code, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        large = work / "large.json"
        large.write_bytes(orjson.dumps(spec_ordered(generate_bundle(args.proposals, 1)), option=orjson.OPT_INDENT_2))
        cases = REPO / "tests" / "parity" / "cases"
        small = work / "small"
        small.mkdir()
        for case in sorted(cases.iterdir()):
            if (case / "bundle.json").exists():
                (small / f"{case.name}.json").write_bytes((case / "bundle.json").read_bytes())
        example = REPO / "fixtures" / "example.json"
        subprocess.run(
            [sys.executable, "-m", "ranking.cli", "score", str(example), "--out-dir", str(work / "ex"), "-q"],
            cwd=REPO,
            check=True,
        )
        memory = subprocess.run(
            [sys.executable, "-m", "ranking.cli", "apply", str(example), str(work / "ex" / "report.json")],
            cwd=REPO,
            capture_output=True,
            check=True,
        ).stdout
        (work / "after.json").write_bytes(memory)
        (work / "base.json").write_text(json.dumps(json.loads(example.read_bytes())["memory"]))
        cli = ["-m", "ranking.cli"]
        rows = {
            "large (rank_bytes, in process, less imports and read)": (
                ["-c", _RANK + "rank_bytes(raw)\n", str(large)],
                ["-c", _RANK, str(large)],
            ),
            "small batch (93 parity bundles, 1 worker)": (
                [*cli, "batch", str(small), "--out-dir", str(work / "b"), "--workers", "1", "-q"],
                None,
            ),
            "start-up (score example)": ([*cli, "score", str(example), "--out-dir", str(work / "s"), "-q"], None),
            "gate (example, base, memory-after)": (
                [
                    *cli, "gate", "--bundle", str(example), "--report", str(work / "ex" / "report.json"),
                    "--memory-after", str(work / "after.json"), "--memory-before", str(work / "base.json"),
                ],
                None,
            ),
        }  # fmt: skip
        print(f"baseline: {baseline}; this checkout: {REPO}; median of {args.runs} runs each")
        print("| workload | baseline instructions | this checkout | change |")
        print("| --- | ---: | ---: | ---: |")
        for name, (argv, less) in rows.items():
            pairs = [
                (_instructions(baseline, argv, less=less), _instructions(REPO, argv, less=less))
                for _ in range(args.runs)
            ]
            theirs = int(statistics.median(t for t, _ in pairs))
            ours = int(statistics.median(o for _, o in pairs))
            print(f"| {name} | {theirs:,} | {ours:,} | {100 * (ours - theirs) / theirs:+.1f}% |", flush=True)


if __name__ == "__main__":
    main()
