"""The published bundle schema is an authoring schema: it describes proposals and their
operations as SPEC §1 does, so an editor flags an unknown or misspelled member.

A bundle matches it exactly when the spec accepts the bundle and every proposal in it whole
(no input error, no ``proposal.incomplete``), as the parity corpus's expected outputs say.
Where SPEC §1 says more than a JSON Schema can (UTF-8 bytes, calendar dates, uniqueness by a
member), the schema is looser, never stricter: it never flags what the spec accepts.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from curator_io import load_bundle
from curator_io.kinds import PROPOSAL
from curator_io.published import published_schema
from curator_io.sealing import seal_bundle
from ranking.pipeline import rank
from tests.conftest import FIXTURES, parity_cases
from validator.proposal import Proposal, check_structure

VALIDATOR = Draft202012Validator(published_schema("bundle"))
SCORED = [c for c in parity_cases() if not (c / "expected.error.json").exists()]
SCHEMA_ERRORS = [
    c
    for c in parity_cases()
    if (c / "expected.error.json").exists() and "input.schema" in (c / "expected.error.json").read_text()
]
#: input.schema cases a JSON Schema cannot catch, and why.
LOOSER = {"082-input-schema-evidence-timestamp-feb-30": "a pattern cannot know February has no 30th"}


def _whole(case: Path) -> bool:
    validation = json.loads((case / "expected.validation.json").read_bytes())
    return not any(r["code"] == "proposal.incomplete" for e in validation["proposals"] for r in e["reasons"])


@pytest.mark.parametrize("case", SCORED, ids=lambda c: c.name)
def test_a_scored_bundle_matches_exactly_when_every_proposal_is_whole(case: Path) -> None:
    assert VALIDATOR.is_valid(json.loads((case / "bundle.json").read_bytes())) == _whole(case)


def test_the_corpus_has_bundles_on_both_sides() -> None:
    assert sum(map(_whole, SCORED)) >= 50
    assert sum(not _whole(c) for c in SCORED) >= 10


@pytest.mark.parametrize("case", SCHEMA_ERRORS, ids=lambda c: c.name)
def test_a_bundle_refused_with_input_schema_does_not_match(case: Path) -> None:
    assert VALIDATOR.is_valid(json.loads((case / "bundle.json").read_bytes())) == (case.name in LOOSER)


def _rename(obj: dict[str, Any], old: str, new: str) -> None:
    obj[new] = obj.pop(old)


def _edit(action: str, /, drop: str | None = None, **extra: Any) -> Any:
    """A typo in an operation of ``action`` on the memory's first instruction, as the proposal's only one."""

    def apply(proposal: dict[str, Any], target: dict[str, Any]) -> None:
        op = {"action": action, "key": target["key"], "text": "Run make test.", "expected_digest": target["digest"]}
        if action == "remove":
            del op["text"]
        if action == "add":
            del op["expected_digest"]
        if drop is not None:
            del op[drop]
        proposal["operations"] = [{**op, **extra}]

    return apply


#: Hand-made mistakes in fixtures/example.json's first proposal, each one §3.1 rejects: a
#: misspelled or unknown member, a value of the wrong kind, a missing member.
TYPOS = {
    "rationalle": lambda p, m: _rename(p, "rationale", "rationalle"),
    "contradicts": lambda p, m: _rename(p, "contradict", "contradicts"),
    "supports": lambda p, m: _rename(p, "support", "supports"),
    "lesson missing": lambda p, m: p.pop("lesson"),
    "confidence as a string": lambda p, m: p.update(confidence="0.8"),
    "confidence above 1": lambda p, m: p.update(confidence=1.5),
    "no support": lambda p, m: p.update(support=[]),
    "scope level misspelled": lambda p, m: p["scope"].update(level="repo"),
    "an extra scope member": lambda p, m: p.update(scope={"level": "global", "repository": "acme/api"}),
    "no operations": lambda p, m: p.update(operations=[]),
    "action misspelled": _edit("add", action="ad"),
    "empty text": _edit("add", text=""),
    "text on a remove": _edit("remove", text="x"),
    "expected_hash": _edit("replace", expected_hash="sha256:" + "0" * 64, drop="expected_digest"),
    "replace without its digest": _edit("replace", drop="expected_digest"),
    "a digest on an add": _edit("add", expected_digest="sha256:" + "0" * 64),
}


@pytest.mark.parametrize("action", ["add", "replace", "remove"])
def test_each_action_written_right_matches(action: str) -> None:
    # The typos below are each one change away from one of these.
    doc = copy.deepcopy(EXAMPLE)
    _edit(action)(doc["proposals"][0], doc["memory"]["instructions"][0])
    assert VALIDATOR.is_valid(doc)


EXAMPLE = json.loads((FIXTURES / "example.json").read_bytes())


def test_the_example_matches_and_so_does_a_proposal_without_a_rationale() -> None:
    assert VALIDATOR.is_valid(EXAMPLE)
    doc = copy.deepcopy(EXAMPLE)
    del doc["proposals"][0]["rationale"]  # SPEC §1: optional
    assert VALIDATOR.is_valid(doc)


@pytest.mark.parametrize("typo", TYPOS)
def test_each_typo_fails_the_schema_inside_the_proposal_as_validation_rejects_it(typo: str) -> None:
    doc = copy.deepcopy(EXAMPLE)
    TYPOS[typo](doc["proposals"][0], doc["memory"]["instructions"][0])

    errors = list(VALIDATOR.iter_errors(doc))
    assert errors
    assert all(list(e.absolute_path)[:2] == ["proposals", 0] for e in errors)
    # The spec agrees: the bundle is scored and the proposal is rejected as incomplete.
    result = rank(load_bundle(json.dumps(seal_bundle(doc)).encode()))
    pid = doc["proposals"][0].get("id")
    (entry,) = [e for e in result.validation.report["proposals"] if e["id"] == pid]
    assert [r["code"] for r in entry["reasons"]] == ["proposal.incomplete"]


def _proposals() -> list[Any]:
    """Every proposal of the corpus's scored bundles, whole or not, and each typo's."""
    out = [p for case in SCORED for p in json.loads((case / "bundle.json").read_bytes())["proposals"]]
    for typo in TYPOS.values():
        doc = copy.deepcopy(EXAMPLE)
        typo(doc["proposals"][0], doc["memory"]["instructions"][0])
        out.append(doc["proposals"][0])
    return out


def test_the_proposal_kind_says_what_the_validator_checks() -> None:
    # The table the schema is generated from states §3.1 exactly (the schema is looser only where
    # JSON Schema cannot follow), and validation rejects exactly the proposals it does not match.
    proposals = _proposals()
    verdicts = [isinstance(check_structure(raw, i), Proposal) for i, raw in enumerate(proposals)]
    assert [PROPOSAL.matches(raw) for raw in proposals] == verdicts
    assert 0 < sum(verdicts) < len(verdicts)


def _looser_than_the_spec() -> dict[str, dict[str, Any]]:
    """Proposals §3.1 rejects that the schema cannot: one in each place it is looser."""
    doc = copy.deepcopy(EXAMPLE)
    twice = copy.deepcopy(doc["proposals"][0])
    twice["operations"] = twice["operations"] * 2  # a key twice
    wide = copy.deepcopy(doc["proposals"][0])
    wide["rationale"] = "é" * 1001  # 1,001 characters, 2,002 UTF-8 bytes
    return {"a key twice": twice, "2,002 bytes of rationale": wide}


@pytest.mark.parametrize("name", ["a key twice", "2,002 bytes of rationale"])
def test_where_the_schema_is_looser_the_kind_and_the_validator_still_reject(name: str) -> None:
    raw = _looser_than_the_spec()[name]
    doc = {**copy.deepcopy(EXAMPLE), "proposals": [raw]}

    assert VALIDATOR.is_valid(doc)
    assert not PROPOSAL.matches(raw)
    assert not isinstance(check_structure(raw, 0), Proposal)
