"""What the base check (``gate --memory-before``) costs ``gate`` on the shipped example.

    python bench/gate_base.py [--repeat 40] [--callgrind 3]

Three measurements, interleaved:

* **whole process**: ``evidence-rank gate`` on ``fixtures/example.json``, its report and the
  memory ``apply`` permits, once with ``--memory-before`` (the bundle's own memory, so the gate
  goes on to compare memory-after) and once with ``--skip-base-check``; the CPU time (user +
  system) of each child: the median over the rounds, the per-round ratio, and the fastest run of
  each (the least disturbed by the rest of the machine, on a 2-core machine the steadiest figure);
* **instructions**, with ``--callgrind N``: the same two processes under
  ``valgrind --tool=callgrind``, which counts instructions rather than seconds, so a busy machine
  does not move it (median of N runs each: hash randomisation moves the count a little);
* **the check alone**, in process: reading and parsing the base file and
  :func:`ranking.checking.policy.base_mismatch` on it, against the whole in-process gate
  (``ranking.cli.main``), each the median of many calls.

Target (issue 33): the check adds at most 2% to ``gate``.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.commands import CLI, EXAMPLE, alternate, line  # noqa: E402
from curator_io import load_bundle  # noqa: E402
from curator_io.jsonio import parse_json  # noqa: E402
from ranking.checking.policy import base_mismatch  # noqa: E402
from ranking.cli import main  # noqa: E402
from ranking.running.inputs import read_input as read_bytes  # noqa: E402


def _files(work: Path) -> tuple[list[str], Path]:
    import subprocess

    subprocess.run([*CLI, "score", str(EXAMPLE), "--out-dir", str(work / "out"), "--quiet"], check=True)
    subprocess.run([*CLI, "apply", str(EXAMPLE), str(work / "out" / "report.json"), "--out", str(work / "m.json")])
    base = work / "base.json"
    base.write_text(json.dumps(json.loads(EXAMPLE.read_bytes())["memory"], indent=2))
    gate = ["gate", "--bundle", str(EXAMPLE), "--report", str(work / "out" / "report.json")]
    return [*gate, "--memory-after", str(work / "m.json")], base


def _per_call(fn, calls: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(calls):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def _instructions(cmd: list[str]) -> int:
    import re
    import subprocess

    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        capture_output=True, text=True, check=False, cwd=REPO,
    )  # fmt: skip
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))  # type: ignore[union-attr]


def main_(repeat: int, callgrind: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        gate, base = _files(Path(tmp))
        times = alternate(
            {
                "gate --memory-before BASE": [*CLI, *gate, "--memory-before", str(base)],
                "gate --skip-base-check": [*CLI, *gate, "--skip-base-check"],
            },
            repeat,
        )
        for name, values in times.items():
            print(line(name, values, 1000, "ms"))
        with_base, without = times["gate --memory-before BASE"], times["gate --skip-base-check"]
        ratios = [a / b for a, b in zip(with_base, without, strict=True)]
        print(
            f"whole process: {(statistics.median(with_base) / statistics.median(without) - 1) * 100:+.1f}% "
            f"(median of medians); per round {(min(ratios) - 1) * 100:+.1f}% to {(max(ratios) - 1) * 100:+.1f}%, "
            f"median {(statistics.median(ratios) - 1) * 100:+.1f}%; "
            f"fastest of each {(min(with_base) / min(without) - 1) * 100:+.1f}%"
        )

        if callgrind:
            counts: dict[str, list[int]] = {"base": [], "skip": []}
            for _ in range(callgrind):
                counts["base"].append(_instructions([*CLI, *gate, "--memory-before", str(base)]))
                counts["skip"].append(_instructions([*CLI, *gate, "--skip-base-check"]))
            b, k = statistics.median(counts["base"]), statistics.median(counts["skip"])
            print(f"instructions: {b / 1e6:.1f} M with the base, {k / 1e6:.1f} M without: {(b / k - 1) * 100:+.2f}%")

        memory = load_bundle(EXAMPLE.read_bytes()).memory
        check = _per_call(lambda: base_mismatch(memory, parse_json(read_bytes(base))), 2000)

        def whole() -> None:
            with redirect_stdout(io.StringIO()):
                main([*gate, "--memory-before", str(base)])

        in_process = _per_call(whole, 200)
        print(
            f"in process: the check {check * 1e6:.0f} us, the whole gate {in_process * 1e3:.2f} ms: "
            f"{check / in_process * 100:.2f}% (target <= 2%)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--callgrind", type=int, default=0, metavar="N", help="also count instructions, N runs each")
    args = parser.parse_args()
    main_(args.repeat, args.callgrind)
