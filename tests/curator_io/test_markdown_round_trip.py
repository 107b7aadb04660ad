"""Exact round trip (docs/markdown-memory.md): for every memory document the Markdown form holds,
Markdown written from it reads back to the same canonical memory, in whatever file it is put."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from curator_io import canon, seal
from curator_io.grammar import ID_PATTERN, is_path, is_repo, utf8_len
from curator_io.markdown.document import read_markdown_memory, splice_memory, write_markdown_memory
from curator_io.markdown.line_values import read_text, written_text

# --- generated memories---------------------------------------------------------------

_TRICKY = list(" \n\r\t<>!?&#;-+*`~[]:19.)amp\u2028\u2029\u202e\x00\x85\x7fé\U0001f600=_|\\") + ["<!--", "-->", "##["]
tricky_text = st.lists(st.sampled_from(_TRICKY), min_size=1, max_size=40).map("".join)
any_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=1400)


def _fit(text: str) -> str:
    """``text`` cut to at most 4,000 UTF-8 bytes, at a character."""
    return text.encode("utf-8")[:4000].decode("utf-8", "ignore") or "x"


@st.composite
def long_text(draw: st.DrawFn) -> str:
    """A text of exactly 4,000 bytes, or as near as its characters allow."""
    unit = draw(st.sampled_from(["a", "é", "\U0001f600", "&", "\n", "<!", " "]))
    return _fit(unit * 4000)


texts = st.one_of(tricky_text, any_text.map(_fit), long_text())
_NAME = st.lists(st.sampled_from(list("ab/` -.é\u202e#<>") + ["``", "a b"]), min_size=1, max_size=12).map("".join)
repos = _NAME.filter(is_repo)
paths = _NAME.filter(is_path)
scopes = st.one_of(
    st.just({"level": "global"}),
    st.builds(lambda r: {"level": "repository", "repository": r}, repos),
    st.builds(lambda r, p: {"level": "path", "repository": r, "path": p}, repos, paths),
)
keys = st.from_regex(ID_PATTERN, fullmatch=True)


@st.composite
def memories(draw: st.DrawFn) -> dict[str, Any]:
    """A memory the Markdown form holds: any version, keys unique and in any order, scopes of all
    three levels (runs of one scope and scopes coming back), any origin, texts up to 4,000 bytes."""
    chosen = draw(st.lists(keys, unique=True, max_size=8))
    shared = draw(scopes)
    instructions = [
        seal(
            {
                "key": key,
                "text": draw(texts),
                "scope": draw(st.one_of(st.just(shared), scopes)),
                "origin": draw(st.sampled_from(["user", "curated", "repository"])),
            }
        )
        for key in chosen
    ]
    return {"version": draw(st.integers(0, 2**53 - 1)), "instructions": instructions}


@settings(max_examples=300, deadline=None)
@given(memories())
def test_markdown_written_from_a_memory_reads_back_to_the_same_canonical_memory(memory: dict[str, Any]) -> None:
    written = write_markdown_memory(memory)

    read = read_markdown_memory(written)

    assert canon(read.memory) == canon(memory)
    assert write_markdown_memory(read.memory) == written


@settings(max_examples=100, deadline=None)
@given(memories(), memories(), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_a_section_put_into_a_file_keeps_every_byte_of_the_prose(
    first: dict[str, Any], second: dict[str, Any], newline: str, bom: bool
) -> None:
    section = write_markdown_memory(first, newline).decode("utf-8")
    before = ("\ufeff" if bom else "") + f"# AGENTS.md{newline}{newline}- a human bullet{newline}{newline}"
    after = f"{newline}Trailing prose with `<!-- evidence-rank:memory version=1 -->` in a code span."
    original = (before + section + after).encode("utf-8")

    spliced = splice_memory(read_markdown_memory(original), second)

    again = read_markdown_memory(spliced)
    assert canon(again.memory) == canon(second)
    text = spliced.decode("utf-8")
    assert text.startswith(before) and text.endswith(after)
    assert set(re.findall(r"\r?\n", text[len(before) : len(text) - len(after)])) <= {newline}


@given(texts)
def test_a_text_has_exactly_one_written_form_and_it_is_one_line(text: str) -> None:
    written = written_text(text)

    assert read_text(written) == (text, None)
    assert not re.search("[\r\n\t\u2028\u2029]", written)
    assert "<!" not in written and "<?" not in written


def test_every_text_spec_allows_is_held_by_a_memory_of_4000_byte_texts() -> None:
    texts = ["é" * 2000, "\U0001f600" * 1000, "\n" * 4000, " " * 4000, "<!" * 2000]
    memory = {
        "version": 1,
        "instructions": [
            seal({"key": f"k{i}", "text": t, "scope": {"level": "global"}, "origin": "user"})
            for i, t in enumerate(texts)
        ],
    }
    assert all(utf8_len(t) == 4000 for t in texts)

    assert canon(read_markdown_memory(write_markdown_memory(memory)).memory) == canon(memory)
