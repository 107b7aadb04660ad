"""docs/ace.md's example runs as written, from a folder outside the checkout, and prints what
the page says it prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.docs.doc_examples import assert_needs_nothing_from_the_checkout, assert_prints_what_the_page_says

pytest.importorskip("ace", reason="ace-framework needs Python 3.12 or newer: make test runs this in .venv-ace")
pytestmark = pytest.mark.ace


def test_the_example_prints_what_the_page_says(tmp_path: Path) -> None:
    assert_prints_what_the_page_says("ace.md", tmp_path)


def test_the_example_needs_nothing_from_the_checkout() -> None:
    assert_needs_nothing_from_the_checkout("ace.md")


def _tools_the_model_is_given() -> set[str]:
    """The tools ACE's SkillManager offers its model, as the model sees them on its first turn."""
    from ace import Skillbook, SkillManager
    from ace.core.outputs import ReflectorOutput
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    seen: set[str] = set()

    def model(messages: list[object], info: AgentInfo) -> ModelResponse:
        seen.update(tool.name for tool in info.function_tools)
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"reasoning": "done"})])

    reflection = ReflectorOutput(reasoning="r", correct_approach="c", key_insight="k")
    SkillManager(FunctionModel(model)).update_skills(
        reflections=(reflection,), skillbook=Skillbook(), question_context="q", progress=""
    )
    return seen


def test_the_page_says_what_becomes_of_every_tool_the_skill_manager_is_given() -> None:
    # It showed add_skill only: a reader could not tell what an UPDATE, a REMOVE or a TAG becomes.
    page = (REPO / "docs" / "ace.md").read_text(encoding="utf-8")
    table = page.split("### What the skill manager's tools become", 1)[1].split("\n### ", 1)[0]
    rows = [line.split(" | ")[0] for line in table.splitlines() if line.startswith("| `")]
    listed = {name for row in rows for name in re.findall(r"`(\w+)\(", row)}
    assert listed == _tools_the_model_is_given()
