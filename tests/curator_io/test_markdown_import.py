"""Adopting a Markdown file written by hand (docs/markdown-memory.md, "Importing a file written by
hand"): a managed section is added where the team says, and nothing a person wrote moves away
from its heading."""

from __future__ import annotations

import pytest

from curator_io.errors import ConfigError, InputError
from curator_io.markdown.adoption import Placement, import_markdown
from curator_io.markdown.document import read_markdown_memory
from curator_io.models import Scope

EVERYWHERE = Scope("global")
SHOP = Scope("repository", "acme/shop")

# A file of the shapes real AGENTS.md files have: many headings, a comment, nested and
# sentence-continuing bullets, a #### subsection, a code fence, a list introduced by a colon.
HAND_WRITTEN = """\
# Working on the shop

@docs/agents-extra.md

## Branches

<!-- TODO: simplify once the old line is retired -->

- `main` takes new work. Remove an API outright
  and say so in `docs/changes.md`.
- Backports go to `v1`.

## Testing

- Run the tests with `make test`.
- Never mock the database.
- Avoid fixed sleeps in tests. Instead:
  - wait on an event
- Keep each test under a second.
- Check the log when a test fails:
- the first error, or
- the last warning

#### Slow tests

Run them when you change:

- the schema
- the importer

```sh
make slow
```

## Style

- [docs/style.md](docs/style.md)
- `ruff format`
- Format with ruff.
"""


def _lines(data: bytes) -> list[str]:
    return data.decode().splitlines()


def test_by_default_an_empty_section_is_added_at_the_end_and_every_line_before_stays() -> None:
    imported = import_markdown(HAND_WRITTEN.encode(), scope=EVERYWHERE)

    assert imported.data.decode() == HAND_WRITTEN + (
        "\n<!-- evidence-rank:memory version=0 -->\n\n<!-- /evidence-rank:memory -->\n"
    )
    assert imported.memory == {"version": 0, "instructions": []}
    assert imported.start == len(HAND_WRITTEN.splitlines()) + 2
    assert imported.keys == ()


def test_the_outline_says_each_headings_bullets_and_lines() -> None:
    outline = import_markdown(HAND_WRITTEN.encode(), scope=EVERYWHERE).outline

    assert [(h.line + 1, h.shown(), len(h.items)) for h in outline] == [
        (0, "(before the first heading)", 0),
        (1, "# Working on the shop", 0),
        (5, "## Branches", 2),
        (13, "## Testing", 7),
        (24, "#### Slow tests", 2),
        (35, "## Style", 3),
    ]


def test_at_a_heading_the_empty_section_ends_that_headings_part_before_its_subheading() -> None:
    imported = import_markdown(HAND_WRITTEN.encode(), scope=EVERYWHERE, placement=Placement(at="testing"))

    lines = _lines(imported.data)
    assert lines[21:27] == [
        "- the last warning",
        "",
        "<!-- evidence-rank:memory version=0 -->",
        "",
        "<!-- /evidence-rank:memory -->",
        "",
    ]
    assert lines[27] == "#### Slow tests"
    assert imported.start == 24
    assert [line for n, line in enumerate(lines) if not 22 <= n <= 25] == HAND_WRITTEN.splitlines()


def test_adopting_a_heading_moves_its_bullets_that_stand_alone_into_the_section_where_its_list_stood() -> None:
    imported = import_markdown(HAND_WRITTEN.encode(), scope=SHOP, placement=Placement(adopt="## Testing"))

    assert _lines(imported.data)[12:33] == [
        "## Testing",
        "",
        "<!-- evidence-rank:memory version=0 -->",
        "",
        "## In `acme/shop`",
        "",
        "- Run the tests with `make test`. <!-- key=testing.1 origin=repository -->",
        "- Never mock the database. <!-- key=testing.2 origin=repository -->",
        "- Keep each test under a second. <!-- key=testing.3 origin=repository -->",
        "",
        "<!-- /evidence-rank:memory -->",
        "",
        "- Avoid fixed sleeps in tests. Instead:",
        "  - wait on an event",
        "- Check the log when a test fails:",
        "- the first error, or",
        "- the last warning",
        "",
        "#### Slow tests",
        "",
        "Run them when you change:",
    ]
    assert imported.keys == ((15, "testing.1"), (16, "testing.2"), (19, "testing.3"))
    assert read_markdown_memory(imported.data).memory == imported.memory


