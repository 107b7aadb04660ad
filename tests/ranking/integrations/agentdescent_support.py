"""What the agentdescent tests share: parity cases as reports, bundles and op maps,
and a Strategy whose every proposal is one fixed diff."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentdescent import AggregatorConfig, Diff, Policies, Task, evolve

from tests.conftest import PARITY, expected_report

#: Ten tasks, four of them held out by the aggregator's default split.
TASKS = [Task(id=f"t{i}", prompt="say the rule") for i in range(10)]


def report_path(case: str) -> Path:
    return PARITY / case / "expected.report.json"


def bundle_path(case: str) -> Path:
    return PARITY / case / "bundle.json"


def report_of(case: str) -> dict[str, Any]:
    return expected_report(PARITY / case)


def op_map(case: str, proposal_id: str) -> dict[str, str | None]:
    """The proposal's operations as agentdescent ops: text, or None for a remove."""
    bundle = json.loads(bundle_path(case).read_bytes())
    (proposal,) = [p for p in bundle["proposals"] if isinstance(p, dict) and p.get("id") == proposal_id]
    return {op["key"]: op.get("text") for op in proposal["operations"]}


class OneEdit:
    """An agentdescent Strategy whose every proposal is one fixed diff: what a
    worker emits when it turns a curator's proposal into an edit."""

    def __init__(self, diff_id: str, ops: dict[str, str | None]) -> None:
        self.diff_id, self.ops = diff_id, ops

    def initial(self) -> dict[str, str]:
        return {}

    def render(self, state: dict[str, str]) -> str:
        return "\n".join(f"{key}: {text}" for key, text in sorted(state.items()))

    def to_diff(self, state: dict[str, str], proposal: str, author: str, base_version: int, target: str) -> Diff:
        return Diff(diff_id=self.diff_id, target=target, ops=dict(self.ops), author=author)


def one_round(
    repo: Path, strategy: Any, acceptance: Any = None, *, workers: int = 1, helps: bool = True
) -> tuple[Any, list[Any]]:
    """One round of ``evolve`` in which every worker's diff goes to one merge; the result and
    the merge reports. With ``helps`` an edit makes every task pass, so only a gate can stop it;
    without, no edit changes the reward."""
    reports: list[Any] = []
    result = evolve(
        TASKS,
        (lambda task, output: 1.0 if output else 0.0) if helps else (lambda task, output: 0.0),
        run=lambda rendered, task: rendered,
        propose=lambda rendered, task, output, reward: "apply the proposal",
        strategy=strategy,
        rounds=1,
        n_workers=workers,
        self_verify=False,
        agg_config=AggregatorConfig(batch_trigger=workers),  # every worker's diff in one merge
        repo_path=str(repo),
        on_reports=reports.extend,
        policies=Policies(acceptance=acceptance),
    )
    return result, reports
