"""CPU time of the ledger commands as users run them: ``score --ledger`` (and with
``--trust``, which records the signer), ``ledger verify``, ``ledger export``, on a ledger of the
parity corpus's reports (issue 24's checks at open and on every row read). With ``--against DIR``,
the same commands of another checkout (DIR, run from there with this interpreter), alternating run
by run so that drift on the machine hits both.

    python bench/ledger_commands.py --runs 30
    python bench/ledger_commands.py --runs 30 --against /tmp/main-checkout

Each cell is the best and the median CPU time (user + system) of the whole process, from
``getrusage(RUSAGE_CHILDREN)``. No timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PARITY = Path(os.environ.get("EVIDENCE_RANK_PARITY", REPO / "tests" / "parity" / "cases"))
_OUT = Path("/dev/shm") if Path("/dev/shm").is_dir() else None


def _cpu(checkout: Path, argv: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "ranking.cli", *argv], cwd=checkout, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=30, help="runs of each command per checkout (default 30)")
    p.add_argument("--reports", type=int, default=50, help="parity reports in the ledger (default 50)")
    p.add_argument("--against", type=Path, help="another checkout to measure the same way")
    args = p.parse_args()
    checkouts = {"this": REPO, **({"against": args.against.resolve()} if args.against else {})}
    reports = sorted(str(f) for f in PARITY.glob("*/expected.report.json"))[: args.reports]
    work = Path(tempfile.mkdtemp(prefix="bench-ledger-", dir=_OUT))
    # The example signed by a fresh key, and a trust file naming it (the same files for every checkout).
    bundle = work / "example.json"
    bundle.write_bytes((REPO / "fixtures" / "example.json").read_bytes())
    keygen = [sys.executable, "-m", "ranking.cli", "keygen", "--out", str(work / "bench.key"), "--name", "Bench CI"]
    trust = subprocess.run(keygen, cwd=REPO, check=True, capture_output=True).stdout
    (work / "trusted-signers").write_bytes(trust)
    sign = [sys.executable, "-m", "ranking.cli", "sign", str(bundle), "--key", str(work / "bench.key")]
    subprocess.run(sign, cwd=REPO, check=True, capture_output=True)
    commands = {
        "score --ledger": lambda n: ["score", str(REPO / "fixtures" / "example.json"), "--out-dir",
                                     str(work / f"out-{n}"), "--ledger", str(work / f"{n}.db"), "--quiet"],
        "score --trust --ledger": lambda n: ["score", str(bundle), "--trust", str(work / "trusted-signers"),
                                             "--out-dir", str(work / f"out-{n}"), "--ledger",
                                             str(work / f"{n}-signed.db"), "--quiet"],
        "ledger verify": lambda n: ["ledger", "verify", str(work / f"{n}.db")],
        "ledger export": lambda n: ["ledger", "export", str(work / f"{n}.db")],
    }  # fmt: skip
    for name, checkout in checkouts.items():
        # Compiled first: with PYTHONDONTWRITEBYTECODE set, a checkout without __pycache__ would pay
        # for compiling every module on every run (~25 ms here), and measure that instead.
        compile_all = [sys.executable, "-m", "compileall", "-q", "curator_io", "validator", "ranking"]
        subprocess.run(compile_all, cwd=checkout, check=True, capture_output=True)
        _cpu(checkout, ["ledger", "add", str(work / f"{name}.db"), *reports])
    print(f"command: python bench/ledger_commands.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"a ledger of {len(reports)} parity reports, under {work.parent}; load average {os.getloadavg()[0]:.2f}\n")
    print("| command | " + " | ".join(f"{n}: best / median ms" for n in checkouts) + " |")
    print("|---|" + "---:|" * len(checkouts))
    for label, argv in commands.items():
        times: dict[str, list[float]] = {n: [] for n in checkouts}
        for i in range(args.runs):
            order = list(checkouts.items()) if i % 2 == 0 else list(checkouts.items())[::-1]
            for name, checkout in order:
                times[name].append(_cpu(checkout, argv(name)))
        cells = [f"{min(t) * 1000:.0f} / {statistics.median(t) * 1000:.0f}" for t in times.values()]
        print(f"| {label} | " + " | ".join(cells) + " |")
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