def test_a_bullet_that_continues_a_sentence_or_holds_no_instruction_stays_in_the_prose_and_says_why() -> None:
    outline = import_markdown(HAND_WRITTEN.encode(), scope=EVERYWHERE).outline
    why = {item.first + 1: item.why for heading in outline for item in heading.items if item.text is None}

    assert why == {
        17: "not one paragraph (a nested list, a code block, or empty)",
        20: "it ends as a sentence that goes on into the next item",
        21: "it starts in lower case: it continues a sentence",
        22: "it starts in lower case: it continues a sentence",
        28: "its list finishes the sentence before it (which ends with a colon)",
        29: "its list finishes the sentence before it (which ends with a colon)",
        37: "it holds no instruction (only code, links or marks)",
        38: "it holds no instruction (only code, links or marks)",
    }


def test_a_bullet_of_several_lines_is_one_instruction_its_lines_trimmed_and_joined() -> None:
    imported = import_markdown(HAND_WRITTEN.encode(), scope=SHOP, placement=Placement(adopt="Branches"))

    assert [(i["key"], i["text"]) for i in imported.memory["instructions"]] == [
        ("branches.1", "`main` takes new work. Remove an API outright and say so in `docs/changes.md`."),
        ("branches.2", "Backports go to `v1`."),
    ]
    assert "<!-- TODO: simplify once the old line is retired -->\n\n<!-- evidence-rank:memory" in imported.data.decode()


def test_keys_are_zero_padded_so_that_their_order_is_the_files_order() -> None:
    raw = "## Rules\n\n" + "".join(f"- Rule number {n}.\n" for n in range(1, 13))

    imported = import_markdown(raw.encode(), scope=EVERYWHERE, placement=Placement(adopt="Rules"))

    keys = [i["key"] for i in imported.memory["instructions"]]
    assert keys == [f"rules.{n:02d}" for n in range(1, 13)]
    assert keys == sorted(keys)  # SPEC §8 sorts by key: the first apply keeps the file's order
    assert [i["text"] for i in imported.memory["instructions"]] == [f"Rule number {n}." for n in range(1, 13)]


def test_crlf_and_a_byte_order_mark_are_kept_and_the_section_takes_the_files_line_ending() -> None:
    raw = "\ufeff# Notes\r\n\r\n## Testing\r\n\r\n- Run make test.\r\n\r\n## Style\r\n\r\n- Use ruff.\r\n"

    adopted = import_markdown(raw.encode(), scope=EVERYWHERE, placement=Placement(adopt="Testing")).data
    at_end = import_markdown(raw.encode(), scope=EVERYWHERE).data

    assert adopted.decode() == (
        "\ufeff# Notes\r\n\r\n## Testing\r\n\r\n<!-- evidence-rank:memory version=0 -->\r\n\r\n## Everywhere\r\n\r\n"
        "- Run make test. <!-- key=testing.1 origin=repository -->\r\n\r\n<!-- /evidence-rank:memory -->\r\n"
        "\r\n## Style\r\n\r\n- Use ruff.\r\n"
    )
    assert (
        at_end.decode() == raw + "\r\n<!-- evidence-rank:memory version=0 -->\r\n\r\n<!-- /evidence-rank:memory -->\r\n"
    )


