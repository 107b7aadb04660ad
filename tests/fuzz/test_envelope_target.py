"""The envelope target (issue 26): its mutants reach every step of the signature check, and it
catches a checker that accepts what it should not."""

from __future__ import annotations

from collections import Counter

import pytest

import ranking.signing.trust
from curator_io.errors import EvidenceRankError
from fuzz.prop import Violation
from fuzz.registry import TARGETS, generated_cases
from fuzz.seeds import fuzz_key, fuzz_trust
from fuzz.targets import _NO_BUNDLE, _bundle
from ranking.signing.trust import Signer, check_signature


def _outcome(case: dict[str, bytes]) -> str:
    bundle = _bundle(case)
    try:
        check_signature(
            case.get("signature", b""),
            fuzz_trust(),
            kind="bundle",
            digest=bundle.input_digest if bundle else _NO_BUNDLE,
        )
    except EvidenceRankError as e:
        return f"{e.code} at {e.pointer}"
    return "accepted"


def test_the_seeded_envelope_mutants_reach_each_step_of_the_check() -> None:
    seen = Counter(_outcome(case) for case in generated_cases("envelope", 200))

    assert seen["accepted"] > 0
    # A mutated envelope (its shape), a statement signed again (what it says), another bundle (its subject).
    for outcome in (
        "signature.malformed at ",
        "signature.malformed at /payloadType",
        "signature.malformed at /payload",
        "signature.subject_mismatch at /payload",
    ):
        assert seen[outcome] > 0, seen


def test_the_target_catches_a_checker_that_accepts_a_signature_over_another_bundle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def lenient(raw: bytes, trust: object, *, kind: str, digest: str) -> Signer:
        return Signer(fuzz_key().public.keyid, "fuzz")

    monkeypatch.setattr(ranking.signing.trust, "check_signature", lenient)
    cases = [c for c in generated_cases("envelope", 100) if _outcome(c).startswith("signature.subject_mismatch")]

    assert cases
    with pytest.raises(Violation, match="accepted a signature over"):
        TARGETS["envelope"].run(cases[0])
