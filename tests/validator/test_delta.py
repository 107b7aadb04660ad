"""SPEC §3.4 delta checks, one small case per rule: each asserts the exact
reasons, so a failure names the code that differs."""

from __future__ import annotations

from typing import Any

import pytest

from curator_io.config import DEFAULT_CONFIG, parse_config
from tests.bundles import EXAMPLE, MEMORY, bundle_of, context_of, proposal
from validator.delta import check_delta
from validator.reasons import Reason, sort_reasons

STYLE = MEMORY["style.imports"]
TIMEOUT = MEMORY["ci.timeout"]
CONTRIBUTING = EXAMPLE["instructions"][0]  # repository acme/api


def _add(key: str, text: str) -> dict[str, Any]:
    return {"action": "add", "key": key, "text": text}


def _replace(key: str, text: str, expected_digest: str = STYLE["digest"]) -> dict[str, Any]:
    return {"action": "replace", "key": key, "text": text, "expected_digest": expected_digest}


ACME = {"level": "repository", "repository": "acme/api"}
CASES: list[tuple[str, dict[str, Any], dict[str, Any], list[Reason]]] = [
    ("a new instruction", {}, {}, []),
    (
        "one operation too many",
        {"operations": [_add(f"k.{i}", f"Rule {i}.") for i in range(7)]},
        {},
        [("delta.oversized", None)],
    ),
    ("as many operations as allowed", {"operations": [_add(f"k.{i}", f"Rule {i}.") for i in range(6)]}, {}, []),
    ("one text over max_operation_bytes", {"operations": [_add("k.big", "x" * 1201)]}, {}, [("delta.oversized", None)]),
    ("a text of max_operation_bytes in UTF-8", {"operations": [_add("k.big", "é" * 600)]}, {}, []),
    (
        "all texts over max_delta_bytes",
        {"operations": [_add(f"k.{i}", f"{i}" * 1001) for i in range(4)]},
        {},
        [("delta.oversized", None)],
    ),
    ("a lower limit from the config", {}, {"max_operation_bytes": 10}, [("delta.oversized", None)]),
    (
        "a replace that changes nothing but case and a trailing stop",
        {"operations": [_replace("style.imports", "  SORT imports with ruff,   not isort ")]},
        {},
        [("delta.noop", "style.imports")],
    ),
    (
        "the same text under another scope is no no-op",
        {"scope": {"level": "global"}, "operations": [_replace("style.imports", STYLE["text"])]},
        {},
        [],
    ),
    (
        "the text of another memory key",
        {"operations": [_add("k.new", TIMEOUT["text"])]},
        {},
        [("instruction.duplicate", "k.new")],
    ),
    (
        "the text of a memory key this proposal replaces",
        {"operations": [_replace("style.imports", "Other."), _add("k.new", STYLE["text"])]},
        {},
        [("instruction.duplicate", "k.new")],
    ),
    (
        "the text of an applicable instruction whose scope contains the proposal's",
        {"operations": [_add("k.new", CONTRIBUTING["text"])]},
        {},
        [("instruction.duplicate", "k.new")],
    ),
    (
        "the text of an applicable instruction in another repository",
        {
            "scope": {"level": "repository", "repository": "acme/web"},
            "operations": [_add("k.new", CONTRIBUTING["text"])],
        },
        {},
        [],
    ),
    (
        "one text twice in one proposal: the later key",
        {"operations": [_add("k.b", "Use make."), _add("k.a", "use MAKE!")]},
        {},
        [("instruction.duplicate", "k.b")],
    ),
]


@pytest.mark.parametrize(("changes", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_delta_gives_exactly_these_reasons(
    changes: dict[str, Any], config: dict[str, Any], expected: list[Reason]
) -> None:
    p, ctx = context_of(bundle_of(proposal(**changes)), parse_config(config) if config else DEFAULT_CONFIG)
    assert list(sort_reasons(check_delta(p, ctx))) == expected
