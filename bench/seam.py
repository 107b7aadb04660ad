"""What each module behind the seam (``curator_io/_fast/``) gains, on the workloads users have.

    python bench/seam.py [--rounds 3]

Each variant is a child process with ``EVIDENCE_RANK_REFERENCE`` naming the speed modules it
turns off (``curator_io.reference``): all on, each one off alone, and all off (the reference
path). The variants run interleaved, round after round; each line gives the child's CPU time
for the work (the fastest round) and its peak RSS, against all on.

Workloads, in spec order as real curator files are (``bench/layouts.py``):

* **small**: ``rank_bytes`` on every parity bundle, three times (279 small bundles);
* **large**: ``rank_bytes`` on a 2,000-proposal bundle (9 MB);
* **very large**: ``rank_bytes`` on an 8,000-proposal bundle (36 MB): what the RSS target is about;
* **verify**: SPEC §7's checks of the 2,000-proposal report (``check_report``).

Rule (issue 34): a module that gains less than 10% on every workload, and that no RSS target
needs, is deleted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from curator_io.reference import SPEED_MODULES  # noqa: E402

_CHILD = r"""
import json, resource, sys
from pathlib import Path
from ranking.checking.verification import check_report
from ranking.pipeline import rank_bytes
workload, files = sys.argv[1], sys.argv[2:]
raws = [Path(f).read_bytes() for f in files]
docs = [json.loads(r) for r in raws] if workload == "verify" else None
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
start = cpu()
if workload == "verify":
    for doc in docs:
        check_report(doc)
else:
    for raw in raws:
        try:
            rank_bytes(raw)
        except Exception:
            pass  # the parity corpus holds refused bundles too: refusing them is the work
print(json.dumps({"cpu": cpu() - start, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


_GENERATE = r"""
import sys
from pathlib import Path
from bench.generate import generate_bundle
from bench.layouts import write_layout
from ranking.pipeline import rank_bytes
work = Path(sys.argv[1])
for n in (2000, 8000):
    (work / f"{n}.json").write_bytes(write_layout(generate_bundle(n), "spec"))
(work / "report-2000.json").write_bytes(rank_bytes((work / "2000.json").read_bytes()).canonical)
"""


def _workloads(work: Path) -> dict[str, tuple[str, list[str]]]:
    # Made in a child of its own: a child started from a parent that built them would report
    # the parent's peak RSS as its own (Linux keeps the high-water mark across exec).
    subprocess.run([sys.executable, "-c", _GENERATE, str(work)], check=True, cwd=REPO)
    parity = sorted(str(p) for p in (REPO / "tests" / "parity" / "cases").glob("*/bundle.json"))
    return {
        "small": ("score", parity * 3),
        "large": ("score", [str(work / "2000.json")]),
        "very large": ("score", [str(work / "8000.json")]),
        "verify": ("verify", [str(work / "report-2000.json")]),
    }


def _run(variant: str, workload: str, files: list[str]) -> dict[str, float]:
    env = {**os.environ, "EVIDENCE_RANK_REFERENCE": variant}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, workload, *files], env=env, capture_output=True, text=True, check=True, cwd=REPO
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def main(rounds: int) -> None:
    variants = {"all on": "", **{f"{m} off": m for m in SPEED_MODULES}, "reference (all off)": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        workloads = _workloads(Path(tmp))
        best: dict[tuple[str, str], dict[str, float]] = {}
        for _ in range(rounds):
            for name, (kind, files) in workloads.items():
                for label, variant in variants.items():
                    got = _run(variant, kind, files)
                    seen = best.setdefault((name, label), got)
                    best[(name, label)] = {"cpu": min(seen["cpu"], got["cpu"]), "rss": max(seen["rss"], got["rss"])}
        for name in workloads:
            base = best[(name, "all on")]
            print(f"{name}: all on {base['cpu']:.3f} s CPU, {base['rss'] / 1024:.0f} MB peak RSS")
            for label in list(variants)[1:]:
                got = best[(name, label)]
                print(
                    f"  {label:<20} CPU {got['cpu'] / base['cpu'] - 1:+7.1%}   RSS {got['rss'] / base['rss'] - 1:+7.1%}"
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    main(parser.parse_args().rounds)
