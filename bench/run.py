"""The pipeline against the floor of parse + canonicalize + hash, and batch throughput.

    python bench/run.py            # N in 1k, 2k, 4k, 8k, 16k, the batch, then bench/whole.py
    python bench/run.py --quick    # N in 1k, 2k, a batch of 200, bench/whole.py --quick
    python bench/run.py --no-whole # without bench/whole.py

For each N the generated bundle (bench/generate.py) is measured in fresh
subprocesses, so memory does not accumulate across sizes:

- floor: ``orjson.loads`` of the bytes, then ``orjson.dumps(..., OPT_SORT_KEYS)``
  and ``hashlib.sha256`` of every sealed artifact and of the bundle;
- pipeline: ``rank_bytes``, load to both reports' canonical bytes (made with the seals);
- peak RSS of the pipeline's process (``ru_maxrss``), after reading the file.

Then 1,000 small bundles are scored with ``evidence-rank batch --workers 1``
and ``--workers 2``, and the throughputs compared.

Times are the best of ``--repeat`` runs. No timing is asserted anywhere.

Last, ``bench/whole.py`` with its defaults (issue 16's targets): whole
``evidence-rank`` processes against a floor process, on every layout of
``bench/layouts.py`` at 8k, 16k and 32k proposals, and batches of small bundles.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.floor import floor_once  # noqa: E402

SIZES = (1000, 2000, 4000, 8000, 16000)
_DEFAULT_BATCH_OUT = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
QUICK_SIZES = (1000, 2000)
MB = 1024 * 1024


# --- measured in a child process -------------------------------------------------


def pipeline_once(raw: bytes) -> None:
    """Load to both reports' canonical bytes, as ``evidence-rank score`` writes them."""
    import gc

    from ranking.pipeline import rank_bytes

    gc.disable()  # as every command runs it (ranking.cli.collector); rank_bytes leaves it to the caller
    result = rank_bytes(raw)
    assert result.validation.canonical and result.canonical  # made with the seals


