"""What reading an agent's log costs as it grows (issue 57): time near-linear in its bytes, memory
bounded by a line and by the steps kept, not by the file.

    python bench/transcripts.py [--megabytes 25 50 100] [--rounds 3]

A Claude Code session of about N MB is written to a temporary folder, in the shape real ones
have: a prompt, then rounds of a tool call (``Bash``, ``Read``, ``Edit``) and its result, the
results a few KB of output each and every fiftieth a ``Read`` of 200 KB, the model's words
between them, a ``file-history-snapshot`` now and then. Each size is read ``--rounds`` times,
each time in a fresh process through the one door (``ranking.read_transcript_file``), which
reports its CPU time and its peak resident memory (``ru_maxrss``); the figures are the fastest
CPU time, the largest peak, MB/s, and how the time and the memory grew from the size before.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SESSION = "5b0c1d9e-6a3f-4c2e-9d41-7e2a0f3b8c11"
_CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[2])
from ranking import read_transcript_file
start = time.process_time()
t = read_transcript_file(sys.argv[1])
cpu = time.process_time() - start
steps = sum(len(s.steps) for s in t.sessions)
evidence = sum(len(s.observations) for s in t.sessions)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"cpu": cpu, "rss": rss, "steps": steps, "evidence": evidence, "lines": t.lines}))
"""


def _record(n: int, kind: str, body: dict[str, object]) -> bytes:
    at = f"2026-11-27T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:{n % 60:02d}.000Z"
    head = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/home/dev/shop",
            "sessionId": SESSION, "version": "2.1.3", "gitBranch": "main"}  # fmt: skip
    return json.dumps({**head, **body, "type": kind, "uuid": f"u-{n:012d}", "timestamp": at}).encode() + b"\n"


def write_session(path: Path, megabytes: float) -> int:
    """A session of about ``megabytes`` MB at ``path``; its size in bytes."""
    target, size, r = int(megabytes * 1_000_000), 0, 0
    output = ("PASSED tests/test_orders.py::test_total_of_an_order_with_lines " * 60)[:3000]
    big = "x = 1\n" * 34_000  # a Read of a 200 KB file
    calls = (
        ("Bash", {"command": "make test"}),
        ("Read", {"file_path": "/home/dev/shop/src/orders/totals.py"}),
        ("Edit", {"file_path": "/home/dev/shop/src/orders/totals.py", "old_string": "a", "new_string": "b"}),
    )
    said = {"type": "text", "text": "Running the tests again after the change to the totals."}
    with path.open("wb") as f:
        first = _record(0, "user", {"message": {"role": "user", "content": "Fix the failing order test."}})
        f.write(first)
        size += len(first)
        while size < target:
            r += 1
            tool, given = calls[r % 3]
            call = {"type": "tool_use", "id": f"toolu_{r}", "name": tool, "input": given}
            content = big if r % 50 == 0 else output
            result = {"type": "tool_result", "tool_use_id": f"toolu_{r}", "content": content, "is_error": r % 7 == 0}
            lines = [
                _record(2 * r, "assistant", {"message": {"role": "assistant", "content": [said, call]}}),
                _record(2 * r + 1, "user", {"message": {"role": "user", "content": [result]}}),
            ]
            if r % 30 == 0:
                lines.append(
                    json.dumps({"type": "file-history-snapshot", "messageId": f"m{r}", "snapshot": {}}).encode() + b"\n"
                )
            for line in lines:
                f.write(line)
                size += len(line)
    return size


def measure(path: Path) -> dict[str, float]:
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(REPO)], capture_output=True, check=True)
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, nargs="+", default=[25, 50, 100])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print("MB  lines  steps  evidence  cpu s (fastest)  MB/s  peak RSS MB (largest)  time x  RSS x")
    before: dict[str, float] | None = None
    with tempfile.TemporaryDirectory(prefix="evidence-rank-bench-") as folder:
        for megabytes in args.megabytes:
            path = Path(folder) / f"session-{megabytes:g}.jsonl"
            size = write_session(path, megabytes)
            runs = [measure(path) for _ in range(args.rounds)]
            row = {**runs[0], "cpu": min(r["cpu"] for r in runs), "rss": max(r["rss"] for r in runs)}
            grew = f"{row['cpu'] / before['cpu']:.2f}  {row['rss'] / before['rss']:.2f}" if before else "-  -"
            print(f"{size / 1e6:.1f}  {row['lines']:.0f}  {row['steps']:.0f}  {row['evidence']:.0f}  "
                  f"{row['cpu']:.2f}  {size / 1e6 / row['cpu']:.0f}  {row['rss']:.0f}  {grew}")  # fmt: skip
            before = row
            path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
