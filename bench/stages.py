"""Where one bundle's time goes: each stage of ``rank_bytes`` timed on its own.

    python bench/stages.py 8000          # the benchmark's bundle of 8,000 proposals
    python bench/stages.py path/to/bundle.json --repeat 7

Stages, in the order ``rank_bytes`` runs them: ``load_bundle``; ``validate``;
freeing the bundle; ``result_of`` (scores, order, selection, the ranking
report); freeing the result. The cyclic collector is off throughout, as
``rank_bytes`` has it, so a stage is not charged for a collection another
stage's objects caused. Each stage's best of ``--repeat`` runs is printed,
and the best whole run. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

STAGES = ("load_bundle", "validate", "free the bundle", "result_of", "free the result")


def time_stages(raw: bytes) -> dict[str, float]:
    from curator_io.bundle import load_bundle
    from curator_io.config import DEFAULT_CONFIG
    from ranking.pipeline import result_of
    from validator import validate

    clock = time.perf_counter
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
    p.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "evidence-rank-bench")
    args = p.parse_args(argv)

    if args.bundle.isdigit():
        from bench.run import bundle_file

        args.work_dir.mkdir(parents=True, exist_ok=True)
        path = bundle_file(int(args.bundle), args.seed, args.work_dir)
    else:
        path = Path(args.bundle)
    raw = path.read_bytes()

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        time_stages(raw)  # warm: imports, regular expressions
        runs = [time_stages(raw) for _ in range(args.repeat)]
    finally:
        if was_enabled:
            gc.enable()

    print(f"{path.name}: {len(raw) / 2**20:.1f} MB, best of {args.repeat} runs, collector off")
    for stage in STAGES:
        print(f"  {stage:<16} {min(run[stage] for run in runs) * 1000:8.1f} ms")
    print(f"  {'whole run':<16} {min(sum(run.values()) for run in runs) * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
