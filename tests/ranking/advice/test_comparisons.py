"""Which texts are compared with which, for each use (issue 56): what
:func:`ranking.advice.comparisons.choose` asks the measure about, before any words are read."""

from __future__ import annotations

from typing import Any, NamedTuple

from curator_io import Add, BundleBuilder, Remove, Replace, Scope
from curator_io.builder import Operation
from curator_io.markdown.document import read_markdown_memory
from curator_io.models import Bundle
from ranking.advice.comparisons import Comparison, Explain, Gate, Memory, Notes, Report, choose

SHOP = Scope("repository", "acme/shop")
WEB = Scope("repository", "acme/web")


def _pairs(chosen: Comparison) -> list[tuple[str, str]]:
    """Each pair as ``subject -> other``, each named by where it is and its key (or its prose line)."""

    def name(entry: Any) -> str:
        place = entry.place
        at = place.proposal or place.where
        return f"{at}:{place.key}" if place.where != "prose" else f"prose:{place.line}"

    return [(name(s), name(o)) for s, o in chosen.pairs()]


def _bundle() -> Bundle:
    """Memory ``a`` and ``b``; two applicable instructions, one in acme/shop and one in acme/web;
    p-1 replaces ``a`` and adds ``c``, p-2 adds ``d``, p-3 adds ``e``, all in acme/shop."""
    b = BundleBuilder(memory_version=1, curator="c", frozen_at="2026-12-08T09:00:00Z")
    b.memory_instruction("a", "Text a.", scope=SHOP)
    b.memory_instruction("b", "Text b.", scope=SHOP)
    b.applicable_instruction("shop.rule", "A rule of the shop.", scope=SHOP)
    b.applicable_instruction("web.rule", "A rule of the web.", scope=WEB)
    b.materialization("mat-0", repository="acme/shop", source_revision="r0")
    b.trace("tr-0", lineage="task-0", materialization="mat-0", steps=2)
    b.evidence("ev-0", trace="tr-0", step=1, signal="deterministic", observed_at="2026-12-08T08:00:00Z")
    b.lesson("les", text="l", evidence=["ev-0"])
    proposals: list[tuple[str, list[Operation]]] = [
        ("p-1", [Replace("a", "Text a, again."), Add("c", "Text c.")]),
        ("p-2", [Add("d", "Text d."), Remove("b")]),
        ("p-3", [Add("e", "Text e.")]),
    ]
    for pid, ops in proposals:
        b.propose(pid, lesson="les", scope=SHOP, confidence=0.5, operations=ops, support=["ev-0"])
    return b.build("run-1").bundle


def test_a_report_compares_the_selected_edits_with_memory_each_other_and_what_applies_to_them() -> None:
    chosen = choose(Report(_bundle(), ("p-1", "p-2")))
    assert chosen.bounded
    assert _pairs(chosen) == [
        # p-1 edits a: it is compared with b, never with the a it replaces; nor with its own c.
        ("p-1:a", "memory:b"),
        ("p-1:a", "p-2:d"),
        ("p-1:a", "instructions:shop.rule"),
        ("p-1:c", "memory:b"),
        ("p-1:c", "p-2:d"),
        ("p-1:c", "instructions:shop.rule"),
        # p-2 removes b: its d is compared with a, not b. p-3 is not selected: neither side.
        ("p-2:d", "memory:a"),
        ("p-2:d", "p-1:a"),
        ("p-2:d", "p-1:c"),
        ("p-2:d", "instructions:shop.rule"),
    ]


def test_a_report_with_the_rules_of_a_prose_compares_each_selected_edit_with_them_too() -> None:
    chosen = choose(Report(_bundle(), ("p-3",), prose=((12, "A rule people wrote."),)))
    assert _pairs(chosen) == [
        ("p-3:e", "memory:a"),
        ("p-3:e", "memory:b"),
        ("p-3:e", "instructions:shop.rule"),
        ("p-3:e", "prose:12"),
    ]


def test_an_explanation_compares_the_proposal_named_with_memory_every_proposal_and_what_applies() -> None:
    chosen = choose(Explain(_bundle(), "p-3"))
    assert chosen.bounded
    assert _pairs(chosen) == [
        ("p-3:e", "memory:a"),
        ("p-3:e", "memory:b"),
        ("p-3:e", "p-1:a"),
        ("p-3:e", "p-1:c"),
        ("p-3:e", "p-2:d"),
        ("p-3:e", "instructions:shop.rule"),
    ]


