"""``EvidenceRankingAcceptance(trust=...)``: the policy is built only over a document a trusted key signed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from curator_io import SignatureError
from curator_io.errors import ConfigError
from ranking.integrations.agentdescent import EvidenceRankingAcceptance
from ranking.signing.trust import parse_trust
from tests.ranking.integrations.agentdescent_support import (
    OneEdit,
    bundle_path,
    one_round,
    op_map,
    report_of,
    report_path,
)
from tests.signing import envelope, signing_key, trust_file

BASIC = "001-basic-accepted-selected"  # one proposal, p-env-9, selected
CURATOR, OTHER = signing_key("curator"), signing_key("other")
TRUST = trust_file((CURATOR, "Curator CI"))


def _bundle_digest() -> str:
    return json.loads(bundle_path(BASIC).read_bytes())["frozen"]["digest"]  # type: ignore[no-any-return]


@pytest.fixture
def signed(tmp_path: Path) -> Path:
    """The case's bundle beside its signature by the Curator, and the trust file."""
    shutil.copy(bundle_path(BASIC), tmp_path / "bundle.json")
    (tmp_path / "bundle.json.intoto.json").write_bytes(envelope(CURATOR, "bundle", _bundle_digest()))
    (tmp_path / "trusted-signers").write_bytes(TRUST)
    return tmp_path


def test_the_policy_refuses_an_unsigned_bundle_when_given_a_trust_list() -> None:
    with pytest.raises(SignatureError) as refused:
        EvidenceRankingAcceptance(report_path(BASIC), bundle=bundle_path(BASIC), trust=TRUST)

    assert (refused.value.code, refused.value.exit_code) == ("signature.unsigned", 4)
    assert "bundle.json.intoto.json" in refused.value.detail and "'<trust bytes>'" in refused.value.detail


def test_without_a_trust_list_the_unsigned_bundle_builds_the_policy() -> None:
    assert EvidenceRankingAcceptance(report_path(BASIC), bundle=bundle_path(BASIC)).signer is None


def test_a_bundle_signed_by_a_listed_key_builds_the_policy_and_names_its_signer(signed: Path, tmp_path: Path) -> None:
    policy = EvidenceRankingAcceptance(
        report_path(BASIC), bundle=signed / "bundle.json", trust=signed / "trusted-signers"
    )

    assert policy.signer is not None and (policy.signer.keyid, policy.signer.name) == (
        CURATOR.public.keyid,
        "Curator CI",
    )
    ops = op_map(BASIC, "p-env-9")
    _, reports = one_round(tmp_path / "repo", OneEdit("p-env-9", ops), policy)
    assert [r.category for r in reports] == ["committed"]


def test_a_bundle_signed_by_a_key_the_list_does_not_hold_is_refused(signed: Path) -> None:
    (signed / "bundle.json.intoto.json").write_bytes(envelope(OTHER, "bundle", _bundle_digest()))

    with pytest.raises(SignatureError, match=r"signature\.unknown_key") as refused:
        EvidenceRankingAcceptance(report_path(BASIC), bundle=signed / "bundle.json", trust=TRUST)

    assert refused.value.source == str(signed / "bundle.json.intoto.json")


def test_without_a_bundle_the_report_must_be_signed_and_its_signature_can_be_passed_as_bytes() -> None:
    report = report_of(BASIC)
    trust = parse_trust(TRUST, "trusted-signers")

    with pytest.raises(SignatureError, match=r"signature\.unsigned"):
        EvidenceRankingAcceptance(report, trust=trust)
    with pytest.raises(SignatureError, match=r"signature\.subject_mismatch"):
        EvidenceRankingAcceptance(report, trust=trust, signature=envelope(CURATOR, "bundle", report["digest"]))
    policy = EvidenceRankingAcceptance(report, trust=trust, signature=envelope(CURATOR, "report", report["digest"]))
    assert policy.signer is not None and policy.signer.name == "Curator CI"


def test_a_trust_file_that_cannot_be_read_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"trust\.invalid"):
        EvidenceRankingAcceptance(report_path(BASIC), bundle=bundle_path(BASIC), trust=b"# no keys\n")
