"""Adopting a Markdown file written by hand (docs/markdown-memory.md, "Importing a file written by
hand"): its bullets become the managed section, everything else stays byte for byte."""

from __future__ import annotations

import pytest

from curator_io.errors import ConfigError, InputError
from curator_io.markdown_import import import_markdown
from curator_io.markdown_memory import read_markdown_memory
from curator_io.models import Scope

EVERYWHERE = Scope("global")

HAND_WRITTEN = """\
# AGENTS.md

Intro for people.

## Testing

- Run the tests with `make test`,
  not bare pytest.
- Never push to main.

## Style & lint

* Use ruff.
- An item with a nested list
  - sub
1. An ordered item stays.

```
- in a code block stays
```
"""


def test_each_top_level_bullet_of_one_paragraph_becomes_an_instruction_keyed_by_its_heading() -> None:
    imported = import_markdown(HAND_WRITTEN.encode(), scope=EVERYWHERE)

    memory = read_markdown_memory(imported.data).memory
    assert [(i["key"], i["text"], i["origin"]) for i in memory["instructions"]] == [
        ("testing.1", "Run the tests with `make test`, not bare pytest.", "repository"),
        ("testing.2", "Never push to main.", "repository"),
        ("style-lint.1", "Use ruff.", "repository"),
    ]
    assert memory["version"] == 0
    assert imported.keys == ((7, "testing.1"), (9, "testing.2"), (13, "style-lint.1"))
    assert imported.left == ((14, "not one paragraph (a nested list, a code block, or empty)"),)


def test_the_section_takes_the_place_of_the_first_bullet_and_the_rest_of_the_file_stays() -> None:
    imported = import_markdown(HAND_WRITTEN.encode(), scope=Scope("repository", "acme/api"))

    text = imported.data.decode()
    assert text.startswith(
        "# AGENTS.md\n\nIntro for people.\n\n## Testing\n\n<!-- evidence-rank:memory version=0 -->\n"
    )
    assert "## In `acme/api`\n" in text
    assert text.endswith(
        "<!-- /evidence-rank:memory -->\n\n## Style & lint\n\n- An item with a nested list\n  - sub\n"
        "1. An ordered item stays.\n\n```\n- in a code block stays\n```\n"
    )


def test_a_file_with_no_bullet_gets_an_empty_section_at_its_end_its_bom_and_crlf_kept() -> None:
    imported = import_markdown("\ufeff# Notes\r\nJust prose".encode(), scope=EVERYWHERE)

    assert imported.data.decode() == (
        "\ufeff# Notes\r\nJust prose\r\n\r\n"
        "<!-- evidence-rank:memory version=0 -->\r\n\r\n<!-- /evidence-rank:memory -->\r\n"
    )


def test_a_file_that_has_a_section_already_is_refused() -> None:
    once = import_markdown(HAND_WRITTEN.encode(), scope=EVERYWHERE).data

    with pytest.raises(
        ConfigError, match=r"^usage\.invalid_option: the file has a managed section already \(lines 7-15\)"
    ):
        import_markdown(once, scope=EVERYWHERE)


def test_a_marker_not_in_the_form_is_refused_as_reading_refuses_it() -> None:
    with pytest.raises(InputError, match=r"^input\.markdown_marker at line 3, column 1: "):
        import_markdown(b"# x\n\n<!-- evidence-rank:memory -->\n", scope=EVERYWHERE)


def test_an_item_over_4000_bytes_stays_in_the_prose() -> None:
    imported = import_markdown(("- " + "x" * 4001 + "\n- short\n").encode(), scope=EVERYWHERE)

    assert imported.left == ((1, "4001 bytes of text (SPEC §1 allows 1-4000)"),)
    assert imported.keys == ((2, "notes.1"),)
    assert imported.data.decode().startswith("- " + "x" * 4001 + "\n<!-- evidence-rank:memory version=0 -->\n")
