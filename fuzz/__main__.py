"""The campaign: every target under atheris, ``python -m fuzz [--runs N] [--jobs J] [TARGET...]``.

Seeds each target's corpus (``out/fuzz/corpus/TARGET``) from ``fuzz.seeds``,
runs ``python -m fuzz.campaign`` per target with ``-runs`` from the budget
below (scaled by ``--scale``), ``--jobs`` at a time, niced, and prints and
writes (``out/fuzz/campaign.json``) how many inputs each ran, how long, and
the findings.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fuzz.mutate import encode
from fuzz.seeds import json_pieces, seed_cases, signed_case

OUT = Path(__file__).resolve().parent.parent / "out" / "fuzz"

#: Inputs per target in a default campaign (1,000,000 in all): more where an input is cheap.
BUDGET = {
    "json": 250_000,
    "config": 260_000,
    "bundle": 100_000,
    "report": 30_000,
    "gate": 60_000,
    "envelope": 40_000,
    "cli-score": 35_000,
    "cli-validate": 35_000,
    "cli-verify": 35_000,
    "cli-explain": 35_000,
    "cli-apply": 35_000,
    "cli-gate": 35_000,
    "cli-seal": 35_000,
    "cli-batch": 20_000,
    "cli-ledger": 5_000,
}
#: libFuzzer's options: long inputs (a parity bundle is up to ~40 KB, mutations grow it); the parser's
#: seeds are small pieces, kept small so that its share of the campaign is spent on the parser.
OPTIONS = ["-timeout=60", "-rss_limit_mb=4096", "-print_final_stats=1"]
MAX_LEN = {"json": 8192}


def _seed(name: str) -> Path:
    from fuzz.registry import TARGETS

    corpus = OUT / "corpus" / name
    corpus.mkdir(parents=True, exist_ok=True)
    if name == "json":
        for i, piece in enumerate(json_pieces()):
            (corpus / f"seed-{i:04d}").write_bytes(piece)
        return corpus
    for i, (_, case) in enumerate(seed_cases()):
        (corpus / f"seed-{i:03d}").write_bytes(encode(signed_case(case), TARGETS[name].slots))
    return corpus


def _run(name: str, runs: int) -> dict[str, object]:
    corpus = _seed(name)
    log = OUT / "logs" / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [
        "nice",
        "-n",
        "10",
        sys.executable,
        "-m",
        "fuzz.campaign",
        name,
        f"-runs={runs}",
        f"-max_len={MAX_LEN.get(name, 262144)}",
        *OPTIONS,
        str(corpus),
    ]
    start = time.monotonic()
    with log.open("wb") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, check=False).returncode
    text = log.read_text(errors="replace")
    done = re.search(r"Done ([0-9]+) runs in ([0-9]+) second", text)
    return {
        "target": name,
        "inputs": int(done[1]) if done else None,
        "seconds": round(time.monotonic() - start),
        "exit": rc,
        "findings": sorted(set(re.findall(rf"FINDING {re.escape(name)}: (.*)", text))),
    }


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__)
    parser.add_argument("targets", nargs="*", default=list(BUDGET), help="default: all")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every budget (default 1: 1M inputs)")
    parser.add_argument("--jobs", type=int, default=2, help="targets run at a time (default 2)")
    args = parser.parse_args()
    start = time.monotonic()
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda n: _run(n, max(1, int(BUDGET[n] * args.scale))), args.targets))
    total = sum(r["inputs"] or 0 for r in rows)
    summary = {"inputs": total, "wall_seconds": round(time.monotonic() - start), "targets": rows}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "campaign.json").write_text(json.dumps(summary, indent=2) + "\n")
    for r in rows:
        print(f"{r['target']:<13} {r['inputs'] or '?':>8} inputs {r['seconds']:>6} s  findings: {len(r['findings'])}")
        for f in r["findings"]:
            print(f"    {f}")
    print(f"total {total} inputs in {summary['wall_seconds']} s")
    return 1 if any(r["findings"] or r["inputs"] is None for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
