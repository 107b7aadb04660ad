"""Sealing a hand-edited bundle (curator_io.sealing), as a fixture writer does."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from curator_io import InputError, canon, digest, is_sealed, load_bundle, parse_json
from curator_io.sealing import seal_bundle, unsealed_places
from ranking.pipeline import rank
from ranking.testing import reason_codes
from tests.conftest import FIXTURES

EXAMPLE = FIXTURES / "example.json"


def _example() -> dict[str, Any]:
    return parse_json(EXAMPLE.read_bytes())


def _edited() -> dict[str, Any]:
    """The example with the summary of ev-4 (evidence[1]) reworded by hand."""
    doc = _example()
    assert doc["evidence"][1]["id"] == "ev-4"
    doc["evidence"][1]["summary"] = "make test exited 0; bare pytest had exited 2 on a missing DATABASE_URL"
    return doc


def test_a_shipped_fixture_is_sealed_everywhere() -> None:
    assert unsealed_places(_example()) == []


def test_sealing_a_sealed_bundle_changes_nothing() -> None:
    doc = _example()
    assert seal_bundle(doc) == doc


def test_a_hand_edited_bundle_is_refused_until_it_is_sealed() -> None:
    edited = _edited()
    content = digest({k: v for k, v in edited.items() if k != "frozen"})
    with pytest.raises(InputError, match=r"^input\.frozen_digest_mismatch at '/frozen/digest': ") as e:
        load_bundle(canon(edited))
    assert e.value.code == "input.frozen_digest_mismatch"
    assert e.value.pointer == "/frozen/digest"
    assert e.value.detail == f"frozen.digest is {edited['frozen']['digest']}, the content digests to {content}"

    bundle = load_bundle(canon(seal_bundle(edited)))
    assert bundle.input_digest == digest({k: v for k, v in seal_bundle(edited).items() if k != "frozen"})


def test_unsealed_places_names_the_edited_artifact_and_the_frozen_digest() -> None:
    assert unsealed_places(_edited()) == ["/evidence/1/digest", "/frozen/digest"]


def test_unsealed_places_names_a_memory_instruction_by_its_pointer() -> None:
    doc = _example()
    doc["memory"]["instructions"][1]["text"] = "CI jobs time out after 30 minutes; keep test runs under 15."
    assert unsealed_places(doc) == ["/memory/instructions/1/digest", "/frozen/digest"]


def test_an_edit_outside_every_artifact_unseals_only_the_frozen_digest() -> None:
    doc = _example()
    doc["run"]["curator"] = "curator@3.3"
    assert unsealed_places(doc) == ["/frozen/digest"]


def test_a_sealed_edit_leaves_nothing_unsealed() -> None:
    sealed = seal_bundle(_edited())
    assert unsealed_places(sealed) == []
    assert is_sealed(sealed["evidence"][1])
    assert sealed["evidence"][1]["summary"].startswith("make test exited 0; bare pytest")


def test_sealing_does_not_touch_its_argument() -> None:
    edited = _edited()
    before = copy.deepcopy(edited)
    seal_bundle(edited)
    assert edited == before


def test_resealing_only_the_frozen_digest_leaves_the_edited_evidence_to_fail_its_proposal() -> None:
    # Why seal_bundle seals artifacts too: SPEC §3.3 checks each artifact in a proposal's closure.
    edited = _edited()
    edited["frozen"] = {"digest": digest({k: v for k, v in edited.items() if k != "frozen"})}
    report = rank(load_bundle(canon(edited))).report
    (entry,) = [e for e in report["proposals"] if e["id"] == "p-make-test"]
    assert entry["disposition"] == "rejected"
    assert "artifact.digest_mismatch(ev-4)" in reason_codes(entry)

    resealed = rank(load_bundle(canon(seal_bundle(edited)))).report
    assert resealed["selected"] == ["p-make-test"]
