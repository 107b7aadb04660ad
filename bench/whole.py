"""Whole processes on every layout: ``evidence-rank`` against a floor process (issue 16).

    python bench/whole.py                          # 8k, 16k, 32k on every layout, then small batches
    python bench/whole.py --sizes 8000 --layouts spec --small ''   # one cell
    python bench/whole.py --quick                  # 1k and 2k, batches of 50 bundles (a smoke run)

CPU time (user + system) and peak RSS of each child are read with ``os.wait4``,
so each process is measured on its own and other work on the machine changes
the CPU time far less than the wall time. Within a round the commands alternate;
each cell gives the median over ``--repeat`` rounds and the range.

* **large**: ``evidence-rank score BUNDLE --out-dir DIR -q`` against
  ``python bench/floor.py BUNDLE`` (read, ``orjson.loads``, canonicalize and hash
  every sealed artifact and the document), for each layout of
  ``bench/layouts.py`` at each size. Targets: score ≤ 2.5x the floor on every
  layout; score's CPU per doubling of the bundle ≤ 2.1x; peak RSS ≤ 3x file + 100 MB.
* **small**: ``evidence-rank batch FOLDER --out-dir DIR --workers 1`` over
  ``--small-count`` bundles of 10-50 proposals, against
  ``python bench/floor.py --batch FOLDER DIR`` (the floor work and two files
  written for each bundle). Per bundle: the CPU of the batch less that of a
  batch of its first quarter, over the difference in bundles, so that what a
  process pays once (start-up, imports) is not counted as a bundle's.
  Target: ≤ 3.5x the floor's.

Nothing is asserted: the tables say which target holds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.layouts import LAYOUTS  # noqa: E402
from bench.run import batch_folder, bundle_files  # noqa: E402

_SCRIPT = Path(sys.executable).with_name("evidence-rank")  # the console script, as a user runs it
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "ranking.cli"]
FLOOR = [sys.executable, str(REPO / "bench" / "floor.py")]
SIZES = (8000, 16000, 32000)
SMALL = (10, 25, 50)
MB = 1024 * 1024
_SCRATCH = Path("/dev/shm") if Path("/dev/shm").is_dir() else None  # steady file-system time (bench/RESULTS.md)


class Usage(NamedTuple):
    cpu: float
    """User + system seconds."""
    rss: int
    """Peak resident set, bytes."""


def measured(cmd: list[str], ok: tuple[int, ...] = (0,)) -> Usage:
    """Run ``cmd`` to its exit; its own CPU time and peak RSS (``wait4``)."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=REPO)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in ok:
            err.seek(0)
            tail = err.read().decode(errors="replace")[-800:]
            raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {tail}")
    return Usage(usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)


