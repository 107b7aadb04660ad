"""A ranking report gates agentdescent's acceptance stage.

The reports and bundles are the parity corpus's (tests/parity/cases): real,
sealed reports of the reference implementation. The end-to-end tests run a real
``agentdescent.evolve`` in a temporary git repo with toy ``run``/``propose``
functions and no model.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from agentdescent import (
    AcceptancePolicy,
    AcceptDecision,
    AggregatorConfig,
    Diff,
    MergeContext,
    MergeOutcome,
)
from agentdescent.aggregator import install_policy
from agentdescent.defaults import DefaultAcceptance

from curator_io import EvidenceRankError, InputError, TamperError, seal
from curator_io.bundle import load_bundle
from curator_io.config import parse_config
from curator_io.errors import ConfigError, PolicyError
from ranking.integrations.agentdescent import EvidenceRankingAcceptance, report_notes
from ranking.pipeline import rank
from tests.ranking.integrations.agentdescent_support import (
    OneEdit,
    bundle_path,
    one_round,
    op_map,
    report_of,
    report_path,
)

BASIC = "001-basic-accepted-selected"  # one proposal, p-env-9, selected
MIXED = "002-mixed-dispositions"  # p_hook-9 selected; others deferred, quarantined, rejected
DUPLICATE = "068-rank-duplicate-different-rationale"
CONFLICT = "069-rank-conflict-same-key-different-text"


# -- the end-to-end run ------------------------------------------------------


def _evolve(tmp_path: Path, diff_id: str, ops: dict[str, str | None], acceptance: Any = None) -> tuple[Any, list[Any]]:
    """One round, one worker: the edit makes every task pass, so only a gate can stop it."""
    return one_round(tmp_path / "ledger", OneEdit(diff_id, ops), acceptance)


def test_a_diff_backed_by_a_selected_proposal_commits(tmp_path: Path) -> None:
    ops = op_map(BASIC, "p-env-9")
    policy = EvidenceRankingAcceptance(report_path(BASIC))

    result, reports = _evolve(tmp_path, "p-env-9", ops, policy)

    assert result.error is None
    assert [r.category for r in reports] == ["committed"]
    assert result.state == ops
    assert result.ledger_log[0].endswith("merge p-env-9 -> artifact")


def test_a_diff_that_is_not_backed_ends_as_critic_rejected(tmp_path: Path) -> None:
    policy = EvidenceRankingAcceptance(report_path(MIXED), bundle=bundle_path(MIXED))

    result, reports = _evolve(tmp_path, "w0:cmd-node-36", op_map(MIXED, "p_retry-build-37"), policy)

    assert result.error is None
    assert [r.category for r in reports] == ["critic-rejected"]
    assert reports[0].reason == (
        "evidence-ranking-v1: diff w0:cmd-node-36 matches p_retry-build-37 (rejected: closure.stale_memory)"
    )
    assert reports[0].committed_version is None
    assert result.state == {}


def test_the_same_unbacked_diff_commits_without_the_policy(tmp_path: Path) -> None:
    # The control for the test above: the refusal came from the report, not the toy.
    _, reports = _evolve(tmp_path, "w0:cmd-node-36", op_map(MIXED, "p_retry-build-37"))

    assert [r.category for r in reports] == ["committed"]


def test_a_diff_matched_by_its_operations_commits_when_the_proposal_is_selected(tmp_path: Path) -> None:
    ops = op_map(MIXED, "p_hook-9")
    policy = EvidenceRankingAcceptance(report_path(MIXED), bundle=bundle_path(MIXED))

    result, reports = _evolve(tmp_path, "w0:k-flaky-8", ops, policy)

    assert [r.category for r in reports] == ["committed"]
    assert result.state == ops


def test_a_category_that_is_not_a_merge_outcome_stops_the_run_with_value_error(tmp_path: Path) -> None:
    # Why a refusal says "critic-rejected": agentdescent reads the category as a
    # MergeOutcome, and a run whose policy invents one stops.
    class _Invents:
        def accept(self, ctx: MergeContext) -> AcceptDecision:
            return AcceptDecision(False, "evidence-rejected", "")

    with pytest.warns(RuntimeWarning, match="stopped early"):
        result, _ = _evolve(tmp_path, "p-env-9", {"k": "v"}, _Invents())

    assert result.error.startswith("ValueError: 'evidence-rejected' is not a valid MergeOutcome")
    assert MergeOutcome("critic-rejected") is MergeOutcome.CRITIC_REJECTED


# -- the policy on its own -----------------------------------------------------


class _Recording:
    """An inner policy that accepts and records what it was handed."""

    def __init__(self) -> None:
        self.seen: list[MergeContext] = []
        self.verifier: Any = None
        self.config: Any = None

    def bind(self, verifier: Any) -> None:
        self.verifier = verifier

    def configure(self, config: Any) -> None:
        self.config = config

    def accept(self, ctx: MergeContext) -> AcceptDecision:
        self.seen.append(ctx)
        return AcceptDecision(True, "committed", "from inner")


def _context(diff_id: str, ops: dict[str, str | None]) -> MergeContext:
    return MergeContext(
        artifact=None,
        candidate=None,
        cards=(),
        base_counts=(1.0, 3.0),
        cand_counts=(3.0, 1.0),
        diff=Diff(diff_id=diff_id, target="artifact", ops=ops),
    )


def test_a_diff_whose_id_names_a_selected_proposal_is_handed_to_inner() -> None:
    inner = _Recording()
    policy = EvidenceRankingAcceptance(report_path(BASIC), inner=inner)
    ctx = _context("p-env-9", {"anything": "at all"})

    decision = policy.accept(ctx)

    assert decision == AcceptDecision(True, "committed", "from inner")
    assert inner.seen == [ctx]


def test_with_a_bundle_a_diff_naming_a_selected_proposal_must_carry_its_edit() -> None:
    policy = EvidenceRankingAcceptance(report_path(BASIC), inner=_Recording(), bundle=bundle_path(BASIC))

    smuggled = policy.accept(_context("p-env-9", {"anything": "at all"}))
    honest = policy.accept(_context("p-env-9", op_map(BASIC, "p-env-9")))

    assert smuggled.accept is False and smuggled.category == "critic-rejected"
    assert smuggled.detail.startswith("evidence-ranking-v1: no proposal")
    assert honest.detail == "from inner"


def test_a_diff_that_matches_no_proposal_is_refused_saying_so() -> None:
    inner = _Recording()
    policy = EvidenceRankingAcceptance(report_path(BASIC), inner=inner)

    decision = policy.accept(_context("w0:x:1", {"k": "v"}))

    assert decision == AcceptDecision(
        False,
        "critic-rejected",
        "evidence-ranking-v1: no proposal of run run-2026-09-06-b78 matched diff w0:x:1",
        observed_delta=0.5,
    )
    assert inner.seen == []


def test_without_a_bundle_only_the_diff_id_can_match() -> None:
    ctx = _context("w0:k-flaky-8", op_map(MIXED, "p_hook-9"))

    without = EvidenceRankingAcceptance(report_path(MIXED), inner=_Recording()).accept(ctx)
    with_bundle = EvidenceRankingAcceptance(report_path(MIXED), inner=_Recording(), bundle=bundle_path(MIXED))

    assert without.detail.startswith("evidence-ranking-v1: no proposal")
    assert with_bundle.accept(ctx).detail == "from inner"


def test_a_remove_operation_matches_a_diff_that_maps_its_key_to_none() -> None:
    policy = EvidenceRankingAcceptance(report_path(CONFLICT), inner=_Recording(), bundle=bundle_path(CONFLICT))

    decision = policy.accept(_context("w0:remove", {"ci-vendor-21": None}))

    assert decision.detail == "evidence-ranking-v1: diff w0:remove matches p.timeout-38 (superseded: rank.conflict)"


def test_a_diff_matching_a_selected_proposal_and_its_superseded_duplicates_is_backed() -> None:
    inner = _Recording()
    policy = EvidenceRankingAcceptance(report_path(DUPLICATE), inner=inner, bundle=bundle_path(DUPLICATE))
    ops = op_map(DUPLICATE, "p.pytest_import-31")
    assert ops == op_map(DUPLICATE, "p-hook-make-10")  # the corpus's premise

    decision = policy.accept(_context("w0:dup", ops))

    assert decision.accept
    assert len(inner.seen) == 1


def test_a_custom_matcher_decides_which_proposals_a_diff_implements() -> None:
    seen: list[tuple[str, ...]] = []

    def by_author(diff: Diff, proposals: Any) -> list[str]:
        seen.append(tuple(p.id for p in proposals))
        return ["p_hook-9"] if diff.author == "trusted" else []

    policy = EvidenceRankingAcceptance(report_path(MIXED), inner=_Recording(), match=by_author)
    ctx = _context("anything", {})
    trusted = replace(ctx, diff=Diff("anything", "artifact", {}, author="trusted"))

    assert policy.accept(trusted).detail == "from inner"
    assert policy.accept(ctx).detail.endswith("no proposal of run run-2026-01-28-b44 matched diff anything")
    assert seen[0] == ("p-token-27", "p-yaml_env-54", "p.build-16", "p_branch-67", "p_hook-9", "p_retry-build-37")


def test_a_matcher_naming_a_proposal_the_report_lacks_raises_value_error() -> None:
    policy = EvidenceRankingAcceptance(
        report_path(BASIC), inner=_Recording(), match=lambda diff, proposals: ["p-ghost"]
    )

    with pytest.raises(ValueError, match="matcher returned 'p-ghost', which is not a proposal of run"):
        policy.accept(_context("p-env-9", {}))


def test_configure_and_bind_reach_the_inner_policy() -> None:
    inner = _Recording()
    policy = EvidenceRankingAcceptance(report_path(BASIC), inner=inner)
    verifier, config = object(), AggregatorConfig()

    install_policy(policy, verifier, config)  # what the aggregator does on install

    assert (inner.verifier, inner.config) == (verifier, config)


def test_the_default_inner_is_agentdescents_beta_posterior_test() -> None:
    policy = EvidenceRankingAcceptance(report_path(BASIC))

    policy.configure(AggregatorConfig(base_delta=0.25))

    assert isinstance(policy, AcceptancePolicy)
    assert isinstance(policy.inner, DefaultAcceptance)
    assert policy.inner.base_delta == 0.25


# -- the report is verified when the policy is built ---------------------------


def test_an_unsealed_report_is_refused_when_the_policy_is_built() -> None:
    report = report_of(BASIC)
    report["proposals"][0]["rationale"] = "edited after sealing"

    with pytest.raises(EvidenceRankError) as refused:
        EvidenceRankingAcceptance(report)

    assert refused.value.code == "invariant.sealed"


def test_a_resealed_report_that_selects_a_rejected_proposal_is_refused_when_the_policy_is_built() -> None:
    report = report_of(MIXED)
    (entry,) = [p for p in report["proposals"] if p["id"] == "p_retry-build-37"]
    entry["disposition"] = "selected"
    report["selected"].append("p_retry-build-37")

    with pytest.raises(EvidenceRankError) as refused:
        EvidenceRankingAcceptance(seal(report))

    assert refused.value.code.startswith("invariant.")
    assert refused.value.code != "invariant.sealed"


def test_a_bundle_the_report_did_not_rank_is_refused() -> None:
    with pytest.raises(TamperError) as refused:
        EvidenceRankingAcceptance(report_path(BASIC), bundle=bundle_path(MIXED))

    assert (refused.value.code, refused.value.pointer) == ("report.tampered", "/input_digest")


def test_a_report_that_is_not_what_its_bundle_produces_is_refused() -> None:
    # Sealed and self-consistent, but not what ranking MIXED's bundle gives.
    report = report_of(MIXED)
    report["run"] = "run-elsewhere"

    with pytest.raises(TamperError) as refused:
        EvidenceRankingAcceptance(seal(report), bundle=bundle_path(MIXED))

    assert refused.value.code == "report.tampered"


def test_a_report_file_that_is_not_i_json_is_refused() -> None:
    raw = report_path(BASIC).read_bytes()
    duplicated = raw.replace(b'{"config":', b'{"run":"other","config":', 1)

    with pytest.raises(InputError) as refused:
        EvidenceRankingAcceptance(duplicated)

    assert refused.value.code == "input.malformed_json"
    assert "duplicate member name 'run'" in refused.value.message


def test_a_report_given_as_a_path_bytes_or_a_mapping_reads_the_same() -> None:
    path = report_path(MIXED)
    policies = [EvidenceRankingAcceptance(source) for source in (path, str(path), path.read_bytes(), report_of(MIXED))]

    assert len({(p.run, p.digest, p.proposals) for p in policies}) == 1
    assert [p.id for p in policies[0].proposals if p.disposition == "selected"] == ["p_hook-9"]


# -- the report's policy is pinned when the policy is built -----------------------
# MIXED's bundle ranked with {"threshold": 0, "min_lineages": 1}: a genuine report that selects five
# proposals where the SPEC §2 defaults select one.

_LOOSE = {"threshold": 0, "min_lineages": 1}


def _loosened() -> dict[str, Any]:
    return rank(load_bundle(bundle_path(MIXED).read_bytes()), parse_config(_LOOSE)).report


@pytest.mark.parametrize("with_bundle", [True, False], ids=["with bundle", "without bundle"])
def test_a_report_ranked_with_a_loosened_config_is_refused_by_default(with_bundle: bool) -> None:
    bundle = {"bundle": bundle_path(MIXED)} if with_bundle else {}

    with pytest.raises(PolicyError) as refused:
        EvidenceRankingAcceptance(_loosened(), **bundle)

    assert (refused.value.code, refused.value.pointer) == ("policy.config_mismatch", "/config/min_lineages")
    assert refused.value.detail == (
        "the report was not ranked with the pinned policy: min_lineages is 1 in the report, 2 in the pinned "
        "policy; threshold is 0 in the report, 40 in the pinned policy"
    )


@pytest.mark.parametrize("config", [_LOOSE, parse_config(_LOOSE)], ids=["mapping", "Config"])
def test_a_report_ranked_with_the_pinned_config_builds_the_policy(config: Any) -> None:
    policy = EvidenceRankingAcceptance(_loosened(), bundle=bundle_path(MIXED), config=config)

    assert policy.pinned == parse_config(_LOOSE)
    assert len([p for p in policy.proposals if p.disposition == "selected"]) == 5


def test_a_pinned_config_refuses_a_report_ranked_with_the_defaults() -> None:
    with pytest.raises(PolicyError, match="threshold is 40 in the report, 0 in the pinned policy"):
        EvidenceRankingAcceptance(report_path(MIXED), config=_LOOSE)


def test_config_none_trusts_the_reports_own_config() -> None:
    policy = EvidenceRankingAcceptance(_loosened(), config=None)

    assert policy.pinned is None
    assert len([p for p in policy.proposals if p.disposition == "selected"]) == 5


def test_a_pinned_config_outside_spec_2_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"^config\.invalid at '/max_selected'"):
        EvidenceRankingAcceptance(report_path(MIXED), config={"max_selected": 9})


# -- the curator's notes ---------------------------------------------------------


def test_report_notes_say_what_to_do_next_with_each_edit_the_report_did_not_select() -> None:
    notes = report_notes(report_path(MIXED))

    # p_hook-9 (selected) gets none; the deferred are told to retry, the rest not to repeat as they are,
    # and the budget keeps the do-not-repeat notes first (docs/ledger.md, "Order and budget").
    assert [(n.proposal, n.kind) for n in notes] == [
        ("p_retry-build-37", "do-not-repeat"),
        ("p-token-27", "do-not-repeat"),
        ("p_branch-67", "retry"),
        ("p.build-16", "retry"),
        ("p-yaml_env-54", "retry"),
    ]
    (below,) = [n for n in notes if n.proposal == "p-yaml_env-54"]
    assert below.line.startswith(
        'retry: proposal p-yaml_env-54 ("Run branch lint build index import crème index mock index #2774a1!") — '
        "deferred in run-2026-01-28-b44. It was accepted, but its final score is below the threshold of 40. "
        "What to do: Its score of 32 is below the threshold of 40: propose it again when"
    )


def test_a_conflict_note_names_the_edit_that_won() -> None:
    report = report_of(CONFLICT)
    notes = report_notes(report_path(CONFLICT), bundle=bundle_path(CONFLICT))

    assert {n.kind for n in notes} == {"do-not-repeat"}
    for note in notes:
        (entry,) = [e for e in report["proposals"] if e["id"] == note.proposal]
        assert note.winner is not None and f"The edit that won: {note.winner}." in note.line
        assert entry["superseded_by"] in note.line


def test_report_notes_can_be_limited_to_one_lesson() -> None:
    notes = report_notes(report_of(MIXED), lesson="les-yaml-38")

    assert [(n.proposal, n.lesson) for n in notes] == [("p_retry-build-37", "les-yaml-38")]


def test_an_incomplete_proposal_has_no_edit_to_name_and_gets_no_note() -> None:
    assert report_notes(report_path("006-incomplete-non-object")) == ()


def test_a_note_is_one_line_within_its_budget_however_long_the_rationale() -> None:
    report = report_of(MIXED)
    (entry,) = [p for p in report["proposals"] if p["id"] == "p_retry-build-37"]
    entry["rationale"] = "Never\n\tbuild twice. " * 100

    (note,) = report_notes(seal(report), lesson="les-yaml-38")

    assert note.line.startswith('do not repeat as it is: proposal p_retry-build-37 ("Never build twice. Never')
    assert '…") — rejected in' in note.line
    assert "\n" not in note.line and "\t" not in note.line
    assert len(note.line.encode()) <= 700


def test_report_notes_refuse_an_unsealed_report() -> None:
    report = report_of(MIXED)
    report["selected"] = []

    with pytest.raises(EvidenceRankError) as refused:
        report_notes(report)

    assert refused.value.code == "invariant.sealed"
