"""What look-alikes cost and print on a memory of N instructions that share words (issue 55, finding 2).

    python bench/lookalikes_scale.py [--sizes 600,2000,10000] [--before-sizes 600,2000] [--before REV]

Memory-after: N instructions the bundle's memory does not hold (so each is a subject, as in a
gate after a large write), each 6 to 12 words drawn from ``bench/generate.py``'s small
vocabulary (seed 55), global scope: texts that share words, the case where look-alikes grew
with N². The bundle is ``bench/generate.py``'s 10 proposals (seed 1).

For each N, in a child process of its own, from this checkout (**after**) and from ``REV``
(**before**, default 132117f, the commit issue 55's work started from, extracted with ``git
archive`` and put first on ``sys.path``): the CPU time (user + system) of the gate's look-alike
step (:func:`ranking.checking.gate.lookalike_warnings`) and of rendering its text
(:func:`ranking.views.gate.render_text`), the warning lines and bytes printed, and the child's
peak RSS. Before is run only on ``--before-sizes``: at 10,000 it would take about half an hour.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, random, resource, sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(1, sys.argv[2])
from bench.generate import WORDS, generate_bundle
from curator_io import load_bundle
from curator_io.sealing import seal_bundle
from ranking.checking.gate import lookalike_warnings
from ranking.checking.findings import GateResult
from ranking.views.gate import render_text

n = int(sys.argv[3])
doc = generate_bundle(10, 1)
del doc["frozen"]
bundle = load_bundle(json.dumps(seal_bundle(doc)).encode())
rng = random.Random(55)
texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 12))).capitalize() + "." for _ in range(n)]
memory = {"version": 2, "instructions": [
    {"key": f"bench.k{i:05d}", "text": t, "scope": {"level": "global"}} for i, t in enumerate(texts)]}
start = time.process_time()
warnings = lookalike_warnings(bundle, memory)
step = time.process_time() - start
from ranking.advice.lookalikes import find_lookalikes  # untimed: how many the bounds left out
left_out = getattr(find_lookalikes(bundle, written=memory), "left_out", 0)
try:
    result = GateResult((), 2, n, warnings=warnings, lookalikes_left_out=left_out)
except TypeError:  # before: no bounds, nothing left out
    result = GateResult((), 2, n, warnings=warnings)
start = time.process_time()
lines = render_text(result)
rendered = time.process_time() - start
out = sum(len(line.encode()) + 1 for line in lines)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"n": n, "cpu_s": step, "render_s": rendered, "warnings": len(warnings),
                  "left_out": left_out, "lines": len(lines), "bytes": out, "rss_mb": rss}))
"""


def _checkout(rev: str, work: Path) -> Path:
    """The project's files at ``rev``, extracted (no worktree, nothing of git's touched)."""
    root = work / "before"
    root.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(root, filter="data")
    return root


def _run(root: Path, n: int) -> dict[str, float]:
    # The bench folder (and its generator) comes from this checkout in both runs: the same memory.
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(REPO), str(n)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def _row(name: str, r: dict[str, float]) -> None:
    print(
        f"{name:<7} N={int(r['n']):>6}  look-alike step {r['cpu_s']:8.2f} s  render {r['render_s']:6.2f} s  "
        f"warnings {int(r['warnings']):>8}  left out {int(r['left_out']):>8}  "
        f"text {int(r['lines']):>8} lines {r['bytes'] / 1e6:8.2f} MB  peak RSS {r['rss_mb']:7.1f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="600,2000,10000")
    parser.add_argument("--before-sizes", default="600,2000")
    parser.add_argument("--before", default="132117f")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        before = _checkout(args.before, Path(tmp)) if args.before_sizes else None
        for n in [int(x) for x in args.before_sizes.split(",") if x]:
            assert before is not None
            _row("before", _run(before, n))
        for n in [int(x) for x in args.sizes.split(",") if x]:
            _row("after", _run(REPO, n))


if __name__ == "__main__":
    main()
