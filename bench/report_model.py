"""What reading a ranking report into its type costs, against pydantic reading it into the same type.

    python bench/report_model.py                 # a 10,000-proposal report (bench/generate.py 10000 --seed 1)
    python bench/report_model.py BUNDLE.json     # the report of any bundle

In one process, the collector off (as ``verify`` and ``explain`` run,
``ranking.cli.collector``), best of ``--repeat`` CPU times (``time.process_time``):

* ``ranking_report_of``: the hand-written reader ``check_report`` uses once the
  report is checked (``curator_io.report_model``);
* pydantic: importing it, building a ``TypeAdapter`` for ``RankingReport`` and
  ``validate_python`` of the same document, which is what using pydantic to
  read reports would add to every ``verify`` and ``explain``.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def best_of(repeat: int, work: Callable[[], object]) -> float:
    """The least CPU seconds of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bundle", nargs="?", type=Path, help="a bundle file (default: the generated 10,000-proposal one)")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--work-dir", type=Path, default=REPO / "bench" / "out")
    args = p.parse_args(argv)
    import orjson

    from curator_io import canon, load_bundle
    from curator_io.report_model import RankingReport, ranking_report_of
    from ranking.pipeline import rank

    if args.bundle is None:
        from bench.run import bundle_file

        args.work_dir.mkdir(parents=True, exist_ok=True)
        args.bundle = bundle_file(10_000, 1, args.work_dir)
    document = orjson.loads(canon(rank(load_bundle(args.bundle.read_bytes())).report))
    enabled = gc.isenabled()
    gc.disable()
    try:
        own = best_of(args.repeat, lambda: ranking_report_of(document))
        start = time.process_time()
        import pydantic

        imported = time.process_time() - start
        start = time.process_time()
        adapter = pydantic.TypeAdapter(RankingReport)
        built = time.process_time() - start
        validated = best_of(args.repeat, lambda: adapter.validate_python(document))
        assert adapter.validate_python(document) == ranking_report_of(document)  # the same model either way
    finally:
        if enabled:
            gc.enable()
    print(f"report of {args.bundle.name}: {len(document['proposals'])} proposals; best of {args.repeat}, CPU")
    print(f"  ranking_report_of            {own * 1000:8.1f} ms")
    print(f"  import pydantic              {imported * 1000:8.1f} ms  (once per process; 0 if already imported)")
    print(f"  TypeAdapter(RankingReport)   {built * 1000:8.1f} ms  (once per process)")
    print(f"  adapter.validate_python      {validated * 1000:8.1f} ms")
    print(f"  pydantic in all              {(imported + built + validated) * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
