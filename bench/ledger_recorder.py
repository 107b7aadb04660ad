"""CPU time of ``batch --ledger``'s two ledger steps in one process: scoring bench bundles with
their recordings (``score_one(..., record=True)``), then recording them (``ranking.running.recorder``).
With ``--against DIR``, the same in another checkout, alternating run by run.

    python bench/ledger_recorder.py --runs 3 --against /tmp/main-checkout

The bundles are bench/ledger.py's (bench/generate.py, cached under --work-dir). Process CPU time
(``time.process_time``), less disturbed than a batch's wall clock by other jobs on the machine.
No timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

# Run in a fresh interpreter in each checkout. The recorder is in ranking/running/ since issue 48,
# was in ranking/ledger/ before, and before issue 27 in ranking.cli.ledger_runs, with rows made by
# a keep= callable.
_CHILD = """
import sys, tempfile, time
from pathlib import Path
from curator_io.config import DEFAULT_CONFIG
from ranking.running.batch import BundleSource, score_one
try:
    try:
        from ranking.running.recorder import recorded
    except ImportError:
        from ranking.ledger.recorder import recorded
    how = {"record": True}
except ImportError:
    from ranking.cli.ledger_runs import recorded
    from ranking.ledger.records import recording_of
    how = {"keep": recording_of}
raws = [(f.name, f.read_bytes()) for f in sorted(Path(sys.argv[1]).iterdir())]
t0 = time.process_time()
results = [score_one(BundleSource(name, None, name), raw, DEFAULT_CONFIG, **how) for name, raw in raws]
t1 = time.process_time()
with tempfile.TemporaryDirectory(dir=sys.argv[2]) as d:
    for _ in recorded(results, str(Path(d) / "ledger.db")):
        pass
print(t1 - t0, time.process_time() - t1)
"""


def main() -> int:
    from bench.ledger import bundles

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=1000, help="bundles (default 1000)")
    p.add_argument("--runs", type=int, default=3, help="runs per checkout (default 3)")
    p.add_argument("--against", type=Path, help="another checkout to measure the same way")
    p.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "evidence-rank-bench")
    p.add_argument("--out", type=Path, default=Path("/dev/shm") if Path("/dev/shm").is_dir() else None)
    args = p.parse_args()
    folder = bundles(args.count, 10, 1, args.work_dir)
    out = str(args.out or tempfile.gettempdir())
    checkouts = {"this": REPO, **({"against": args.against.resolve()} if args.against else {})}
    print(f"command: python bench/ledger_recorder.py {' '.join(sys.argv[1:])}".rstrip())
    print("| run | checkout | score with recordings, CPU s | record, CPU s |")
    print("|---:|---|---:|---:|")
    for run in range(1, args.runs + 1):
        for name, checkout in checkouts.items():
            argv = [sys.executable, "-c", _CHILD, str(folder), out]
            done = subprocess.run(argv, cwd=checkout, check=True, capture_output=True, text=True)
            scored, recorded = (float(x) for x in done.stdout.split())
            print(f"| {run} | {name} | {scored:.2f} | {recorded:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
