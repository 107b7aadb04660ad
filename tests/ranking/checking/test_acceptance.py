"""The acceptance door (``ranking.checking.acceptance``), called as a library, step by step.

Each step of :func:`accept` refuses with its class, its code and its message, and where two
steps would refuse, the earlier one does (python-tuf's ``test_trusted_metadata_set.py``: the
trusted set's steps, one test each, and their order). The genuine inputs are parity case 002's
bundle and report, the bundle signed by the curator's key, the SPEC §2 defaults it was ranked
with, and the bundle's own memory as the base; each test spoils one of them, or two.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from curator_io import DEFAULT_CONFIG, MemoryFile, canon, load_bundle, parse_json, seal
from curator_io.config import parse_config
from curator_io.errors import ConfigError, InputError, InvariantError, SignatureError, TamperError
from curator_io.markdown.document import write_markdown_memory
from ranking.checking.acceptance import (
    Accepted,
    NotPinned,
    Replayed,
    Sources,
    accept,
    accept_batch,
    accept_bundle,
    accept_validation,
)
from ranking.cli import main
from ranking.running.outputs import REPORT, SUMMARY
from tests.conftest import PARITY
from tests.signing import envelope, signing_key, trust_file
from validator import validate

MIXED = PARITY / "002-mixed-dispositions"
OTHER = PARITY / "069-rank-conflict-same-key-different-text"
REPORT_BYTES = (MIXED / "expected.report.json").read_bytes()
BUNDLE_BYTES = (MIXED / "bundle.json").read_bytes()
BUNDLE = load_bundle(BUNDLE_BYTES)
CURATOR, STRANGER = signing_key("curator"), signing_key("stranger")
TRUST = trust_file((CURATOR, "Curator CI"))
SIGNATURE = envelope(CURATOR, "bundle", BUNDLE.input_digest)
BASE = MemoryFile(canon(parse_json(BUNDLE_BYTES)["memory"]), markdown=False)
EMPTY_BASE = MemoryFile(b'{"version": 1, "instructions": []}', markdown=False)
"""A base the bundle was not curated against."""
SOURCES = Sources(
    report="report.json",
    bundle="bundle.json",
    signature="bundle.json.sig",
    trust="trust",
    config="policy.json",
    base="base.json",
    validation="validation.json",
)
SIGNER = "Curator CI (sha256:4f9fab5917a7a3ee1d529fc40f48de5ef6d7fae0ccd2270c7296588786c95ca6)"


def _accept(**spoiled: Any) -> Accepted:
    """:func:`accept` on the genuine inputs, every step asked for, with ``spoiled`` in their place
    (``...``: that input not given)."""
    given: dict[str, Any] = {
        "report": REPORT_BYTES,
        "bundle": BUNDLE_BYTES,
        "config": DEFAULT_CONFIG,
        "trust": TRUST,
        "signature": SIGNATURE,
        "base": BASE,
        "sources": SOURCES,
        **spoiled,
    }
    report = given.pop("report")
    return accept(report, **{name: value for name, value in given.items() if value is not ...})


def _edited(edit: Any, *, resealed: bool = True) -> bytes:
    """The genuine report after ``edit(document)``, sealed again unless ``resealed`` is false."""
    doc = parse_json(REPORT_BYTES)
    edit(doc)
    return canon(seal(doc) if resealed else doc)


def _unselect(doc: dict[str, Any]) -> None:
    doc["selected"] = []


# -- every step passed ------------------------------------------------------------------------


def test_a_genuine_report_with_its_bundle_is_replayed_and_says_who_signed_the_bundle() -> None:
    accepted = _accept()

    assert isinstance(accepted, Replayed)
    assert accepted.signer is not None and accepted.signer.shown == SIGNER
    assert accepted.pinned == DEFAULT_CONFIG
    assert accepted.canonical == REPORT_BYTES
    assert accepted.result.canonical == REPORT_BYTES


def test_a_genuine_report_alone_is_accepted_on_its_invariants_with_nothing_pinned() -> None:
    accepted = accept(REPORT_BYTES)

    assert type(accepted) is Accepted
    assert (accepted.signer, accepted.pinned, accepted.replayed) == (None, None, False)
    assert accepted.report.selected == ("p_hook-9",)


def test_a_parsed_report_is_accepted_as_its_bytes_are() -> None:
    assert accept(parse_json(REPORT_BYTES)).canonical == accept(REPORT_BYTES).canonical


# -- step 0: the reader's own choices, then the bundle -----------------------------------------


def test_step_0_a_pinned_config_that_is_not_a_config_is_a_usage_error_in_its_file() -> None:
    with pytest.raises(ConfigError, match=r"^config\.invalid at '/max_selected': max_selected: expected a whole") as e:
        _accept(config=b'{"max_selected": 0}')

    assert (e.value.code, e.value.exit_code, e.value.source) == ("config.invalid", 2, "policy.json")


def test_step_0_a_trust_file_that_does_not_parse_is_a_usage_error() -> None:
    with pytest.raises(ConfigError, match=r"line 1: expected KEYID PUBLIC-KEY \[NAME\]") as e:
        _accept(trust=b"garbage\n")

    assert (e.value.code, e.value.exit_code, e.value.source) == ("trust.invalid", 2, "trust")


def test_step_0_a_bundle_that_does_not_load_is_an_input_error_in_its_file() -> None:
    with pytest.raises(InputError, match=r"^input\.schema at '/schema': missing required member 'schema'$") as e:
        _accept(bundle=b"{}")

    assert (e.value.exit_code, e.value.source) == (3, "bundle.json")


def test_step_0_the_config_is_read_before_the_trust_file_and_the_trust_file_before_the_bundle() -> None:
    with pytest.raises(ConfigError) as first:
        _accept(config=b"[]", trust=b"garbage\n", bundle=b"{}", report=b"{")
    with pytest.raises(ConfigError) as second:
        _accept(trust=b"garbage\n", bundle=b"{}", report=b"{")
    with pytest.raises(InputError) as third:
        _accept(bundle=b"{}", report=b"{")

    assert (first.value.code, second.value.code, third.value.source) == (
        "config.invalid",
        "trust.invalid",
        "bundle.json",
    )


# -- step 1: a ranking report -----------------------------------------------------------------


def test_step_1_a_report_that_is_not_json_is_an_input_error_in_its_file() -> None:
    with pytest.raises(InputError, match=r"^input\.malformed_json at '': Expecting property name enclosed in") as e:
        _accept(report=b"{")

    assert (e.value.exit_code, e.value.source) == (3, "report.json")


def test_step_1_a_bundle_given_for_the_report_is_named_as_what_it_is() -> None:
    with pytest.raises(
        InputError,
        match=r"input\.schema at '/schema': this is a curator bundle, not a ranking report "
        r"\(expected schema 'evidence-ranking-v1'\)",
    ) as e:
        _accept(report=BUNDLE_BYTES)

    assert (e.value.code, e.value.exit_code) == ("input.schema", 3)


def test_step_1_a_json_value_that_is_not_an_object_is_not_a_report() -> None:
    with pytest.raises(InputError, match=r"input\.schema at '': this is a JSON array, not a ranking report$"):
        _accept(report=b"[]")


def test_step_1_comes_before_provenance() -> None:
    with pytest.raises(InputError, match=r"^input\.malformed_json at "):
        _accept(report=b"{", signature=None)


# -- step 2: provenance -----------------------------------------------------------------------


def test_step_2_with_a_trust_file_an_unsigned_bundle_is_refused_naming_where_the_signature_was_looked_for() -> None:
    with pytest.raises(SignatureError) as e:
        _accept(signature=None)

    assert (e.value.code, e.value.exit_code, e.value.source) == ("signature.unsigned", 4, "bundle.json")
    assert e.value.detail == (
        "the bundle is not signed: there is no signature file 'bundle.json.sig', and the trust file 'trust' "
        "requires one by a key it lists"
    )


def test_step_2_a_bundle_signed_by_a_key_the_trust_file_does_not_list_is_refused() -> None:
    with pytest.raises(SignatureError, match=r"which the trust file 'trust' does not list$") as e:
        _accept(signature=envelope(STRANGER, "bundle", BUNDLE.input_digest))

    assert (e.value.code, e.value.pointer, e.value.source) == (
        "signature.unknown_key",
        "/signatures/0/keyid",
        "bundle.json.sig",
    )


def test_step_2_a_signature_over_a_report_is_not_one_over_the_bundle() -> None:
    with pytest.raises(SignatureError, match=r"signed the report sha256:.* not this bundle") as e:
        _accept(signature=envelope(CURATOR, "report", BUNDLE.input_digest))

    assert e.value.code == "signature.subject_mismatch"


def test_step_2_without_the_bundle_a_signed_reports_seal_is_checked_before_its_signature() -> None:
    signed_report = envelope(CURATOR, "report", parse_json(REPORT_BYTES)["digest"])

    assert _accept(bundle=..., base=..., signature=signed_report).signer is not None
    with pytest.raises(InvariantError, match=r"invariant\.sealed at '/digest': the report's digest does not seal") as e:
        _accept(report=_edited(_unselect, resealed=False), bundle=..., base=..., signature=None)

    assert e.value.source == "report.json"


def test_step_2_comes_before_integrity() -> None:
    with pytest.raises(SignatureError, match=r"^signature\.unsigned: "):
        _accept(report=_edited(_unselect), signature=None)


# -- step 3: integrity ------------------------------------------------------------------------


def test_step_3_without_the_bundle_a_resealed_report_that_breaks_an_invariant_is_refused() -> None:
    with pytest.raises(
        InvariantError, match=r"invariant\.partition at '/selected': selected does not list exactly the selected"
    ) as e:
        _accept(report=_edited(_unselect), bundle=..., trust=..., signature=..., base=...)

    assert (e.value.code, e.value.exit_code, e.value.source) == ("invariant.partition", 4, "report.json")


def test_step_3_with_the_bundle_a_resealed_edit_the_invariants_allow_is_still_refused_by_the_replay() -> None:
    def reword(doc: dict[str, Any]) -> None:
        doc["proposals"][0]["rationale"] = "edited after the fact"

    assert accept(_edited(reword)).report.proposals[0].rationale == "edited after the fact"
    with pytest.raises(TamperError, match=r"report\.tampered at '/proposals/0/rationale': the report differs") as e:
        _accept(report=_edited(reword))

    assert (e.value.exit_code, e.value.source) == (4, "report.json")


def test_step_3_the_report_of_another_bundle_is_refused_by_its_input_digest() -> None:
    with pytest.raises(TamperError, match=r"the report is not this bundle's: input_digest differs$") as e:
        _accept(bundle=(OTHER / "bundle.json").read_bytes(), trust=..., signature=..., base=...)

    assert e.value.pointer == "/input_digest"


def test_step_3_comes_before_the_pins() -> None:
    with pytest.raises(InvariantError):
        _accept(report=_edited(_unselect), bundle=..., base=..., trust=..., config=parse_config({"threshold": 30}))


# -- steps 4 and 5: the pins ------------------------------------------------------------------


def test_step_4_a_report_ranked_with_another_policy_names_every_member_that_differs() -> None:
    with pytest.raises(NotPinned) as e:
        _accept(config=parse_config({"threshold": 30, "max_selected": 3}))

    assert (e.value.code, e.value.exit_code, e.value.pointer) == ("policy.config_mismatch", 1, "/config/max_selected")
    assert e.value.detail == (
        "the report was not ranked with the pinned policy: max_selected is 5 in the report, 3 in the pinned "
        "policy; threshold is 40 in the report, 30 in the pinned policy"
    )
    assert e.value.signer is not None and e.value.signer.shown == SIGNER  # the genuine report, signed, only not pinned


def test_step_5_a_bundle_not_curated_against_the_base_is_refused_in_the_base_file() -> None:
    with pytest.raises(NotPinned, match=r"the bundle was curated against memory version 260 ") as e:
        _accept(base=EMPTY_BASE)

    assert (e.value.code, e.value.exit_code, e.value.source, e.value.mismatches) == (
        "policy.base_mismatch",
        1,
        "base.json",
        (),
    )


def test_step_5_the_base_is_a_memory_file_in_either_form_read_by_the_one_door() -> None:
    memory = parse_json(BUNDLE_BYTES)["memory"]
    markdown = MemoryFile(write_markdown_memory(memory), markdown=True, source="AGENTS.md")
    assert _accept(base=markdown).replayed
    with pytest.raises(NotPinned, match=r"the bundle was curated against memory version 260 ") as e:
        _accept(base=MemoryFile(write_markdown_memory({**memory, "version": 1}), markdown=True))
    assert (e.value.code, e.value.source) == ("policy.base_mismatch", "base.json")


def test_step_5_a_base_that_is_no_memory_file_is_refused_in_the_base_file() -> None:
    with pytest.raises(InputError, match=r"^input\.schema at '': expected a memory object") as e:
        _accept(base=MemoryFile(b"[]", markdown=False))
    assert e.value.source == "base.json"


def test_steps_4_and_5_are_both_checked_before_either_refuses() -> None:
    with pytest.raises(NotPinned) as e:
        _accept(base=EMPTY_BASE, config=parse_config({"threshold": 30}))

    assert e.value.code == "policy.config_mismatch"
    assert [m.pointer for m in e.value.mismatches] == ["/config/threshold"]
    assert e.value.base is not None


def test_step_5_a_base_without_a_bundle_is_a_usage_error() -> None:
    with pytest.raises(ConfigError, match=r"^usage\.invalid_option: the base is checked against a bundle: give the"):
        _accept(bundle=..., trust=..., signature=...)


# -- accept_bundle: steps 0 and 2 for a bundle about to be scored ------------------------------


def test_a_bundle_about_to_be_scored_is_loaded_and_its_signer_named() -> None:
    signed = accept_bundle(BUNDLE_BYTES, trust=TRUST, signature=SIGNATURE, sources=SOURCES)

    assert signed.bundle == BUNDLE
    assert signed.signer is not None and signed.signer.shown == SIGNER
    assert accept_bundle(BUNDLE).signer is None


def test_a_bundle_about_to_be_scored_is_refused_unsigned_when_a_trust_file_is_given() -> None:
    with pytest.raises(SignatureError, match="the bundle is not signed") as e:
        accept_bundle(BUNDLE_BYTES, trust=TRUST, sources=SOURCES)

    assert e.value.code == "signature.unsigned"


# -- accept_validation: an earlier validation report, held to its bundle ----------------------

VALIDATION = validate(BUNDLE, config=DEFAULT_CONFIG)


def test_a_validation_report_that_is_the_bundles_own_is_accepted_as_the_recomputed_one() -> None:
    held = accept_validation(
        VALIDATION.canonical, BUNDLE_BYTES, config=DEFAULT_CONFIG, trust=TRUST, signature=SIGNATURE, sources=SOURCES
    )

    assert held.validation == VALIDATION
    assert held.signer is not None and held.signer.shown == SIGNER


def test_validation_step_1_a_ranking_report_given_for_the_validation_report_is_named_as_what_it_is() -> None:
    with pytest.raises(
        InputError, match=r"^input\.schema at '/schema': this is a ranking report, not a validation report "
    ) as e:
        accept_validation(REPORT_BYTES, BUNDLE_BYTES, config=DEFAULT_CONFIG, sources=SOURCES)

    assert e.value.source == "validation.json"


def test_validation_step_1_comes_before_the_bundle() -> None:
    with pytest.raises(InputError) as e:
        accept_validation(b"{", b"{}", config=DEFAULT_CONFIG, sources=SOURCES)

    assert (e.value.code, e.value.source) == ("input.malformed_json", "validation.json")


def test_validation_step_2_with_a_trust_file_the_bundle_must_be_signed() -> None:
    with pytest.raises(SignatureError, match="the bundle is not signed"):
        accept_validation(VALIDATION.canonical, BUNDLE_BYTES, config=DEFAULT_CONFIG, trust=TRUST, sources=SOURCES)


def test_validation_step_3_an_edited_validation_report_is_refused_where_it_differs() -> None:
    doc = parse_json(VALIDATION.canonical)
    doc["proposals"][2]["validation"] = "accepted"

    with pytest.raises(TamperError, match=r"the validation report differs from the recomputed one at /proposals/2/"):
        accept_validation(canon(seal(doc)), BUNDLE_BYTES, config=DEFAULT_CONFIG, sources=SOURCES)
    with pytest.raises(TamperError, match=r"validation\.tampered at '/digest': the validation report is not sealed$"):
        accept_validation(canon(doc), BUNDLE_BYTES, config=DEFAULT_CONFIG, sources=SOURCES)


def test_validation_step_3_a_validation_made_with_another_config_is_not_this_ones() -> None:
    with pytest.raises(TamperError, match="at /config"):
        accept_validation(VALIDATION.canonical, BUNDLE, config=parse_config({"threshold": 30}), sources=SOURCES)


# -- accept_batch: a batch folder's summary and every report it names --------------------------


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[int, bytes]]:
    """A batch of two parity bundles, scored: its summary, and each report by the bundle's index."""
    folder = tmp_path_factory.mktemp("batch")
    (folder / "in").mkdir()
    for case in ("001-basic-accepted-selected", MIXED.name):
        (folder / "in" / f"{case}.json").write_bytes((PARITY / case / "bundle.json").read_bytes())
    assert main(["batch", str(folder / "in"), "--out-dir", str(folder / "out"), "-q"]) == 0
    summary = parse_json((folder / "out" / SUMMARY).read_bytes())
    reports = {e["index"]: (folder / "out" / e["output"] / REPORT).read_bytes() for e in summary["bundles"]}
    return summary, reports


