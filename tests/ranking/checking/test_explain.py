"""``ranking.checking.explain``: plain-language reasons for one proposal, as
:meth:`Explanation.render` gives them (the command's own tests are
tests/ranking/cli/test_cli_explain.py).

Reports and bundles are the parity corpus's. 068 has two duplicates of
``p.pytest_import-31``; in 069 ``p.timeout-38`` wants to remove the key that
``p/modulealpha-29`` replaces; in 002 every disposition occurs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from curator_io import DEFAULT_CONFIG, InvariantError, TamperError, load_bundle
from ranking.checking.acceptance import accept
from ranking.checking.explain import SENTENCES, UnknownProposal, explain, reason_sentence
from ranking.pipeline import rank, scoring, selection
from tests.conftest import PARITY, expected_report
from validator.reasons import DISPOSITION_OF

DUPLICATE = PARITY / "068-rank-duplicate-different-rationale"
CONFLICT = PARITY / "069-rank-conflict-same-key-different-text"
MIXED = PARITY / "002-mixed-dispositions"
TWO_REASONS = (
    PARITY / "030-artifact-invalid-digest"
)  # p.vendor-merge-50: artifact.invalid_digest, closure.stale_instruction
RANK_CODES = {"rank.selected", "rank.limit", "rank.duplicate", "rank.conflict", "rank.below_threshold"}


def _explain(case: Path, pid: str, *, bundle: bool = False) -> list[str]:
    """The lines ``explain`` renders for ``pid`` of the case's report, accepted with its bundle or alone."""
    report = (case / "expected.report.json").read_bytes()
    replayed = (case / "bundle.json").read_bytes() if bundle else None
    return explain(accept(report, bundle=replayed), pid).render()


def _fingerprint(case: Path, pid: str) -> str:
    """``fingerprint`` and the first 12 hex digits of the proposal's fingerprint, as the headline shows it."""
    (entry,) = [e for e in expected_report(case)["proposals"] if e["id"] == pid]
    return "fingerprint " + entry["fingerprint"].removeprefix("sha256:")[:12]


def test_every_reason_code_has_a_sentence() -> None:
    assert set(SENTENCES) == set(DISPOSITION_OF) | RANK_CODES
    config = DEFAULT_CONFIG.to_json()
    for code in SENTENCES:
        sentence = reason_sentence(code, "subj-1", config)
        assert sentence[0].isupper() and sentence.endswith(".")
        assert "{" not in sentence
        if "{subject}" in SENTENCES[code]:
            assert "subj-1" in sentence


def test_a_sentence_uses_the_reports_config() -> None:
    config = {**DEFAULT_CONFIG.to_json(), "threshold": 42.5, "max_selected": 3}
    assert reason_sentence("rank.below_threshold", None, config) == (
        "It was accepted, but its final score is below the threshold of 42.5."
    )
    assert "first 3 survivors" in reason_sentence("rank.selected", None, config)
    assert reason_sentence("proposal.incomplete", None, config).startswith("The proposal is not a JSON object")


def test_explain_names_what_superseded_a_conflicting_proposal_and_why() -> None:
    lines = _explain(CONFLICT, "p.timeout-38")
    fingerprint = _fingerprint(CONFLICT, "p.timeout-38")
    assert lines[0] == f"p.timeout-38: superseded (validation accepted, rank 4 of 4 eligible, final 73, {fingerprint})"
    assert "  Superseded by p/modulealpha-29 (rank 3, final 74, selected)." in lines
    assert "  It ranks higher on final score: 74 > 73." in lines
    assert (
        "  [rank.conflict] It edits a key that p/modulealpha-29, a higher-ranked survivor, also edits: "
        "the two operations differ, or the two scopes do." in lines
    )
    assert "  Pass --bundle BUNDLE to see which key the two proposals disagree on." in lines


