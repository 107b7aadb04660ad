"""What the look-alike advice (issue 50) costs ``gate`` and ``score`` on the large bundle.

    python bench/gate_lookalikes.py [--repeat 10] [--callgrind 1] [--before REV]

The bundle: ``bench/generate.py``'s 2,000 proposals (seed 1) with its memory grown to 500
instructions (the generator's words, keys ``mem.pad-<k>``), resealed and written indented in
SPEC order, as curator files are. Memory-after is what ``apply`` writes for its report.

Each command runs as a whole process, from this checkout (**after**) and from ``REV`` (**before**,
default the commit this branch started from, extracted with ``git archive`` into a scratch
folder and put first on ``sys.path``): the same interpreter and packages, only the project's code
differs. Interleaved, ``--repeat`` rounds after one unmeasured round; CPU time (user + system)
of each child, median and per-round ratio.

* ``gate`` with ``--memory-before``: target at most +10% (the look-alikes of what the write adds
  or changes, against the 500 instructions it keeps; rapidfuzz imported);
* ``score -q``: target unchanged (look-alikes are computed only when shown);
* ``score`` printing its table: what showing them costs (no target).

``--callgrind N`` also counts the instructions of each command, before and after, under
valgrind (median of N runs each), which a busy machine does not move. Last, in process, the
look-alike step alone (:func:`ranking.checking.gate.lookalike_warnings`) against the whole
in-process gate.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.commands import cpu_of  # noqa: E402
from bench.generate import WORDS, generate_bundle  # noqa: E402
from bench.layouts import spec_ordered  # noqa: E402
from curator_io.canonical import digest  # noqa: E402
from curator_io.sealing import seal_bundle  # noqa: E402

PROPOSALS, MEMORY = 2000, 500
RUN = "import sys; sys.path.insert(0, sys.argv.pop(1)); from ranking.cli import main; sys.exit(main(sys.argv[1:]))"


def _bundle(work: Path) -> Path:
    doc = generate_bundle(PROPOSALS, 1)
    rng = random.Random(50)
    memory = doc["memory"]["instructions"]
    for k in range(MEMORY - len(memory)):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 12)))
        inst = {
            "key": f"mem.pad-{k}",
            "text": f"{words.capitalize()} (pad {k}).",
            "scope": {"level": "repository", "repository": "acme/api"},
            "origin": "curated",
        }
        memory.append({**inst, "digest": digest(inst)})
    del doc["frozen"]
    path = work / "bundle.json"
    path.write_bytes(orjson.dumps(spec_ordered(seal_bundle(doc)), option=orjson.OPT_INDENT_2))
    return path


def _checkout(rev: str, work: Path) -> Path:
    """The project's files at ``rev``, extracted (no worktree, nothing of git's touched)."""
    root = work / "before"
    root.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(root, filter="data")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "ranking"), str(root / "curator_io"),
                    str(root / "validator")], check=True)  # fmt: skip
    return root


def _cmd(root: Path, *argv: str) -> list[str]:
    return [sys.executable, "-c", RUN, str(root), *argv]


def _instructions(cmd: list[str]) -> int:
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))  # type: ignore[union-attr]


def _compare(name: str, before: list[str], after: list[str], repeat: int) -> None:
    cpu_of(before)
    cpu_of(after)
    b, a = [], []
    for _ in range(repeat):
        b.append(cpu_of(before))
        a.append(cpu_of(after))
    ratios = [y / x for x, y in zip(b, a, strict=True)]
    print(
        f"{name:<22} before {statistics.median(b) * 1000:7.1f} ms  after {statistics.median(a) * 1000:7.1f} ms  "
        f"{(statistics.median(a) / statistics.median(b) - 1) * 100:+5.1f}% (medians); per round "
        f"{(min(ratios) - 1) * 100:+.1f}% to {(max(ratios) - 1) * 100:+.1f}%, median "
        f"{(statistics.median(ratios) - 1) * 100:+.1f}%; fastest of each {(min(a) / min(b) - 1) * 100:+.1f}%"
    )


def _in_process(bundle: Path, report: Path, after: Path, base: Path) -> None:
    from curator_io import load_bundle
    from curator_io.jsonio import parse_json
    from ranking.checking.gate import lookalike_warnings
    from ranking.cli import main

    loaded, memory = load_bundle(bundle.read_bytes()), parse_json(after.read_bytes())
    step = []
    for _ in range(50):
        start = time.process_time()
        found = lookalike_warnings(loaded, memory)
        step.append(time.process_time() - start)
    whole = []
    argv = ["gate", "--bundle", str(bundle), "--report", str(report), "--memory-after", str(after)]
    for _ in range(10):
        start = time.process_time()
        with redirect_stdout(io.StringIO()):
            main([*argv, "--memory-before", str(base)])
        whole.append(time.process_time() - start)
    s, w = statistics.median(step), statistics.median(whole)
    print(f"in process: the look-alike step {s * 1000:.2f} ms ({len(found)} warnings), the whole gate "
          f"{w * 1000:.1f} ms: {s / w * 100:.2f}%")  # fmt: skip


def main_(repeat: int, callgrind: int, rev: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bundle = _bundle(work)
        before = _checkout(rev, work)
        out, after, base = work / "out", work / "memory.json", work / "base.json"
        subprocess.run(_cmd(REPO, "score", str(bundle), "--out-dir", str(out), "-q"), check=True)
        subprocess.run(_cmd(REPO, "apply", str(bundle), str(out / "report.json"), "--out", str(after)), check=True)
        base.write_text(json.dumps(json.loads(bundle.read_bytes())["memory"], indent=2), "utf-8")
        memory = json.loads(after.read_bytes())
        print(f"bundle: {PROPOSALS} proposals, {bundle.stat().st_size / 1e6:.1f} MB indented in SPEC order; "
              f"memory-after {len(memory['instructions'])} instructions")  # fmt: skip
        gate = ["gate", "--bundle", str(bundle), "--report", str(out / "report.json"), "--memory-after", str(after)]
        gate += ["--memory-before", str(base)]
        _compare("gate", _cmd(before, *gate), _cmd(REPO, *gate), repeat)
        score = ["score", str(bundle), "--out-dir", str(work / "scored")]
        _compare("score -q", _cmd(before, *score, "-q"), _cmd(REPO, *score, "-q"), repeat)
        _compare("score (the table)", _cmd(before, *score), _cmd(REPO, *score), repeat)
        for name, argv in (("gate", gate), ("score -q", [*score, "-q"]), ("score (the table)", score)):
            if not callgrind:
                break
            b = statistics.median(_instructions(_cmd(before, *argv)) for _ in range(callgrind))
            a = statistics.median(_instructions(_cmd(REPO, *argv)) for _ in range(callgrind))
            print(f"{name} instructions: before {b / 1e6:,.1f} M, after {a / 1e6:,.1f} M: {(a / b - 1) * 100:+.2f}%")
        _in_process(bundle, out / "report.json", after, base)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--callgrind", type=int, default=0, metavar="N", help="also count instructions, N runs each")
    parser.add_argument("--before", default="4776fa1", metavar="REV", help="the code without look-alikes")
    args = parser.parse_args()
    main_(args.repeat, args.callgrind, args.before)
