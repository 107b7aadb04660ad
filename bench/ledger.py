"""The cost of ``batch --ledger``: a 1,000-bundle batch with and without recording every report.

    python bench/ledger.py                 # 1,000 bundles x 10 proposals, --workers 1 and 2, best of 5
    python bench/ledger.py --count 200     # quicker

The bundles are bench/run.py's small batch bundles (bench/generate.py, cached
under --work-dir). Each run is ``evidence-rank batch FOLDER --out-dir DIR
[--ledger DIR/ledger.db]`` in a fresh folder and a new ledger, process start to
exit; with and without alternate, so drift on the machine hits both. The
output and the ledger go under --out (default /dev/shm, as bench/run.py).

Each cell is the best and the median of ``--repeat`` runs; the overhead is
best against best and median against median. No timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

_DEFAULT_OUT = Path("/dev/shm") if Path("/dev/shm").is_dir() else None


def bundles(count: int, proposals: int, seed: int, work: Path) -> Path:
    """The folder of ``count`` generated bundles, the same files bench/run.py's batch uses."""
    from bench.generate import VERSION, generate_bundle
    from curator_io.canonical import canon

    folder = work / f"batch-{count}x{proposals}-seed{seed}-v{VERSION}"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        path = folder / f"bundle-{i:04d}.json"
        if not path.exists():
            path.write_bytes(canon(generate_bundle(proposals, seed * 100_000 + i)))
    return folder


def run_batch(folder: Path, workers: int, out: Path, ledger: Path | None) -> float:
    cli = [sys.executable, "-m", "ranking.cli", "batch", str(folder), "--out-dir", str(out), "--workers", str(workers)]
    if ledger is not None:
        cli += ["--ledger", str(ledger)]
    start = time.perf_counter()
    done = subprocess.run(cli, capture_output=True, text=True, cwd=REPO)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"evidence-rank batch exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=1000, help="bundles in the batch (default 1000)")
    p.add_argument("--proposals", type=int, default=10, help="proposals per bundle (default 10)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=5, help="runs per measurement; the best counts (default 5)")
    p.add_argument("--workers", default="1,2", help="worker counts to measure (default 1,2)")
    p.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "evidence-rank-bench")
    p.add_argument("--out", type=Path, default=_DEFAULT_OUT, help="where batches and ledgers are written")
    args = p.parse_args(argv)

    folder = bundles(args.count, args.proposals, args.seed, args.work_dir)
    workers = [int(w) for w in args.workers.split(",")]
    print(
        f"machine: nproc={os.cpu_count()}, Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
        f"load average {os.getloadavg()[0]:.2f} at start"
    )
    print(f"command: python bench/ledger.py {' '.join(sys.argv[1:] if argv is None else argv)}".rstrip())
    where = args.out or tempfile.gettempdir()
    print(f"batch of {args.count} bundles x {args.proposals} proposals, writing under {where}")
    print()
    print("| workers | without --ledger s, best / median | with --ledger s, best / median | overhead |")
    print("|---:|---:|---:|---:|")
    for w in workers:
        times: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(args.repeat):
            for with_ledger in (False, True):
                with tempfile.TemporaryDirectory(dir=args.out) as out:
                    ledger = Path(out) / "ledger.db" if with_ledger else None
                    times[with_ledger].append(run_batch(folder, w, Path(out) / "batch", ledger))
        best = {k: min(v) for k, v in times.items()}
        median = {k: statistics.median(v) for k, v in times.items()}
        print(
            f"| {w} | {best[False]:.2f} / {median[False]:.2f} | {best[True]:.2f} / {median[True]:.2f} "
            f"| {best[True] / best[False] - 1:+.1%} / {median[True] / median[False] - 1:+.1%} |",
            flush=True,
        )
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