def test_explain_with_the_bundle_says_which_key_a_conflict_is_about() -> None:
    lines = _explain(CONFLICT, "p.timeout-38", bundle=True)
    assert "  Key 'ci-vendor-21': this proposal would remove it, p/modulealpha-29 would replace it." in lines
    assert "remove ci-vendor-21 (now 'Run zone build cache order retry #2d8ff8')" in "\n".join(lines)


def test_explain_on_a_duplicate_names_the_survivor_and_what_differs() -> None:
    lines = _explain(DUPLICATE, "p-hook-make-10", bundle=True)
    assert "  Superseded by p.pytest_import-31 (rank 1, final 83, selected)." in lines
    assert (
        "  [rank.duplicate] It makes exactly the same edits as p.pytest_import-31, "
        "which ranks higher (same fingerprint)." in lines
    )
    fingerprint = {p["id"]: p["fingerprint"] for p in expected_report(DUPLICATE)["proposals"]}["p-hook-make-10"]
    assert f"  Both make the same edits in the same scope: the same fingerprint {fingerprint} (SPEC §3.6)." in lines
    assert (
        "  They differ only in: lesson, confidence, rationale, support — none of which enters the fingerprint." in lines
    )


def test_explain_on_a_rejected_proposal_renders_a_sentence_for_each_reason() -> None:
    lines = _explain(TWO_REASONS, "p.vendor-merge-50")
    config = expected_report(TWO_REASONS)["config"]
    fingerprint = _fingerprint(TWO_REASONS, "p.vendor-merge-50")
    assert lines[0] == f"p.vendor-merge-50: rejected (validation rejected, {fingerprint})"
    for code in ("artifact.invalid_digest", "closure.stale_instruction"):
        assert f"  [{code}] {reason_sentence(code, 'style/docker-42', config)}" in lines
    assert "Score (SPEC §4)" not in "\n".join(lines)


def test_explain_with_the_bundle_shows_each_component_computed_from_the_evidence() -> None:
    rendered = _explain(MIXED, "p-yaml_env-54", bundle=True)
    text = "\n".join(rendered)
    lines = [line.split() for line in rendered]
    assert ["recurrence", "20", "=", "min(30,", "10", "×", "2):", "lineages", "lin.cache-44,", "lin.vendor-41"] in lines
    assert ["contradiction_penalty", "35", "=", "r2(40", "×", "21", "counter-strength", "/", "24", "strength)"] in lines
    assert "  [rank.below_threshold] It was accepted, but its final score is below the threshold of 40." in text
    assert "final                      32  = max(0, 20 + 20 + 12 + 5 + 0 + 10 − 35); threshold 40" in text
    assert (
        "  contradict ev/config-52: tool (weight 9), step 14 of 24 in trace tr-seed.config-50, lineage lin-yaml-51, "
        "materialization mat:schema-46 acme/api@b6e401cca72c (compatible); complete trace: integrity complete (20)"
    ) in rendered


def test_explain_says_when_evidence_is_quarantined() -> None:
    text = "\n".join(_explain(MIXED, "p-token-27", bundle=True))
    assert "support ev_queue-25: deterministic (weight 12)" in text
    assert "(incompatible); quarantined (materialization incompatible): it influences nothing" in text
    assert "lineages 1 of 2 required" in text


def test_explain_works_on_a_proposal_reported_by_its_index() -> None:
    case = PARITY / "006-incomplete-non-object"
    ids = [p["id"] for p in expected_report(case)["proposals"] if p["id"].startswith("@")]
    text = "\n".join(_explain(case, ids[0], bundle=True))
    assert text.startswith(f"{ids[0]}: rejected (validation rejected)")
    assert "[proposal.incomplete]" in text


def test_explain_of_an_unknown_proposal_is_refused_with_the_reports_ids() -> None:
    with pytest.raises(UnknownProposal, match="no proposal 'p-nope' in the report") as caught:
        explain(accept(expected_report(MIXED)), "p-nope")
    assert caught.value.code == "usage.unknown_proposal"
    assert caught.value.diagnostics() == (
        "the report's proposals: p-token-27, p-yaml_env-54, p.build-16, p_branch-67, p_hook-9, p_retry-build-37"
    )


