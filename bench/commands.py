"""Whole commands as a user runs them: CPU time of each process, start to exit.

    python bench/commands.py                 # both parts (~3 min on 2 cores)
    python bench/commands.py --part large    # score, verify, explain on a 10,000-proposal bundle
    python bench/commands.py --part startup  # score fixtures/example.json against the floor
    python bench/commands.py --part bytecode # the same command with and without compiled bytecode

CPU time (user + system) is read with ``resource.getrusage(RUSAGE_CHILDREN)``
around each child, so other work on the machine changes it far less than the
wall time. The commands alternate within each repetition, and each line gives
the median and the range.

* **large**: ``evidence-rank score`` on a generated bundle (``bench/generate.py``),
  then ``verify`` of its report and ``explain`` of one proposal (report alone).
  Target: each of the two at most 0.5x score's CPU.
* **startup**: ``evidence-rank score fixtures/example.json`` against
  ``bench/floor_startup.py`` (parse, hash, write two files). Target: at most 2x.
  The project's modules are compiled first, as ``make install`` leaves them:
  a ``.pyc`` older than its source is recompiled on every run where nothing
  may write ``__pycache__`` (``PYTHONDONTWRITEBYTECODE``), which once made
  this ratio read 2.4x instead of 1.8x.
* **bytecode**: the start-up command with the project's modules compiled
  (``python -m compileall``, what ``make install`` runs) and without any
  ``.pyc`` for them (a copy of the packages, run with ``PYTHONDONTWRITEBYTECODE``),
  which is the cost of every run where nothing may write ``__pycache__``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.run import bundle_file  # noqa: E402

_SCRIPT = Path(sys.executable).with_name("evidence-rank")  # the console script, as a user runs it
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "ranking.cli"]
EXAMPLE = REPO / "fixtures" / "example.json"
PACKAGES = ("curator_io", "validator", "ranking")


def cpu_of(cmd: list[str], env: dict[str, str] | None = None) -> float:
    """CPU seconds (user + system) of one child process running ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env, cwd=REPO)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def alternate(commands: dict[str, list[str]], repeat: int, env: dict[str, str] | None = None) -> dict[str, list[float]]:
    """Each command once per round, in turn, ``repeat`` rounds (after one unmeasured round)."""
    for cmd in commands.values():
        cpu_of(cmd, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, cmd in commands.items():
            times[name].append(cpu_of(cmd, env))
    return times


def line(name: str, values: list[float], unit: float = 1.0, suffix: str = "s") -> str:
    return (
        f"{name:<28} median {statistics.median(values) * unit:8.3f} {suffix}  "
        f"range {min(values) * unit:.3f}-{max(values) * unit:.3f} {suffix}  (n={len(values)})"
    )


def large(n: int, repeat: int, work: Path) -> None:
    bundle = bundle_file(n, 1, work)
    out = work / f"out-{n}"
    subprocess.run([*CLI, "score", str(bundle), "--out-dir", str(out)], stdout=subprocess.DEVNULL, check=True)
    report = out / "report.json"
    import orjson

    pid = orjson.loads(report.read_bytes())["proposals"][n // 2]["id"]
    times = alternate(
        {
            "score": [*CLI, "score", str(bundle), "--out-dir", str(out)],
            "verify REPORT": [*CLI, "verify", str(report)],
            "explain REPORT ID": [*CLI, "explain", str(report), pid],
        },
        repeat,
    )
    print(f"bundle: {n} proposals, {bundle.stat().st_size / 1e6:.1f} MB; report {report.stat().st_size / 1e6:.1f} MB")
    for name, values in times.items():
        print(line(name, values))
    score = statistics.median(times["score"])
    for name in ("verify REPORT", "explain REPORT ID"):
        ratios = [v / s for v, s in zip(times[name], times["score"], strict=True)]
        print(
            f"{name} / score: median of medians {statistics.median(times[name]) / score:.2f}x, "
            f"per round {min(ratios):.2f}-{max(ratios):.2f}x (target <= 0.5x)"
        )


def startup(repeat: int, work: Path) -> None:
    subprocess.run([sys.executable, "-m", "compileall", "-q", *PACKAGES], check=True, cwd=REPO)
    times = alternate(
        {
            "floor (bench/floor_startup.py)": [
                sys.executable,
                str(REPO / "bench" / "floor_startup.py"),
                str(EXAMPLE),
                str(work / "floor"),
            ],
            "evidence-rank score EXAMPLE": [*CLI, "score", str(EXAMPLE), "--out-dir", str(work / "score")],
            "python -c pass": [sys.executable, "-c", "pass"],
        },
        repeat,
    )
    for name, values in times.items():
        print(line(name, values, 1000, "ms"))
    floor = times["floor (bench/floor_startup.py)"]
    score = times["evidence-rank score EXAMPLE"]
    ratios = [s / f for s, f in zip(score, floor, strict=True)]
    print(
        f"score / floor: median of medians {statistics.median(score) / statistics.median(floor):.2f}x, "
        f"per round {min(ratios):.2f}-{max(ratios):.2f}x (target <= 2x)"
    )


def bytecode(repeat: int, work: Path) -> None:
    """The same command from a copy of the packages, compiled, then with no ``.pyc`` at all."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    copies = {}
    for label in ("compiled", "not compiled"):
        root = work / label.replace(" ", "-")
        shutil.rmtree(root, ignore_errors=True)
        for package in PACKAGES:
            shutil.copytree(REPO / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
        if label == "compiled":
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(root)], check=True)
        copies[label] = root
    # The copy comes first on the path, ahead of the editable install's finder.
    times = alternate(
        {
            label: [
                sys.executable,
                "-c",
                f"import sys; sys.path.insert(0, {str(root)!r}); from ranking.cli import main; "
                f"sys.exit(main(['score', {str(EXAMPLE)!r}, '--out-dir', {str(work / 'bc')!r}]))",
            ]
            for label, root in copies.items()
        },
        repeat,
        env,
    )
    for name, values in times.items():
        print(line(f"score EXAMPLE, {name}", values, 1000, "ms"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("large", "startup", "bytecode"), action="append")
    p.add_argument("--n", type=int, default=10_000, help="proposals in the large bundle (default 10,000)")
    p.add_argument("--repeat-large", type=int, default=7)
    p.add_argument("--repeat-startup", type=int, default=40)
    p.add_argument("--work-dir", type=Path, default=REPO / "bench" / "out")
    args = p.parse_args(argv)
    parts = args.part or ["large", "startup", "bytecode"]
    args.work_dir.mkdir(parents=True, exist_ok=True)
    print(f"machine: nproc={os.cpu_count()}, Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(dir=args.work_dir) as scratch:
        if "large" in parts:
            large(args.n, args.repeat_large, args.work_dir)
        if "startup" in parts:
            startup(args.repeat_startup, Path(scratch))
        if "bytecode" in parts:
            bytecode(args.repeat_startup, Path(scratch))
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
