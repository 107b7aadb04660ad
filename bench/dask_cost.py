"""What the Dask engine costs per bundle on one machine, against the local engine.

    python bench/dask_cost.py                      # 50 and 250 bundles of 10 proposals, 1 and 2 workers
    python bench/dask_cost.py --count 250 --repeat 5

``evidence-rank batch FOLDER --out-dir DIR --engine local|dask --workers N``,
each a whole process (a Dask ``LocalCluster`` of N worker processes is started
and closed inside it). CPU time is the process's own with every child it
reaped (``os.wait4``): the cluster's workers are its children. Per bundle: the
CPU of a batch of ``--count`` bundles less that of a batch of its first fifth,
over the difference, so that starting the process (and the cluster) is not a
bundle's cost; that start-up is shown on its own. Wall time is shown for the
whole batch. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.run import batch_folder  # noqa: E402
from bench.whole import _SCRATCH, CLI, measured, spread  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=250, help="bundles in the larger batch (default 250)")
    p.add_argument("--proposals", type=int, default=10)
    p.add_argument("--workers", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2])
    p.add_argument("--repeat", type=int, default=3, help="measured rounds, after one dropped (default 3)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "evidence-rank-bench")
    args = p.parse_args(argv)
    args.work_dir.mkdir(parents=True, exist_ok=True)
    few = max(1, args.count // 5)
    folders = {k: batch_folder(k, args.proposals, args.seed, args.work_dir)[0].parent for k in (args.count, few)}
    print(f"machine: nproc={os.cpu_count()}, load average {'/'.join(f'{x:.2f}' for x in os.getloadavg())} at start")
    print(f"{args.count} and {few} bundles x {args.proposals} proposals; median (range) of {args.repeat} rounds")
    print()
    print("| engine | workers | CPU ms/bundle | start-up CPU s | whole batch CPU s | whole batch wall s |")
    print("|---|---:|---:|---:|---:|---:|")
    local_per: dict[int, float] = {}
    for workers in args.workers:
        for engine in ("local", "dask"):
            cpu: dict[int, list[float]] = {k: [] for k in folders}
            wall: list[float] = []
            for round_ in range(args.repeat + 1):
                for k, folder in folders.items():
                    with tempfile.TemporaryDirectory(dir=_SCRATCH) as out:
                        cmd = [*CLI, "batch", str(folder), "--out-dir", out, "--engine", engine]
                        start = time.perf_counter()
                        usage = measured([*cmd, "--workers", str(workers)])
                        elapsed = time.perf_counter() - start
                    if round_:
                        cpu[k].append(usage.cpu)
                        if k == args.count:
                            wall.append(elapsed)
            per = [(c - c0) / (args.count - few) for c, c0 in zip(cpu[args.count], cpu[few], strict=True)]
            startup = [c0 - m * few for c0, m in zip(cpu[few], per, strict=True)]
            note = ""
            if engine == "local":
                local_per[workers] = statistics.median(per)
            else:
                note = f" ({statistics.median(per) / local_per[workers]:.1f}x local)"
            print(
                f"| {engine} | {workers} | {spread([x * 1000 for x in per])}{note} | {spread(startup)} "
                f"| {spread(cpu[args.count])} | {spread(wall)} |",
                flush=True,
            )
    print(f"\nload average {'/'.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
