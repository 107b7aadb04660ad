"""A scripted ACE run for the tests of ranking.integrations.ace: ACE's real pipeline
(``ACE.build_steps``, its ``SkillManager`` and tools, its ``Skillbook``), with the skill
manager's model scripted by pydantic-ai's ``FunctionModel`` and the agent and reflector by
objects of ACE's ``AgentLike`` and ``ReflectorLike`` protocols: no network, no clock.

A sample's question names its task (``task-a: 2 + 3``); :data:`SCRIPT` gives, for each
question, the tool calls the skill manager makes, one a model turn. ``"$added"`` in a
call's arguments is the id the skill manager's last ``add_skill`` returned.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ace import ACE, Sample, SimpleEnvironment, Skillbook, SkillManager
from ace.core.outputs import AgentOutput, ReflectorOutput
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from curator_io import canon
from ranking.integrations.ace import EvidenceGate, Observation

Call = tuple[str, dict[str, Any]]

RULE = {
    "section": "context",
    "issue": "Read the task twice.",
    "keywords": ["reading"],
    "insight": "Read the task twice.",
}
CHECK = {"section": "context", "issue": "Check the sum.", "keywords": ["arithmetic"], "insight": "Add it up again."}
CAREFUL = {"section": "context", "issue": "Be careful.", "keywords": ["care"], "insight": "Be careful."}
CAREFULLY = {"section": "context", "issue": "Read the task carefully.", "keywords": ["care"], "insight": "Slowly."}

#: question -> the skill manager's tool calls.
SCRIPT: dict[str, list[Call]] = {
    "task-a: 2 + 3": [("add_skill", CHECK), ("add_skill", CAREFUL)],
    "task-b: 4 + 4": [("add_skill", CHECK), ("tag_skill", {"skill_id": "context-00001", "delta": 1})],
    "task-a: 2 + 3, again": [("add_skill", CAREFUL)],
    # An ADD its own UPDATE turns into the live rule's twin, and a TAG of it: all refused together.
    "task-c: 7 - 2": [
        ("add_skill", CAREFULLY),
        ("update_skill", {"skill_id": "$added", **{k: RULE[k] for k in ("issue", "keywords", "insight")}}),
        ("tag_skill", {"skill_id": "$added", "delta": 1}),
    ],
    "task-d: 9 - 1": [],
    "task-a: 2 + 3, once more": [("add_skill", CAREFUL)],
    "task-e: 1 + 1": [("add_skill", CAREFUL)],
}

QUESTIONS = list(SCRIPT)
ANSWERS = dict(zip(QUESTIONS, ["5", "8", "5", "5", "8", "5", "2"], strict=True))


def samples(questions: Sequence[str]) -> list[Sample]:
    """ACE samples of these questions: the task is the lineage, the id the sample's own."""
    return [
        Sample(question=q, ground_truth=ANSWERS[q], id=f"s{k}", metadata={"task": q.split(":")[0]})
        for k, q in enumerate(questions, start=1)
    ]


def seeded() -> Skillbook:
    """A live skillbook holding one skill, ``context-00001`` (:data:`RULE`), at a fixed time."""
    live = Skillbook()
    rule = live.add_skill(RULE["section"], RULE["issue"], keywords=RULE["keywords"], insight=RULE["insight"])
    rule.created_at = rule.updated_at = "2026-01-01T00:00:00Z"
    return live


def observe(ctx: Any) -> Observation:
    """The sample's task is its lineage; SimpleEnvironment's check is a deterministic outcome."""
    return Observation(lineage=ctx.sample.metadata["task"], signal="deterministic", summary=ctx.trace["feedback"])


class ScriptedAgent:
    """ACE's ``AgentLike``: answers every question right."""

    def generate(
        self, *, question: str, context: str | None, skillbook: Any, reflection: str | None = None, **kwargs: Any
    ) -> AgentOutput:
        return AgentOutput(reasoning="Worked it out.", final_answer=ANSWERS[question])


class ScriptedReflector:
    """ACE's ``ReflectorLike``: one insight per question."""

    def reflect(
        self,
        *,
        question: str,
        agent_output: AgentOutput,
        skillbook: Any,
        ground_truth: str | None = None,
        feedback: str | None = None,
        **kwargs: Any,
    ) -> ReflectorOutput:
        return ReflectorOutput(
            reasoning=f"{question} was answered {feedback}",
            correct_approach="Check the work.",
            key_insight=f"What {question.split(':')[0]} taught.",
        )


class ScriptedSkillManagerModel:
    """The skill manager's model: :data:`SCRIPT`'s calls for the prompt's task, then its report."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = _first_prompt(messages)
        if len([m for m in messages if isinstance(m, ModelResponse)]) == 0:
            self.prompts.append(prompt)
        task = re.search(r"<task_context>\n(.*)", prompt)
        assert task is not None
        calls = SCRIPT[task.group(1)]
        turn = len([m for m in messages if isinstance(m, ModelResponse)])
        if turn < len(calls):
            name, args = calls[turn]
            added = _last_added(messages)
            return ModelResponse(
                parts=[ToolCallPart(name, {k: added if v == "$added" else v for k, v in args.items()})]
            )
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"reasoning": f"{len(calls)} calls."})])


def _first_prompt(messages: list[ModelMessage]) -> str:
    request = messages[0]
    assert isinstance(request, ModelRequest)
    for part in request.parts:
        content = getattr(part, "content", None)
        if part.part_kind == "user-prompt":
            return "".join(c for c in content if isinstance(c, str)) if isinstance(content, list) else str(content)
    raise AssertionError("no user prompt")


def _last_added(messages: list[ModelMessage]) -> str | None:
    added = None
    for message in messages:
        for part in getattr(message, "parts", ()):
            if isinstance(part, ToolReturnPart) and part.tool_name == "add_skill":
                added = (part.content if isinstance(part.content, Mapping) else json.loads(part.content))["skill_id"]
    return added


class Snapshots:
    """An ACE step that keeps the live skillbook's memory (canonical bytes) after every sample."""

    requires: frozenset[str] = frozenset()
    provides: frozenset[str] = frozenset()

    def __init__(self) -> None:
        self.gate: EvidenceGate | None = None
        self.taken: list[bytes] = []

    def __call__(self, ctx: Any) -> Any:
        assert self.gate is not None
        self.taken.append(canon(self.gate.memory()))
        return ctx


def run(
    questions: Sequence[str], **gate_options: Any
) -> tuple[EvidenceGate, Skillbook, ScriptedSkillManagerModel, Snapshots, list[Any]]:
    """Run ACE over ``questions`` with the gate in place of its UpdateStep, then flush."""
    live, model, snapshots = seeded(), ScriptedSkillManagerModel(), Snapshots()
    steps = ACE.build_steps(
        agent=ScriptedAgent(),
        reflector=ScriptedReflector(),
        skill_manager=SkillManager(FunctionModel(model)),
        environment=SimpleEnvironment(),
        skillbook=live,
        extra_steps=[snapshots],
    )
    gate = EvidenceGate(live, observe, **{"window": 4, "repository": "toy/arithmetic", **gate_options})
    snapshots.gate = gate
    results = ACE(pipeline=_pipeline(gate.steps(steps)), skillbook=live).run(samples(questions))
    for result in results:
        assert result.error is None, result.error
    gate.flush()
    return gate, live, model, snapshots, results


def _pipeline(steps: list[Any]) -> Any:
    from ace import Pipeline

    return Pipeline(steps)