def spread(values: list[float], digits: int = 2) -> str:
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def large(sizes: tuple[int, ...], layouts: tuple[str, ...], repeat: int, seed: int, work: Path) -> None:
    print(
        "| layout | N | file MB | floor CPU s | score CPU s | score/floor | x per doubling | peak RSS MB "
        "| RSS limit MB | floor RSS MB |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    previous: dict[str, float] = {}
    for n in sizes:
        files = bundle_files(n, seed, work, layouts)
        floor: dict[str, list[Usage]] = {layout: [] for layout in layouts}
        score: dict[str, list[Usage]] = {layout: [] for layout in layouts}
        with tempfile.TemporaryDirectory(dir=_SCRATCH) as out:
            for round_ in range(repeat + 1):  # the first round warms the page cache and is dropped
                for layout, path in files.items():
                    f = measured([*FLOOR, str(path)])
                    s = measured([*CLI, "score", str(path), "--out-dir", out, "-q"])
                    if round_:
                        floor[layout].append(f)
                        score[layout].append(s)
        for layout, path in files.items():
            size = path.stat().st_size
            f_cpu = [u.cpu for u in floor[layout]]
            s_cpu = [u.cpu for u in score[layout]]
            ratios = [s / f for s, f in zip(s_cpu, f_cpu, strict=True)]
            median = statistics.median(s_cpu)
            step = f"{median / previous[layout]:.2f}" if layout in previous else "-"
            previous[layout] = median
            print(
                f"| {layout} | {n} | {size / MB:.1f} | {spread(f_cpu)} | {spread(s_cpu)} | {spread(ratios)} "
                f"| {step} | {max(u.rss for u in score[layout]) / MB:.0f} | {(3 * size + 100 * MB) / MB:.0f} "
                f"| {max(u.rss for u in floor[layout]) / MB:.0f} |",
                flush=True,
            )


def small(proposals: tuple[int, ...], layouts: tuple[str, ...], count: int, repeat: int, seed: int, work: Path) -> None:
    few = max(1, count // 4)
    print(
        f"Batches of small bundles, `--workers 1`. Per bundle: the CPU of a batch of {count} less that of "
        f"a batch of its first {few}, over {count - few} (what a process pays once is not a bundle's); "
        f"whole: the CPU of the batch of {count} over {count}."
    )
    print()
    print("| layout | proposals | floor ms/bundle | batch ms/bundle | batch/floor | whole batch/floor |")
    print("|---|---:|---:|---:|---:|---:|")
    for n in proposals:
        for layout in layouts:
            folders = {k: batch_folder(k, n, seed, work, layout)[0].parent for k in (count, few)}
            cpu: dict[tuple[str, int], list[float]] = {(c, k): [] for c in ("floor", "batch") for k in folders}
            for round_ in range(repeat + 1):
                for k, folder in folders.items():
                    with tempfile.TemporaryDirectory(dir=_SCRATCH) as out:
                        f = measured([*FLOOR, "--batch", str(folder), f"{out}/f"])
                        b = measured([*CLI, "batch", str(folder), "--out-dir", f"{out}/b", "--workers", "1"])
                    if round_:
                        cpu["floor", k].append(f.cpu)
                        cpu["batch", k].append(b.cpu)
            per = {
                c: [(t - t0) / (count - few) for t, t0 in zip(cpu[c, count], cpu[c, few], strict=True)]
                for c in ("floor", "batch")
            }
            ratios = [b / f for b, f in zip(per["batch"], per["floor"], strict=True)]
            whole = [b / f for b, f in zip(cpu["batch", count], cpu["floor", count], strict=True)]
            print(
                f"| {layout} | {n} | {spread([x * 1000 for x in per['floor']])} "
                f"| {spread([x * 1000 for x in per['batch']])} | {spread(ratios)} | {spread(whole)} |",
                flush=True,
            )


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1k and 2k, batches of 50 bundles of 10, one layout round")
    p.add_argument("--sizes", type=_ints, help="proposal counts of the large bundles (default 8000,16000,32000)")
    p.add_argument("--layouts", type=lambda s: tuple(s.split(",")), default=tuple(LAYOUTS))
    p.add_argument("--small", type=_ints, help="proposals per bundle of the small batches (default 10,25,50)")
    p.add_argument("--small-count", type=int, help="bundles per small batch (default 200)")
    p.add_argument("--repeat", type=int, default=5, help="measured rounds, after one dropped (default 5)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "evidence-rank-bench")
    args = p.parse_args(argv)
    for layout in args.layouts:
        if layout not in LAYOUTS:
            p.error(f"--layouts: {layout!r} is not one of {', '.join(LAYOUTS)}")
    sizes = args.sizes if args.sizes is not None else (1000, 2000) if args.quick else SIZES
    smalls = args.small if args.small is not None else (10,) if args.quick else SMALL
    count = args.small_count or (50 if args.quick else 200)
    repeat = 1 if args.quick else args.repeat
    args.work_dir.mkdir(parents=True, exist_ok=True)
    print(f"machine: nproc={os.cpu_count()}, Python {sys.version.split()[0]}, load average {_load()} at start")
    print(f"command: python bench/whole.py {' '.join(sys.argv[1:] if argv is None else argv)}".rstrip())
    print()
    if sizes:
        large(sizes, args.layouts, repeat, args.seed, args.work_dir)
        print(f"\nload average {_load()}\n")
    if smalls:
        small(smalls, args.layouts, count, repeat, args.seed, args.work_dir)
    print(f"\nload average {_load()} at the end")
    return 0


def _load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    raise SystemExit(main())