def test_a_file_without_a_final_line_ending_gets_one_before_the_section() -> None:
    imported = import_markdown("\ufeff# Notes\r\nJust prose".encode(), scope=EVERYWHERE)

    assert imported.data.decode() == (
        "\ufeff# Notes\r\nJust prose\r\n\r\n"
        "<!-- evidence-rank:memory version=0 -->\r\n\r\n<!-- /evidence-rank:memory -->\r\n"
    )


def test_an_empty_file_gets_the_section_alone() -> None:
    imported = import_markdown(b"", scope=EVERYWHERE)

    assert imported.data == b"<!-- evidence-rank:memory version=0 -->\n\n<!-- /evidence-rank:memory -->\n"


def test_adopting_a_heading_with_no_bullet_that_stands_alone_adds_the_empty_section_at_its_end() -> None:
    imported = import_markdown(HAND_WRITTEN.encode(), scope=EVERYWHERE, placement=Placement(adopt="Slow tests"))

    assert imported.memory["instructions"] == []
    assert _lines(imported.data)[32:36] == ["```", "", "<!-- evidence-rank:memory version=0 -->", ""]


def test_a_heading_no_line_reads_as_is_refused_with_the_headings_there_are() -> None:
    with pytest.raises(
        ConfigError,
        match=r"^usage\.invalid_option: --adopt 'Deploy': no heading of the file reads so "
        r"\(its headings: 'Notes', 'Testing'\)$",
    ):
        import_markdown(b"# Notes\n\n## Testing\n", scope=EVERYWHERE, placement=Placement(adopt="Deploy"))


def test_a_heading_two_lines_read_as_is_refused_with_their_lines() -> None:
    with pytest.raises(
        ConfigError,
        match=r"^usage\.invalid_option: --at 'testing': 2 headings read so \(lines 1, 3\): "
        r"give one of them another name first$",
    ):
        import_markdown(b"# Testing\n\n## testing\n", scope=EVERYWHERE, placement=Placement(at="testing"))


def test_at_and_adopt_together_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"^usage\.invalid_option: --at and --adopt each say where"):
        import_markdown(b"# A\n", scope=EVERYWHERE, placement=Placement(at="A", adopt="A"))


def test_a_file_that_only_imports_another_is_refused_naming_the_one_to_import() -> None:
    with pytest.raises(
        ConfigError,
        match=r"^usage\.invalid_option: the file only imports AGENTS\.md \(Claude Code's @ line\): "
        r"the instructions are there; import AGENTS\.md and leave this file as it is$",
    ):
        import_markdown(b"@AGENTS.md\n", scope=EVERYWHERE)


def test_a_section_after_a_code_block_never_closed_is_refused_not_written() -> None:
    with pytest.raises(InputError, match=r"^input\.markdown_layout at line 6, column 1: a section put at line 6"):
        import_markdown(b"# x\n\n```\nunclosed\n", scope=EVERYWHERE)


def test_a_file_that_has_a_section_already_is_refused() -> None:
    once = import_markdown(HAND_WRITTEN.encode(), scope=EVERYWHERE, placement=Placement(adopt="Testing")).data

    with pytest.raises(
        ConfigError, match=r"^usage\.invalid_option: the file has a managed section already \(lines 15-23\)"
    ):
        import_markdown(once, scope=EVERYWHERE)


def test_a_marker_not_in_the_form_is_refused_as_reading_refuses_it() -> None:
    with pytest.raises(InputError, match=r"^input\.markdown_marker at line 3, column 1: "):
        import_markdown(b"# x\n\n<!-- evidence-rank:memory -->\n", scope=EVERYWHERE)


def test_an_item_over_4000_bytes_stays_in_the_prose() -> None:
    raw = ("## A\n\n- X" + "x" * 4000 + "\n- Short.\n").encode()

    imported = import_markdown(raw, scope=EVERYWHERE, placement=Placement(adopt="A"))

    assert [(i.first + 1, i.why) for i in imported.outline[1].items if i.text is None] == [
        (3, "4001 bytes of text (SPEC §1 allows 1-4000)")
    ]
    assert imported.keys == ((4, "a.1"),)
