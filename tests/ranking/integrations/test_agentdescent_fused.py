"""A fused agentdescent diff commits only when it is made of whole selected proposals.

Every fused diff here is built by agentdescent's own ``fuse_diffs``, the
function its default fusion calls when ``n_workers > 1``. The reports and
bundles are the parity corpus's (tests/parity/cases):

- LIMIT (074): five single-operation proposals selected, ``p:make-79``
  unselected (``rank.limit``), ``p/config-88`` a superseded duplicate of
  ``p_config-19``;
- SHARED (071): two selected three-operation proposals that share two
  identical operations, which SPEC §5.3 does not count as a conflict.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentdescent import AcceptDecision, Diff, MergeContext
from agentdescent.aggregator import fuse_diffs

from ranking.integrations.agentdescent import EvidenceRankingAcceptance
from ranking.integrations.agentdescent_fused import judge_fused, parent_names
from tests.ranking.integrations.agentdescent_support import bundle_path, one_round, op_map, report_of, report_path

LIMIT = "074-rank-limit-more-than-5-survivors"
LIMIT_RUN = "run-2026-06-17-c6"
SHARED = "071-rank-identical-op-is-not-a-conflict"


def _diff(diff_id: str, ops: dict[str, str | None]) -> Diff:
    return Diff(diff_id=diff_id, target="artifact", ops=ops, author=diff_id)


def _fused(case: str, *parents: str | tuple[str, dict[str, str | None]]) -> Diff:
    """fuse_diffs over parents given as a proposal id (the diff carries its edit)
    or as (diff id, ops)."""
    diffs = [_diff(p, op_map(case, p)) if isinstance(p, str) else _diff(*p) for p in parents]
    return fuse_diffs(diffs)


class _Recording:
    """An inner policy that accepts and records what it was handed."""

    def __init__(self) -> None:
        self.seen: list[MergeContext] = []

    def accept(self, ctx: MergeContext) -> AcceptDecision:
        self.seen.append(ctx)
        return AcceptDecision(True, "committed", "from inner")


def _context(diff: Diff) -> MergeContext:
    return MergeContext(
        artifact=None, candidate=None, cards=(), base_counts=(1.0, 3.0), cand_counts=(3.0, 1.0), diff=diff
    )


def _policy(case: str, *, bundle: bool = True, **kwargs: Any) -> EvidenceRankingAcceptance:
    return EvidenceRankingAcceptance(
        report_path(case),
        inner=kwargs.pop("inner", _Recording()),
        bundle=bundle_path(case) if bundle else None,
        **kwargs,
    )


def _refusal(policy: EvidenceRankingAcceptance, diff: Diff) -> str:
    decision = policy.accept(_context(diff))
    assert (decision.accept, decision.category) == (False, "critic-rejected")
    assert decision.observed_delta == 0.5  # the measured change, as for any refusal
    return decision.detail


def _accepts(policy: EvidenceRankingAcceptance, diff: Diff) -> bool:
    return policy.accept(_context(diff)) == AcceptDecision(True, "committed", "from inner")


# -- reading the id ------------------------------------------------------------


def test_a_fused_id_names_its_parents_in_order() -> None:
    assert parent_names("fused(p:build_zone-9+p_wheel-39)") == ("p:build_zone-9", "p_wheel-39")


def test_a_nested_fused_id_names_the_parents_of_every_level() -> None:
    inner = _fused(LIMIT, "p:build_zone-9", "p_wheel-39")
    nested = fuse_diffs([inner, _diff("p-seedcache-29", op_map(LIMIT, "p-seedcache-29"))])

    assert nested.diff_id == "fused(fused(p:build_zone-9+p_wheel-39)+p-seedcache-29)"
    assert parent_names(nested.diff_id) == ("p:build_zone-9", "p_wheel-39", "p-seedcache-29")


@pytest.mark.parametrize("diff_id", ["p_wheel-39", "fused(a+(b)", "fused(a+)", "fused()", "fused(a)b+c)"])
def test_an_id_that_is_not_a_balanced_fused_id_names_no_parents(diff_id: str) -> None:
    assert parent_names(diff_id) is None


# -- backed fused diffs ------------------------------------------------------------


def test_a_fused_diff_of_two_selected_proposals_goes_on_to_inner() -> None:
    inner = _Recording()
    policy = _policy(LIMIT, inner=inner)
    ctx = _context(_fused(LIMIT, "p:build_zone-9", "p_wheel-39"))

    assert policy.accept(ctx) == AcceptDecision(True, "committed", "from inner")
    assert inner.seen == [ctx]


def test_selected_proposals_sharing_an_identical_operation_fuse_into_a_backed_diff() -> None:
    fused = _fused(SHARED, "p.yaml-21", "p/kernel-11")
    assert len(fused.ops) == 4  # 3 + 3 operations, 2 of them identical

    assert _accepts(_policy(SHARED), fused)


def test_a_nested_fused_diff_of_selected_proposals_is_backed() -> None:
    nested = fuse_diffs([_fused(LIMIT, "p:build_zone-9", "p_wheel-39"), _fused(LIMIT, "p-seedcache-29", "p:schema-49")])

    assert _accepts(_policy(LIMIT), nested)


def test_parents_that_name_no_proposal_are_decomposed_against_the_selected() -> None:
    policy = _policy(LIMIT)
    fused = _fused(LIMIT, ("w0:1", op_map(LIMIT, "p:build_zone-9")), ("w1:1", op_map(LIMIT, "p_wheel-39")))

    verdict = judge_fused(fused.diff_id, fused.ops, policy.proposals, policy.run)

    assert verdict.refusal is None
    assert [p.id for p in verdict.proposals] == ["p:build_zone-9", "p_wheel-39"]
    assert _accepts(policy, fused)


def test_an_id_that_names_no_parents_is_decomposed_as_well() -> None:
    policy = _policy(SHARED)
    union = {**op_map(SHARED, "p.yaml-21"), **op_map(SHARED, "p/kernel-11")}

    verdict = judge_fused("fused(w0:(a+w1:b)", union, policy.proposals, policy.run)

    assert [p.id for p in verdict.proposals] == ["p.yaml-21", "p/kernel-11"]


def test_a_parent_named_after_a_proposal_and_one_named_after_a_worker_share_the_diff() -> None:
    fused = _fused(LIMIT, "p:build_zone-9", ("w1:1", op_map(LIMIT, "p_wheel-39")))

    verdict = judge_fused(fused.diff_id, fused.ops, _policy(LIMIT).proposals, LIMIT_RUN)

    assert [p.id for p in verdict.proposals] == ["p:build_zone-9", "p_wheel-39"]


def test_without_a_bundle_parents_are_checked_by_name_only() -> None:
    policy = _policy(LIMIT, bundle=False)
    named = _fused(LIMIT, "p:build_zone-9", "p_wheel-39")
    by_worker = _fused(LIMIT, "p:build_zone-9", ("w1:1", op_map(LIMIT, "p_wheel-39")))

    assert _accepts(policy, named)
    assert _refusal(policy, by_worker) == (
        f"evidence-ranking-v1: fused diff {by_worker.diff_id}: no proposal of run {LIMIT_RUN} matched parent w1:1"
    )


def test_without_a_bundle_an_id_that_names_no_parents_is_refused_as_a_single_diff() -> None:
    diff = _diff("fused(w0:(1+w1:1)", op_map(LIMIT, "p:build_zone-9"))

    assert _refusal(_policy(LIMIT, bundle=False), diff) == (
        f"evidence-ranking-v1: no proposal of run {LIMIT_RUN} matched diff fused(w0:(1+w1:1)"
    )


def test_a_custom_matcher_that_backs_a_fused_diff_still_decides() -> None:
    policy = _policy(LIMIT, match=lambda diff, proposals: ["p_config-19"])

    assert _accepts(policy, _fused(LIMIT, "p:build_zone-9", "p:make-79"))


def test_a_fused_diff_a_custom_matcher_does_not_back_is_judged_by_its_parents() -> None:
    policy = _policy(LIMIT, match=lambda diff, proposals: [])

    assert _accepts(policy, _fused(LIMIT, "p:build_zone-9", "p_wheel-39"))
    assert _refusal(policy, _fused(LIMIT, "p:build_zone-9", "p:make-79")).endswith(
        " carries p:make-79 (unselected: rank.limit)"
    )


# -- refused fused diffs ---------------------------------------------------------


def test_a_fused_diff_carrying_an_unselected_proposal_is_refused_naming_it() -> None:
    fused = _fused(LIMIT, "p:build_zone-9", "p:make-79")

    assert _refusal(_policy(LIMIT), fused) == (
        "evidence-ranking-v1: fused diff fused(p:build_zone-9+p:make-79) carries p:make-79 (unselected: rank.limit)"
    )


def test_the_refusal_names_the_first_offending_parent_in_id_order() -> None:
    fused = _fused(LIMIT, "p_env-69", "p:build_zone-9", "p:make-79")

    assert _refusal(_policy(LIMIT), fused).endswith(" carries p:make-79 (unselected: rank.limit)")


def test_an_unselected_proposal_is_named_when_its_parent_is_named_after_a_worker() -> None:
    fused = _fused(LIMIT, ("w0:1", op_map(LIMIT, "p:build_zone-9")), ("w1:1", op_map(LIMIT, "p:make-79")))

    assert _refusal(_policy(LIMIT), fused) == (
        "evidence-ranking-v1: fused diff fused(w0:1+w1:1) carries p:make-79 (unselected: rank.limit)"
    )


def test_a_parent_named_after_a_superseded_duplicate_is_refused_though_its_edit_is_selected() -> None:
    # The names are used when there are names: p/config-88 is not selected,
    # even if its edit equals p_config-19's.
    fused = _fused(LIMIT, "p/config-88", "p_wheel-39")

    assert _refusal(_policy(LIMIT), fused).endswith(" carries p/config-88 (superseded: rank.duplicate)")


def test_a_named_parent_whose_edit_is_partial_is_refused() -> None:
    partial = {k: v for k, v in op_map(SHARED, "p.yaml-21").items() if k != "test-schema_zone-13"}
    fused = _fused(
        SHARED, ("p.yaml-21", partial), ("w1:1", {"cmd-queue-3": op_map(SHARED, "p/kernel-11")["cmd-queue-3"]})
    )
    # The union happens to be p/kernel-11's edit; the parent's name still counts.
    assert fused.ops == op_map(SHARED, "p/kernel-11")

    assert _refusal(_policy(SHARED), fused) == (
        f"evidence-ranking-v1: fused diff {fused.diff_id} carries part of p.yaml-21 (selected: rank.selected):"
        " key test-schema_zone-13 is missing"
    )


def test_a_partial_proposal_is_refused_when_no_parent_names_it() -> None:
    yaml, kernel = op_map(SHARED, "p.yaml-21"), op_map(SHARED, "p/kernel-11")
    fused = _fused(
        SHARED,
        ("w0:1", {"test-schema_zone-13": yaml["test-schema_zone-13"]}),
        ("w1:1", {"k_yaml_order-1": kernel["k_yaml_order-1"]}),
    )

    assert _refusal(_policy(SHARED), fused) == (
        "evidence-ranking-v1: fused diff fused(w0:1+w1:1) carries part of p.yaml-21 (selected: rank.selected):"
        " key ci/schema-2 is missing"
    )


def test_a_parent_that_writes_its_proposals_key_differently_is_refused() -> None:
    fused = _fused(LIMIT, ("p:build_zone-9", {"cmd-yaml_import-8": "something else"}), "p_wheel-39")

    assert _refusal(_policy(LIMIT), fused).endswith(
        " carries part of p:build_zone-9 (selected: rank.selected): key cmd-yaml_import-8 is written differently"
    )


def test_a_key_no_proposal_writes_is_refused_naming_the_key() -> None:
    fused = _fused(LIMIT, "p:build_zone-9", ("w1:1", {"zz-extra": "Always push to main."}))

    assert _refusal(_policy(LIMIT), fused) == (
        f"evidence-ranking-v1: fused diff fused(p:build_zone-9+w1:1) writes key zz-extra,"
        f" an edit no proposal of run {LIMIT_RUN} makes"
    )


def test_parents_that_all_name_proposals_may_not_carry_another_selected_proposal() -> None:
    smuggler = ("p_wheel-39", {**op_map(LIMIT, "p_wheel-39"), **op_map(LIMIT, "p-seedcache-29")})
    fused = _fused(LIMIT, "p:build_zone-9", smuggler)

    assert _refusal(_policy(LIMIT), fused).endswith(
        " writes key cmd:vendor-28 of p-seedcache-29 (selected: rank.selected), which none of its parents names"
    )


def test_a_fused_diff_with_no_edit_is_refused() -> None:
    policy = _policy(LIMIT)

    assert _refusal(policy, _fused(LIMIT, ("w0:1", {}), ("w1:1", {}))) == (
        f"evidence-ranking-v1: no proposal of run {LIMIT_RUN} matched diff fused(w0:1+w1:1)"
    )


# -- the end-to-end run: two workers, one merge -----------------------------------


class _ByWorker:
    """An agentdescent Strategy in which each worker turns one curator proposal
    into a diff named after it."""

    def __init__(self, case: str, by_worker: dict[str, str]) -> None:
        self.ops = {author: op_map(case, proposal) for author, proposal in by_worker.items()}
        self.ids = by_worker

    def initial(self) -> dict[str, str]:
        return {}

    def render(self, state: dict[str, str]) -> str:
        return "\n".join(f"{key}: {text}" for key, text in sorted(state.items()))

    def to_diff(self, state: dict[str, str], proposal: str, author: str, base_version: int, target: str) -> Diff:
        return Diff(diff_id=self.ids[author], target=target, ops=dict(self.ops[author]), author=author)


def _evolve_two_workers(tmp_path: Path, by_worker: dict[str, str], acceptance: Any = None) -> tuple[Any, list[Any]]:
    """One round, two workers, one merge of both diffs: the union makes every
    task pass, so only a gate can stop it."""
    return one_round(tmp_path / "ledger", _ByWorker(LIMIT, by_worker), acceptance, workers=2)


def test_two_workers_diffs_of_selected_proposals_fuse_and_commit(tmp_path: Path) -> None:
    gate = EvidenceRankingAcceptance(report_path(LIMIT), bundle=bundle_path(LIMIT))

    result, reports = _evolve_two_workers(tmp_path, {"w0": "p:build_zone-9", "w1": "p_wheel-39"}, gate)

    assert result.error is None
    assert [(r.category, r.fused) for r in reports] == [("committed", True)]
    assert result.state == {**op_map(LIMIT, "p:build_zone-9"), **op_map(LIMIT, "p_wheel-39")}
    assert result.ledger_log[0].endswith("merge fused(p:build_zone-9+p_wheel-39) -> artifact")


def test_a_fused_diff_carrying_an_unselected_proposal_is_refused_in_a_run(tmp_path: Path) -> None:
    gate = EvidenceRankingAcceptance(report_path(LIMIT), bundle=bundle_path(LIMIT))

    result, reports = _evolve_two_workers(tmp_path, {"w0": "p:build_zone-9", "w1": "p:make-79"}, gate)

    assert result.error is None
    assert [r.category for r in reports] == ["critic-rejected"]
    assert reports[0].reason == (
        "evidence-ranking-v1: fused diff fused(p:build_zone-9+p:make-79) carries p:make-79 (unselected: rank.limit)"
    )
    assert result.state == {}


def test_the_same_fused_diff_commits_without_the_gate(tmp_path: Path) -> None:
    # The control for the test above: the refusal came from the report, not the toy.
    _, reports = _evolve_two_workers(tmp_path, {"w0": "p:build_zone-9", "w1": "p:make-79"})

    assert [(r.category, r.fused) for r in reports] == [("committed", True)]


def test_a_committed_fused_diff_is_recorded_in_the_ledger_against_each_of_its_proposals(tmp_path: Path) -> None:
    from ranking.ledger import Ledger

    ledger = tmp_path / "admissions.db"
    gate = EvidenceRankingAcceptance(report_path(LIMIT), bundle=bundle_path(LIMIT), ledger=ledger)

    _, reports = _evolve_two_workers(tmp_path, {"w0": "p:build_zone-9", "w1": "p_wheel-39"}, gate)

    assert [(r.category, r.fused) for r in reports] == [("committed", True)]
    with Ledger.open(ledger, create=False) as opened:
        outcomes = [o for _, recorded in opened.export() for o in recorded]
    fingerprints = {p["id"]: p["fingerprint"] for p in report_of(LIMIT)["proposals"]}
    assert sorted((o.proposal, o.fingerprint, o.diff, o.category) for o in outcomes) == [
        (pid, fingerprints[pid], "fused(p:build_zone-9+p_wheel-39)", "committed")
        for pid in ("p:build_zone-9", "p_wheel-39")
    ]