def test_a_bundle_that_is_not_the_reports_is_refused_before_explain() -> None:
    with pytest.raises(TamperError, match="input_digest differs") as caught:
        explain(accept(expected_report(MIXED), bundle=load_bundle((CONFLICT / "bundle.json").read_bytes())), "p_hook-9")
    assert caught.value.code == "report.tampered"
    assert caught.value.pointer == "/input_digest"


def test_an_edited_report_is_refused_before_explain() -> None:
    report = expected_report(MIXED)
    report["proposals"][0]["rationale"] = "edited after the fact"
    with pytest.raises(InvariantError) as caught:
        explain(accept(report), "p-token-27")
    assert caught.value.code == "invariant.sealed"
    assert caught.value.pointer == "/digest"


# -- look-alikes under other keys (issue 50) ------------------------------------------------


def test_explain_lists_the_instruction_under_another_key_that_an_added_text_resembles_and_what_to_do() -> None:
    from ranking.pipeline import rank
    from tests.curator_scenario import scenario

    sealed = scenario()
    accepted = accept(rank(sealed.bundle).canonical, bundle=sealed.canonical)
    lines = explain(accepted, "p-deps").render()
    at = lines.index("Look-alikes under other keys (advice: SPEC decides duplicates and conflicts by key)")
    assert lines[at + 1 : at + 3] == [
        "  add deps.install resembles memory 'deps.setup' (score 100; shared words: anything, uv, sync, install, "
        "dependencies): 'Install the dependencies with uv sync before running anything.'",
        "    if it updates 'deps.setup', replace 'deps.setup' with this text instead of adding 'deps.install'",
    ]
    assert not any(line.startswith("Look-alikes") for line in explain(accepted, "p-lint").render())


def test_explain_without_the_bundle_says_nothing_of_look_alikes() -> None:
    from ranking.pipeline import rank
    from tests.curator_scenario import scenario

    accepted = accept(rank(scenario().bundle).canonical)
    assert not any("resembles" in line for line in explain(accepted, "p-deps").render())


# Explain states no rule of its own: change a rule's function and explain says what the changed rule did.


def test_explain_names_the_member_of_the_order_key_that_put_the_survivor_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    accepted = accept(expected_report(CONFLICT))
    survivor = "  It ranks higher on final score: 74 > 73."
    assert survivor in explain(accepted, "p.timeout-38").render()

    # SPEC §5.2 with the score, the lineages and the earliest evidence left out: the id alone decides.
    monkeypatch.setattr(selection, "order_key", lambda final, lineages, earliest, pid: (0, 0, "", pid))
    lines = explain(accepted, "p.timeout-38").render()

    assert survivor not in lines
    assert (
        "  Equal final score, lineages and earliest evidence; its id sorts first: p/modulealpha-29 < p.timeout-38."
        in lines
    )


def test_explain_shows_the_scope_coverage_that_scoring_gave(monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = load_bundle((MIXED / "bundle.json").read_bytes())
    before = explain(accept(rank(bundle, DEFAULT_CONFIG).report, bundle=bundle), "p-yaml_env-54").render()
    evidence = "mat:kernel-39; R = 1 (acme/api@30c7a4d75fc2)"
    assert f"  scope_coverage              5  = min(10, 5 × 1) + 0: {evidence}" in before

    # The second term of SPEC §4 scope_coverage given whatever R is: the report, replayed, and explain follow.
    spread = scoring.scope_coverage_terms
    monkeypatch.setattr(scoring, "scope_coverage_terms", lambda m, r: (spread(m, r)[0], 5))
    after = explain(accept(rank(bundle, DEFAULT_CONFIG).report, bundle=bundle), "p-yaml_env-54").render()

    assert f"  scope_coverage             10  = min(10, 5 × 1) + 5: {evidence}" in after
    assert "  final                      37  = max(0, 20 + 20 + 12 + 10 + 0 + 10 − 35); threshold 40" in after
