"""What reading and comparing a Markdown memory costs on input made to be slow (issue 55, finding 3).

    python bench/hostile_markdown.py [--rounds 3] [--difflib]

Each row is a file that holds a managed section and prose made to be slow: 512 KiB of ``[`` or
``![`` (or emphasis, backticks, ``<``) in a paragraph that also holds an HTML comment, a list
nested past the parser's limit, 1 MiB of ordinary prose; then the gate's prose comparison of
memory-after against its base, on 8,000 short paragraphs with two edited, and on the largest
file allowed (4 MiB of repeated lines) with two edited. CPU time, the fastest of ``--rounds``,
in seconds and in seconds a megabyte (the page promises about a second a megabyte).
``--difflib`` adds the comparison as it was (``difflib.SequenceMatcher``) on the 8,000
paragraphs, for the row before.
"""

from __future__ import annotations

import argparse
import difflib
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from curator_io.errors import InputError  # noqa: E402
from curator_io.markdown.document import read_markdown_memory  # noqa: E402
from ranking.checking.prose import prose_changes  # noqa: E402

SECTION = "<!-- evidence-rank:memory version=1 -->\n\n<!-- /evidence-rank:memory -->\n"
K512 = 512 << 10


def _cpu(fn: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        try:
            fn()
        except InputError:
            pass  # a refusal is an answer: its time is what is measured
        best = min(best, time.process_time() - start)
    return best


def reading_rows() -> dict[str, bytes]:
    rows = {
        "512 KiB of [ after a comment": "a <!-- -->" + "[" * K512,
        "512 KiB of ![ after a comment": "a <!-- -->" + "![" * (K512 // 2),
        "512 KiB of *a_ after a comment": "a <!-- -->" + "*a_ " * (K512 // 4),
        "512 KiB of `a` after a comment": "a <!-- -->" + "`a` " * (K512 // 4),
        "512 KiB of lines of [ after a comment": "a <!-- -->\n" + ("[" * 63 + "\n") * (K512 // 64),
        "a list nested 12 deep, then 512 KiB": "- " * 12 + "x\n\n" + "word " * (K512 // 5),
        "1 MiB of paragraphs and lists": ("Some prose, `code` and *emphasis*.\n\n- an item\n\n") * ((1 << 20) // 48),
    }
    return {name: (SECTION + "\n" + body + "\n").encode() for name, body in rows.items()}


def comparison_rows() -> dict[str, tuple[bytes, bytes]]:
    short = "".join(f"Paragraph {i % 50}.\n\n" for i in range(8000))
    edited = short.replace("Paragraph 7.\n", "Paragraph seven.\n", 1)
    edited = edited[: len(edited) // 2] + edited[len(edited) // 2 :].replace("Paragraph 9.\n", "Nine.\n", 1)
    big = "Same line.\n\n" * ((4 << 20) // 12 - 10)
    big_edited = "Changed.\n" + big[9:-12] + "Changed.\n\n\n"
    return {
        "8,000 short paragraphs, two edited": (
            (SECTION + "\n" + short).encode(),
            (SECTION + "\n" + edited).encode(),
        ),
        "4 MiB of one repeated line, two edited": (
            (SECTION + "\n" + big).encode(),
            (SECTION + "\n" + big_edited).encode(),
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--difflib", action="store_true")
    args = parser.parse_args(argv)
    read_markdown_memory(SECTION.encode())  # the import of markdown-it, once
    print("| input | bytes | read, s (CPU) | s a MB |")
    print("| --- | ---: | ---: | ---: |")
    for name, data in reading_rows().items():
        took = _cpu(lambda data=data: read_markdown_memory(data), args.rounds)  # type: ignore[misc]
        print(f"| {name} | {len(data):,} | {took:.3f} | {took / (len(data) / 1e6):.2f} |")
    print()
    print("| memory-after against its base | bytes | compare, s (CPU) | s a MB |")
    print("| --- | ---: | ---: | ---: |")
    for name, (base, after) in comparison_rows().items():
        mine, theirs = read_markdown_memory(after), read_markdown_memory(base)
        took = _cpu(lambda mine=mine, theirs=theirs: prose_changes(mine, theirs), args.rounds)  # type: ignore[misc]
        found = len(prose_changes(mine, theirs))
        print(f"| {name} ({found} changes) | {len(after):,} | {took:.3f} | {took / (len(after) / 1e6):.2f} |")
        if args.difflib and len(after) < 1 << 20:
            a = [t for _, t in theirs.prose_lines()]
            b = [t for _, t in mine.prose_lines()]
            took = _cpu(lambda a=a, b=b: difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes(), 1)  # type: ignore[misc]
            print(f"| the same, by difflib (before) | {len(after):,} | {took:.3f} | {took / (len(after) / 1e6):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