def measure(kind: str, path: Path, repeat: int) -> dict[str, Any]:
    run = {"floor": floor_once, "pipeline": pipeline_once}[kind]
    raw = path.read_bytes()
    run(raw)  # warm: imports, regex compilation
    best = min(_timed(run, raw) for _ in range(repeat))
    return {"seconds": best, "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}


def _timed(run: Any, raw: bytes) -> float:
    start = time.perf_counter()
    run(raw)
    return time.perf_counter() - start


def in_child(kind: str, path: Path, repeat: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--measure", kind, str(path), "--repeat", str(repeat)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


# --- batch throughput --------------------------------------------------------------


def run_batch(bundles: list[Path], workers: int, out_dir: Path) -> float:
    """Seconds for ``evidence-rank batch FOLDER --workers N`` to score every bundle, start to exit.

    The one place that knows how a batch is run: :func:`run_batch_pool` is the
    stand-in used before the command existed (``--batch-engine pool``).
    """
    cli = [sys.executable, "-m", "ranking.cli", "batch", str(bundles[0].parent), "--out-dir", str(out_dir)]
    start = time.perf_counter()
    done = subprocess.run([*cli, "--workers", str(workers)], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"evidence-rank batch exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return elapsed


def _score_file(args: tuple[str, str]) -> str:
    import gc

    from curator_io.canonical import canon
    from ranking.pipeline import rank_bytes

    bundle, out_dir = args
    gc.disable()  # as the commands' own workers do (ranking.running.engines)
    result = rank_bytes(Path(bundle).read_bytes())
    stem = Path(bundle).stem
    Path(out_dir, f"{stem}.validation.json").write_bytes(canon(result.validation.report))
    Path(out_dir, f"{stem}.report.json").write_bytes(canon(result.report))
    return result.report["digest"]


def run_batch_pool(bundles: list[Path], workers: int, out_dir: Path) -> float:
    """Seconds for a multiprocessing.Pool of ``workers`` over ``rank_bytes``, writing both reports of each."""
    import ranking.pipeline  # noqa: F401  (imported once, before the workers fork)

    start = time.perf_counter()
    jobs = [(str(b), str(out_dir)) for b in bundles]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        pool.map(_score_file, jobs, chunksize=max(1, len(jobs) // (workers * 8)))
    return time.perf_counter() - start


def batch_folder(count: int, proposals: int, seed: int, work: Path, layout: str = "canonical") -> list[Path]:
    """A folder of ``count`` generated bundles of ``proposals`` each (made when missing), in one layout."""
    from bench.generate import VERSION, generate_bundle
    from bench.layouts import write_layout

    suffix = "" if layout == "canonical" else f"-{layout}"
    folder = work / f"batch-{count}x{proposals}-seed{seed}-v{VERSION}{suffix}"
    folder.mkdir(parents=True, exist_ok=True)
    bundles = []
    for i in range(count):
        path = folder / f"bundle-{i:04d}.json"
        if not path.exists():
            path.write_bytes(write_layout(generate_bundle(proposals, seed * 100_000 + i), layout))
        bundles.append(path)
    return bundles


def batch_throughput(
    count: int, proposals: int, seed: int, work: Path, engine: str, repeat: int, out_root: Path | None
) -> dict[int, float]:
    """Bundles per second with 1 and 2 workers, each the best of ``repeat`` runs (alternating),
    each writing into a new folder under ``out_root`` (the system's temporary folder if None)."""
    bundles = batch_folder(count, proposals, seed, work)
    run = run_batch if engine == "cli" else run_batch_pool
    best = {1: math.inf, 2: math.inf}
    for _ in range(repeat):
        for workers in (1, 2):
            with tempfile.TemporaryDirectory(dir=out_root) as out_dir:
                best[workers] = min(best[workers], run(bundles, workers, Path(out_dir)))
    return {workers: count / seconds for workers, seconds in best.items()}


# --- the report ---------------------------------------------------------------------


def bundle_file(n: int, seed: int, work: Path, layout: str = "canonical") -> Path:
    return bundle_files(n, seed, work, (layout,))[layout]


def bundle_files(n: int, seed: int, work: Path, layouts: tuple[str, ...]) -> dict[str, Path]:
    """The generated bundle of ``n`` proposals in each layout (bench/layouts.py), made when missing."""
    from bench.generate import VERSION
    from bench.layouts import layout_path

    base = work / f"bundle-{n}-seed{seed}-v{VERSION}.json"
    paths = {layout: layout_path(base, layout) for layout in layouts}
    missing = [f"--layout={layout}" for layout, path in paths.items() if not path.exists()]
    if missing:
        # A child process, so the generator's memory is gone before anything is measured;
        # one for every missing layout, so the content is generated once.
        generator = REPO / "bench" / "generate.py"
        subprocess.run(
            [sys.executable, str(generator), str(n), "--seed", str(seed), "--out", str(base), *missing], check=True
        )
    return paths


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="N in 1k, 2k and a batch of 200 bundles")
    p.add_argument("--sizes", help="comma-separated proposal counts (default 1000,2000,4000,8000,16000; '' for none)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best counts (default 3)")
    p.add_argument("--batch", type=int, help="small bundles in the batch (default 1000; 0 skips it)")
    p.add_argument("--batch-proposals", type=int, default=10, help="proposals per small bundle (default 10)")
    p.add_argument(
        "--batch-engine",
        choices=("cli", "pool"),
        default="cli",
        help="evidence-rank batch (default), or a multiprocessing.Pool over rank_bytes",
    )
    p.add_argument(
        "--work-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "evidence-rank-bench",
        help="where generated bundles are cached",
    )
    p.add_argument(
        "--batch-out",
        type=Path,
        default=_DEFAULT_BATCH_OUT,
        help="where the batch writes (default /dev/shm when it exists: on this VM's ext4 the time to "
        "create a file varies by up to 2x from run to run, which swamps the ratio; see bench/RESULTS.md)",
    )
    p.add_argument("--no-whole", action="store_true", help="skip bench/whole.py (whole processes, every layout)")
    p.add_argument("--measure", nargs=2, metavar=("KIND", "BUNDLE"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.measure:
        print(json.dumps(measure(args.measure[0], Path(args.measure[1]), args.repeat)))
        return 0

    if args.sizes is not None:
        sizes = [int(s) for s in args.sizes.split(",") if s]  # --sizes '': the batch only
    else:
        sizes = list(QUICK_SIZES if args.quick else SIZES)
    batch = args.batch if args.batch is not None else (200 if args.quick else 1000)
    args.work_dir.mkdir(parents=True, exist_ok=True)
    print(
        f"machine: nproc={os.cpu_count()}, Python {platform.python_version()}, {platform.machine()}, "
        f"load average {os.getloadavg()[0]:.2f} at start (other work on the machine skews every number)"
    )
    print(f"command: python bench/run.py {' '.join(sys.argv[1:] if argv is None else argv)}".rstrip())
    print()
    print(
        "| N | bundle MB | floor s | pipeline s | pipeline/floor | x per doubling | peak RSS MB "
        "| RSS limit MB | floor RSS MB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    previous = None
    for n in sizes:
        path = bundle_file(n, args.seed, args.work_dir)
        size = path.stat().st_size
        floor = in_child("floor", path, args.repeat)
        pipe = in_child("pipeline", path, args.repeat)
        step = f"{pipe['seconds'] / previous:.2f}" if previous else "-"
        previous = pipe["seconds"]
        print(
            f"| {n} | {size / MB:.1f} | {floor['seconds']:.3f} | {pipe['seconds']:.3f} "
            f"| {pipe['seconds'] / floor['seconds']:.2f} | {step} | {pipe['peak_rss'] / MB:.0f} "
            f"| {(3 * size + 100 * MB) / MB:.0f} | {floor['peak_rss'] / MB:.0f} |",
            flush=True,
        )
    if batch:
        rates = batch_throughput(
            batch, args.batch_proposals, args.seed, args.work_dir, args.batch_engine, args.repeat, args.batch_out
        )
        how = "evidence-rank batch FOLDER --out-dir DIR" if args.batch_engine == "cli" else "a Pool over rank_bytes"
        print()
        where = args.batch_out or tempfile.gettempdir()
        print(
            f"batch of {batch} bundles x {args.batch_proposals} proposals ({how}, process start to exit, "
            f"writing under {where}):"
        )
        print(
            f"  --workers 1: {rates[1]:.0f} bundles/s; --workers 2: {rates[2]:.0f} bundles/s; "
            f"speed-up {rates[2] / rates[1]:.2f}x"
        )
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    if not args.no_whole:
        from bench import whole

        print()
        whole.main([*(["--quick"] if args.quick else []), "--seed", str(args.seed), "--work-dir", str(args.work_dir)])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
