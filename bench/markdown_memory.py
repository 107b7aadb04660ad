"""What reading a Markdown memory costs, next to the same memory as JSON (issue 49).

    python bench/markdown_memory.py [--instructions 500] [--rounds 15] [--text-bytes 120]

A memory of N instructions (scopes of all three levels, ordinary texts of about
``--text-bytes`` bytes, some with a line break or an ``&``) is written both ways: as an
AGENTS.md with prose around its managed section, and as apply's JSON. Each round reads both
through the one door, ``curator_io.read_memory`` (Markdown: the CommonMark parse, the section
checked line by line, each digest recomputed; JSON: the I-JSON parse), interleaved, CPU time
per read; then the figures: the median and the fastest of each, and their ratio. A row for a
10 MB file that is refused before it is parsed, one for writing the section, and one for a
file that is mostly prose (1 MiB of paragraphs and lists), which the CommonMark parse dominates.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from curator_io import canon, read_memory, seal  # noqa: E402
from curator_io.errors import InputError  # noqa: E402
from curator_io.markdown.document import write_markdown_memory  # noqa: E402

_SCOPES = (
    {"level": "global"},
    {"level": "repository", "repository": "acme/shop"},
    {"level": "path", "repository": "acme/shop", "path": "src/api"},
)


def memory_of(n: int, text_bytes: int) -> dict[str, object]:
    """A memory of ``n`` sealed instructions in key order, as apply writes one."""
    instructions = []
    for i in range(n):
        words = f"Instruction {i}: run `make test` before you push, and read CONTRIBUTING.md first. "
        text = (words * (text_bytes // len(words) + 1))[:text_bytes].rstrip()
        if i % 10 == 0:
            text += "\nA second line & more."
        body = {"key": f"k.{i:05d}", "text": text, "scope": _SCOPES[i % 3], "origin": "curated"}
        instructions.append(seal(body))
    return {"version": 7, "instructions": instructions}


def files_of(memory: dict[str, object]) -> tuple[bytes, bytes]:
    """The memory as an AGENTS.md with prose around its section, and as canonical JSON."""
    prose = b"# AGENTS.md\n\nGuidance for coding agents.\n\n"
    return prose + write_markdown_memory(memory) + b"\n## Releases\n\nTag from main.\n", canon(memory)


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--instructions", type=int, default=500)
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--text-bytes", type=int, default=120)
    args = p.parse_args(argv)
    memory = memory_of(args.instructions, args.text_bytes)
    markdown, json_ = files_of(memory)
    assert canon(read_memory(markdown, markdown=True).memory) == json_  # the same memory, both ways
    times: dict[str, list[float]] = {"markdown": [], "json": []}
    read_memory(markdown, markdown=True)  # the first Markdown read imports markdown-it: not measured
    for _ in range(args.rounds):
        times["markdown"].append(_cpu(lambda: read_memory(markdown, markdown=True)))
        times["json"].append(_cpu(lambda: read_memory(json_, markdown=False)))
    big = markdown + b"x" * (10 << 20)

    def refused() -> None:
        try:
            read_memory(big, markdown=True)
        except InputError:
            return
        raise AssertionError("a 10 MB file was read")

    print(
        f"{args.instructions} instructions, texts of about {args.text_bytes} bytes; "
        f"Markdown {len(markdown):,} bytes, JSON {len(json_):,} bytes; {args.rounds} rounds, CPU ms per read:"
    )
    for name, found in times.items():
        print(f"  {name:<10} median {statistics.median(found) * 1000:8.2f}  best {min(found) * 1000:8.2f}")
    ratio = statistics.median(times["markdown"]) / statistics.median(times["json"])
    print(f"  markdown/json {ratio:.1f}x (median), {min(times['markdown']) / min(times['json']):.1f}x (best)")
    print(f"  writing the section: {_cpu(lambda: write_markdown_memory(memory)) * 1000:.2f} ms")
    paragraph = b"Some prose with `code`, *emphasis* and a [link](https://example.com).\n\n- a bullet\n- another\n\n"
    prose = paragraph * ((1 << 20) // len(paragraph))
    heavy = prose + write_markdown_memory(memory_of(50, args.text_bytes))
    seconds = min(_cpu(lambda: read_memory(heavy, markdown=True)) for _ in range(3))
    print(f"  1 MiB of prose (paragraphs and lists) around 50 instructions: {seconds * 1000:.0f} ms")
    print(f"  a 10 MB file, refused: {_cpu(refused) * 1000:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