def test_a_batch_is_accepted_with_every_report_it_names(batch: tuple[dict[str, Any], dict[int, bytes]]) -> None:
    summary, reports = batch

    accepted = accept_batch(summary, reports)

    assert sorted(accepted.reports) == sorted(reports)
    assert all(type(one) is Accepted for one in accepted.reports.values())


def test_batch_step_1_an_edited_summary_is_refused(batch: tuple[dict[str, Any], dict[int, bytes]]) -> None:
    summary, reports = batch
    edited = json.loads(json.dumps(summary))
    edited["bundles"][0]["selected"] = []

    with pytest.raises(TamperError, match=r"not a sealed evidence-rank-batch-v1 summary") as e:
        accept_batch(edited, reports)

    assert (e.value.code, e.value.pointer) == ("summary.tampered", "/digest")


def test_batch_step_2_a_report_the_summary_names_must_be_there(batch: tuple[dict[str, Any], dict[int, bytes]]) -> None:
    summary, reports = batch
    missing = {index: raw for index, raw in reports.items() if index != summary["bundles"][1]["index"]}

    with pytest.raises(TamperError, match=r"no report for bundle \d+$") as e:
        accept_batch(summary, missing)

    assert e.value.pointer == "/bundles/1"


def test_batch_step_2_each_report_goes_through_accept(batch: tuple[dict[str, Any], dict[int, bytes]]) -> None:
    summary, reports = batch
    first = summary["bundles"][0]["index"]

    with pytest.raises(InputError, match=r"^input\.malformed_json at ") as e:
        accept_batch(summary, {**reports, first: b"{"}, sources={first: "reports/first.json"})

    assert e.value.source == "reports/first.json"


def test_batch_step_3_a_report_that_says_other_than_the_summary_is_refused(
    batch: tuple[dict[str, Any], dict[int, bytes]],
) -> None:
    summary, reports = batch
    first, second = (e["index"] for e in summary["bundles"])
    swapped = {first: reports[second], second: reports[first]}

    with pytest.raises(TamperError, match=r"the summary's run, outcome or selected differ from reports/a\.json$") as e:
        accept_batch(summary, swapped, sources={first: "reports/a.json", second: "reports/b.json"})

    assert (e.value.code, e.value.pointer) == ("summary.tampered", "/bundles/0")
