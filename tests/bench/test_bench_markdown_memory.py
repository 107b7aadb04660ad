"""bench/markdown_memory.py runs and reports every row (its times are measured, never asserted)."""

from __future__ import annotations

import pytest

from bench import markdown_memory


def test_the_markdown_memory_bench_prints_each_row(capsys: pytest.CaptureFixture[str]) -> None:
    assert markdown_memory.main(["--instructions", "20", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("20 instructions, texts of about 120 bytes; Markdown ")
    for row in (
        "  markdown ",
        "  json ",
        "  markdown/json ",
        "  writing the section: ",
        "  1 MiB of prose",
        "  a 10 MB file",
    ):
        assert row in out