def test_a_gate_compares_what_the_write_adds_or_changes_with_the_rest_of_it_and_what_applies() -> None:
    shop = SHOP.to_json()
    written = {
        "version": 2,
        "instructions": [
            {"key": "a", "text": "Text a.", "scope": shop},  # kept as it was: no subject
            {"key": "b", "text": "Text b, changed.", "scope": shop},
            {"key": "c", "text": "Text c.", "scope": WEB.to_json()},
            {"key": "z", "text": "Text z.", "scope": {"level": "repository", "repository": "not a repository"}},
        ],
    }
    chosen = choose(Gate(_bundle(), written, prose=((3, "A rule of the prose."),)))
    assert chosen.bounded
    assert _pairs(chosen) == [
        ("memory-after:b", "memory-after:a"),
        ("memory-after:b", "memory-after:c"),
        ("memory-after:b", "memory-after:z"),
        ("memory-after:b", "instructions:shop.rule"),
        ("memory-after:b", "prose:3"),
        # c is in acme/web: the shop's rule does not apply to it, the web's does.
        ("memory-after:c", "memory-after:a"),
        ("memory-after:c", "memory-after:b"),
        ("memory-after:c", "memory-after:z"),
        ("memory-after:c", "instructions:web.rule"),
        ("memory-after:c", "prose:3"),
        # z's scope is none SPEC §1 parses (curator_io's parser): it is within no repository's rule.
        ("memory-after:z", "memory-after:a"),
        ("memory-after:z", "memory-after:b"),
        ("memory-after:z", "memory-after:c"),
        ("memory-after:z", "prose:3"),
    ]
    assert [s.place.action for s in chosen.subjects] == ["replace", "add", "add"]


def test_a_gate_of_a_write_that_adds_and_changes_nothing_has_nothing_to_compare() -> None:
    bundle = _bundle()
    kept = [{"key": i.key, "text": i.text, "scope": i.scope.to_json()} for i in bundle.memory_instructions.values()]
    written = {"version": 1, "instructions": kept}
    assert choose(Gate(bundle, written)).subjects == ()


AGENTS = b"""# AGENTS.md

- Run the tests before you push.
- Format with ruff.

<!-- evidence-rank:memory version=1 -->

## In `acme/shop`

- Run the tests with pytest. <!-- key=test.command origin=curated -->
- Lint with ruff. <!-- key=style.lint origin=curated -->

<!-- /evidence-rank:memory -->
"""


def test_a_memory_gated_without_a_run_compares_each_item_of_its_prose_with_each_instruction_of_its_section() -> None:
    chosen = choose(Memory(read_markdown_memory(AGENTS)))
    assert not chosen.bounded
    assert _pairs(chosen) == [
        ("prose:3", "memory-after:test.command"),
        ("prose:3", "memory-after:style.lint"),
        ("prose:4", "memory-after:test.command"),
        ("prose:4", "memory-after:style.lint"),
    ]
    assert [s.text for s in chosen.subjects] == ["Run the tests before you push.", "Format with ruff."]


class _Held(NamedTuple):
    key: str
    text: str
    origin: str | None


HELD = {
    "a": _Held("a", "Text a.", "user"),
    "b": _Held("b", "Text b.", "curated"),
    "c": _Held("c", "Text c.", None),
}
EDIT = {
    "scope": SHOP.to_json(),
    "operations": [
        {"action": "add", "key": "d", "text": "Text d."},
        {"action": "remove", "key": "b"},
        {"action": "replace", "key": "c", "text": "Text c, again."},
    ],
}


def test_the_notes_compare_an_edit_with_the_memory_it_does_not_touch_and_the_prose() -> None:
    chosen = choose(Notes(EDIT, HELD, prose=((7, "A rule of the prose."),)))
    assert not chosen.bounded
    assert _pairs(chosen) == [
        ("proposal:d", "memory:a"),
        ("proposal:d", "prose:7"),
        ("proposal:c", "memory:a"),
        ("proposal:c", "prose:7"),
    ]
    assert [(o.place.key, o.origin) for o in chosen.against] == [
        ("a", "user"),
        ("b", "curated"),
        ("c", None),
        ("", "user"),
    ]


def test_the_notes_of_an_admitted_edit_compare_only_what_memory_holds_as_it_wrote_it() -> None:
    held = {**HELD, "d": _Held("d", "Text d.", "curated")}
    chosen = choose(Notes(EDIT, held, admitted=True))
    # d is in memory as the edit wrote it; c is not (memory holds another text): only d is compared.
    assert _pairs(chosen) == [("memory-after:d", "memory:a")]
