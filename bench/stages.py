"""Where one bundle's time goes: each stage of ``rank_bytes`` timed on its own.

    python bench/stages.py 8000          # the benchmark's bundle of 8,000 proposals
    python bench/stages.py path/to/bundle.json --repeat 7
    python bench/stages.py BUNDLE --cpu --profile 12   # CPU time; then the 12 costliest functions

Stages, in the order ``rank_bytes`` runs them: ``load_bundle``; ``validate``;
freeing the bundle; ``result_of`` (scores, order, selection, the ranking
report); freeing the result. The cyclic collector is off throughout, as
``rank_bytes`` has it, so a stage is not charged for a collection another
stage's objects caused. Each stage's best of ``--repeat`` runs is printed,
and the best whole run: wall time, or with ``--cpu`` this process's CPU time
(steadier on a machine other work shares). ``--profile N`` then runs the stages
``--repeat`` times more under cProfile and prints the N functions with the most
time of their own, per run. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

STAGES = ("load_bundle", "validate", "free the bundle", "result_of", "free the result")


def time_stages(raw: bytes, clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    from curator_io.bundle import load_bundle
    from curator_io.config import DEFAULT_CONFIG
    from ranking.pipeline import result_of
    from validator import validate

    t0 = clock()
    bundle = load_bundle(raw)
    t1 = clock()
    validation = validate(bundle, config=DEFAULT_CONFIG)
    t2 = clock()
    del bundle
    t3 = clock()
    result = result_of(validation)
    t4 = clock()
    del result, validation
    t5 = clock()
    return dict(zip(STAGES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bundle", help="a bundle file, or a proposal count for the benchmark's generated bundle")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=5, help="runs; each stage's best counts (default 5)")
    p.add_argument("--cpu", action="store_true", help="CPU time of this process instead of wall time")
    p.add_argument("--profile", type=int, metavar="N", help="then the N costliest functions under cProfile")
    p.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "evidence-rank-bench")
    args = p.parse_args(argv)

    if args.bundle.isdigit():
        from bench.run import bundle_file

        args.work_dir.mkdir(parents=True, exist_ok=True)
        path = bundle_file(int(args.bundle), args.seed, args.work_dir)
    else:
        path = Path(args.bundle)
    raw = path.read_bytes()

    clock = time.process_time if args.cpu else time.perf_counter
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        time_stages(raw)  # warm: imports, regular expressions
        runs = [time_stages(raw, clock) for _ in range(args.repeat)]
        if args.profile:
            profiler = cProfile.Profile()
            for _ in range(args.repeat):
                profiler.runcall(time_stages, raw)
    finally:
        if was_enabled:
            gc.enable()

    kind = "CPU" if args.cpu else "wall"
    print(f"{path.name}: {len(raw) / 2**20:.1f} MB, best of {args.repeat} runs ({kind} time), collector off")
    for stage in STAGES:
        print(f"  {stage:<16} {min(run[stage] for run in runs) * 1000:8.1f} ms")
    print(f"  {'whole run':<16} {min(sum(run.values()) for run in runs) * 1000:8.1f} ms")
    if args.profile:
        _print_profile(profiler, args.profile, args.repeat)
    return 0


def _print_profile(profiler: cProfile.Profile, top: int, runs: int) -> None:
    """The ``top`` functions by time of their own (cProfile's tottime), per run."""
    stats = pstats.Stats(profiler).stats
    rows = sorted(stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    total = sum(v[2] for v in stats.values())
    print(f"\ncProfile, {runs} runs: own time per run (share of {total / runs * 1000:.0f} ms under the profiler)")
    for (file, line, name), (_, calls, own, cumulative, _) in rows:
        where = f"{Path(file).parent.name}/{Path(file).name}:{line}({name})" if line else name
        print(
            f"  {own / runs * 1000:8.1f} ms {own / total:6.1%}  cum {cumulative / runs * 1000:8.1f} ms  "
            f"calls {calls // runs:>8}  {where}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
