"""What ``--trust`` adds to ``score`` on the shipped example (issue 26; target: at most 5%).

    python bench/signatures.py [--repeat 60] [--inprocess 300]

* **CLI**: ``evidence-rank score fixtures/example.json`` with and without
  ``--trust`` (an Ed25519 key, the bundle signed beside it), alternating, each
  process's CPU time (``RUSAGE_CHILDREN``) and wall time; the median and range.
* **in-process**: ``ranking.cli.main`` on the same arguments, in one process
  after a warm-up run, so imports are paid once and what is left is reading
  the trust file and the signature and verifying it.
* **imports**: CPU of a process importing what ``score`` imports, alone, with
  PyCA's Rust binding, and with the whole verifying path; then one
  ``python -X importtime`` of the verifying path's top-level imports.

The key is made from a fixed seed so every run signs the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.commands import CLI, EXAMPLE, PACKAGES, cpu_of, line  # noqa: E402


def _setup(work: Path) -> list[str]:
    """A key, a trust file and the example's signature in ``work``; the ``--trust`` arguments."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    key = ed25519.Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"bench").digest())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    (work / "key").write_bytes(pem)
    (work / "example.json").write_bytes(EXAMPLE.read_bytes())
    sign = [*CLI, "sign", str(work / "example.json"), "--key", str(work / "key")]
    subprocess.run(sign, check=True, stdout=subprocess.DEVNULL)
    from ranking.signing.private_keys import load_private_key

    public = load_private_key(pem).public
    (work / "trust").write_text(f"{public.keyid} {public.openssh} bench\n")
    return ["--trust", str(work / "trust")]


def _timed(cmd: list[str]) -> tuple[float, float]:
    start = time.perf_counter()
    cpu = cpu_of(cmd)
    return cpu, time.perf_counter() - start


def cli(repeat: int, work: Path, trust: list[str]) -> None:
    base = [*CLI, "score", str(work / "example.json"), "--out-dir", str(work / "out"), "--quiet"]
    commands = {"score": base, "score --trust": [*base, *trust]}
    for cmd in commands.values():
        _timed(cmd)
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    wall: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, cmd in commands.items():
            c, w = _timed(cmd)
            cpu[name].append(c)
            wall[name].append(w)
    for name in commands:
        print(line(f"CPU  {name}", cpu[name], 1000, "ms"))
        print(line(f"wall {name}", wall[name], 1000, "ms"))
    for what, values in (("CPU", cpu), ("wall", wall)):
        added = statistics.median(values["score --trust"]) / statistics.median(values["score"]) - 1
        print(f"{what}: --trust adds {added * 100:+.1f}% (median against median; target <= +5%)")


def inprocess(repeat: int, work: Path, trust: list[str]) -> None:
    from ranking.cli import main

    base = ["score", str(work / "example.json"), "--out-dir", str(work / "in"), "--quiet"]
    runs = {"score": base, "score --trust": [*base, *trust]}
    for argv in runs.values():
        assert main(argv) == 0
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, argv in runs.items():
            start = time.process_time()
            main(argv)
            times[name].append(time.process_time() - start)
    for name, values in times.items():
        print(line(f"in-process {name}", values, 1000, "ms"))
    added = statistics.median(times["score --trust"]) - statistics.median(times["score"])
    print(f"in-process: --trust adds {added * 1000:.2f} ms (median against median)")


def import_cost(repeat: int) -> None:
    """CPU of a process that imports what ``score`` does, with and without the verifying path's modules."""
    score = "import ranking.cli.commands.score"
    verify = score + "; import ranking.signing.trust; import cryptography.hazmat.primitives.asymmetric.ed25519"
    binding = score + "; import cryptography.exceptions"  # which loads the Rust binding, and little else
    runs = (("score's imports", score), ("+ the Rust binding", binding), ("+ the verifying path", verify))
    commands = {name: [sys.executable, "-c", code] for name, code in runs}
    for cmd in commands.values():
        cpu_of(cmd)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, cmd in commands.items():
            times[name].append(cpu_of(cmd))
    for name, values in times.items():
        print(line(f"import {name}", values, 1000, "ms"))
    base = statistics.median(times["score's imports"])
    for name in ("+ the Rust binding", "+ the verifying path"):
        print(f"{name}: {(statistics.median(times[name]) - base) * 1000:+.2f} ms (median against median)")


def imports() -> None:
    code = (
        "from ranking.signing.trust import check_signature\n"
        "from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey\n"
        "from cryptography.exceptions import InvalidSignature\n"
    )
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import ranking.cli.commands.score\n" + code],
        capture_output=True, text=True, check=True, cwd=REPO,
    )  # fmt: skip
    top: dict[str, int] = {}
    for row in done.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| ( *)(\S+)", row)
        if m and m.group(2) == "" and m.group(3).split(".")[0] in ("cryptography", "curator_io", "ranking"):
            top[m.group(3)] = int(m.group(1))
    for name, us in top.items():
        if name.startswith(("cryptography", "ranking.signing.")):
            print(f"import {name:<60} {us / 1000:6.2f} ms (cumulative)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=60)
    p.add_argument("--inprocess", type=int, default=300)
    args = p.parse_args(argv)
    subprocess.run([sys.executable, "-m", "compileall", "-q", *PACKAGES], check=True, cwd=REPO)
    print(f"machine: nproc={os.cpu_count()}, Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        trust = _setup(work)
        cli(args.repeat, work, trust)
        inprocess(args.inprocess, work, trust)
    import_cost(args.repeat)
    imports()
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
