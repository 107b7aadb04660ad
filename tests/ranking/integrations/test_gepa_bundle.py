"""A GEPA proposal, or several of one parent, as a curator bundle (ranking.integrations.gepa_bundle):
pure, without gepa.

Each test ranks the bundle the way the criterion does, so what it pins is the
decision a GEPA run would see.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from curator_io import InputError, bundle_from_document, canon, load_bundle
from ranking.integrations.gepa_bundle import EPOCH, Child, Minibatch, bundle_of, bundle_of_children
from ranking.integrations.gepa_names import Unwritable, check_writable, key_of, lineage_of
from ranking.pipeline import rank

PARENT = {"instruction": "Answer."}


def _ranked(
    child: dict[str, str], before: list[float], after: list[float], parent: dict[str, str] = PARENT, **kw: Any
) -> dict[str, Any]:
    ids = kw.pop("ids", list(range(len(before))))
    trajectories = kw.pop("trajectories", [{"k": i} for i in range(len(before))])
    document = bundle_of(parent, child, Minibatch(ids, before, after, trajectories, trajectories), **kw)
    (entry,) = rank(bundle_from_document(document)).report["proposals"]
    return {"entry": entry, "bundle": document}


def _codes(ranked: dict[str, Any]) -> list[str]:
    return [r["code"] for r in ranked["entry"]["reasons"]]


def _bundle(**kw: Any) -> dict[str, Any]:
    return _ranked({"instruction": "Answer well."}, [0.0, 0.0], [1.0, 1.0], version=0, proposal="p-1-0", **kw)


def test_two_better_examples_are_two_lineages_and_the_proposal_is_selected() -> None:
    ranked = _bundle()
    assert ranked["entry"]["disposition"] == "selected"
    assert ranked["entry"]["support"]["lineages"] == 2


def test_the_bundle_is_sealed_loads_and_is_the_same_bytes_every_time() -> None:
    one, two = _bundle()["bundle"], _bundle()["bundle"]
    assert canon(one) == canon(two)
    assert load_bundle(canon(one)).input_digest == one["frozen"]["digest"]
    assert one["run"] == {"id": one["run"]["id"], "curator": "gepa", "frozen_at": EPOCH}


def test_equal_and_nan_scores_are_neither_support_nor_contradiction() -> None:
    ranked = _ranked(
        {"instruction": "Answer well."}, [0.0, 1.0, 0.5, 0.0], [1.0, 1.0, math.nan, 1.0], version=0, proposal="p-1"
    )
    (proposal,) = ranked["bundle"]["proposals"]
    assert (proposal["support"], proposal["contradict"]) == (["ev-reflection", "ev-0", "ev-3"], [])
    assert proposal["confidence"] == 0.5


def test_a_worse_example_costs_the_contradiction_penalty_and_two_worse_reject() -> None:
    one_worse = _ranked({"instruction": "Answer well."}, [0.0, 0.0, 1.0], [1.0, 1.0, 0.0], version=0, proposal="p-1")
    two_worse = _ranked({"instruction": "Answer well."}, [0, 0, 1, 1], [1, 1, 0, 0], version=0, proposal="p-1")
    assert one_worse["entry"]["disposition"] == "selected"
    assert one_worse["entry"]["score"]["contradiction_penalty"] == 20  # 40 · 12/24
    assert (two_worse["entry"]["disposition"], _codes(two_worse)) == ("rejected", ["support.counterevidence"])


def test_the_same_example_twice_in_a_minibatch_is_one_lineage() -> None:
    ranked = _ranked({"instruction": "Answer well."}, [0.0, 0.0], [1.0, 1.0], ids=[4, 4], version=0, proposal="p-1")
    assert ranked["entry"]["support"]["lineages"] == 1
    assert _codes(ranked) == ["support.insufficient_lineages"]


def test_no_trajectory_is_prefix_integrity_and_a_trajectory_rfc_8785_cannot_write_is_none() -> None:
    absent = _bundle(trajectories=None)
    opaque = _bundle(trajectories=[object(), object()])
    for ranked in (absent, opaque):
        traces = [t for t in ranked["bundle"]["traces"] if t["id"] != "tr-reflection"]
        assert {(t["completeness"], t["verified_prefix"], t["candidate_trajectory"]) for t in traces} == {
            ("partial", 1, None)
        }
        assert ranked["entry"]["disposition"] == "selected"
        assert ranked["entry"]["score"]["provenance"] == 8  # (0 + 12 + 12) / 3: the claim is unverified
    assert _bundle()["entry"]["score"]["provenance"] == 13.33  # (0 + 20 + 20) / 3


def test_a_mutation_that_improves_nothing_still_has_a_fingerprint() -> None:
    ranked = _ranked({"instruction": "Worse."}, [1.0, 1.0], [0.0, 0.0], version=0, proposal="p-1")
    assert ranked["entry"]["fingerprint"] is not None
    assert _codes(ranked) == ["support.counterevidence", "support.insufficient_lineages"]


def test_a_new_component_is_an_add_and_a_dropped_one_a_remove() -> None:
    parent = {"a": "Answer.", "b": "Be brief."}
    ranked = _ranked({"a": "Answer.", "c": "Cite."}, [0.0, 0.0], [1.0, 1.0], parent=parent, version=3, proposal="p-1")
    (proposal,) = ranked["bundle"]["proposals"]
    assert [(op["action"], op["key"]) for op in proposal["operations"]] == [("remove", "b"), ("add", "c")]
    assert ranked["bundle"]["memory"]["version"] == proposal["base_memory_version"] == 3
    assert ranked["entry"]["disposition"] == "selected"


def test_a_component_name_that_is_not_a_key_is_mapped_to_its_digest() -> None:
    assert key_of("generate_answer.predict") == "generate_answer.predict"
    assert key_of("system prompt") == "component.e16202309c921807"
    ranked = _ranked(
        {"system prompt": "Answer well."},
        [0.0, 0.0],
        [1.0, 1.0],
        parent={"system prompt": "Answer."},
        version=0,
        proposal="p-1",
    )
    assert ranked["entry"]["disposition"] == "selected"


def test_two_component_names_that_map_to_one_key_are_refused() -> None:
    clash = {"system prompt": "x", key_of("system prompt"): "y"}
    with pytest.raises(ValueError, match=r"would both be instruction 'component\.e16202309c921807'"):
        bundle_of(clash, clash, Minibatch([0], [0.0], [1.0]), version=0, proposal="p-1")


@pytest.mark.parametrize(
    ("example", "lineage"),
    [
        (7, "ex-7"),
        ("q-12", "ex:q-12"),
        ("what is 2+2?", "ex.d9d59b0971de868f"),
        (-1, "ex.1bad6b8cf97131fc"),
        (True, "ex.b5bea41b6c623f7c"),
        (("a", 1), "ex.135f17a475a61afd"),
    ],
)
def test_data_ids_become_lineages_that_never_collide_across_kinds(example: Any, lineage: str) -> None:
    assert lineage_of(example) == lineage


def test_a_data_id_that_is_not_json_is_unwritable_and_names_itself() -> None:
    # Data, not a programming error: the criterion rejects the proposal (test_gepa.py).
    with pytest.raises(Unwritable, match=r"^data id <object object at 0x[0-9a-f]+>: not JSON: unsupported type"):
        lineage_of(object())


def test_an_int_data_id_too_long_for_an_id_is_unwritable_not_an_input_error() -> None:
    assert lineage_of(10**124) == f"ex-{10**124}"
    with pytest.raises(Unwritable, match="exceeds safe integer domain"):
        lineage_of(10**125)


_CHILDS = "the child's component 'instruction'"


@pytest.mark.parametrize(
    ("child", "place", "why"),
    [
        ({"instruction": "ok \ud83d"}, _CHILDS, "a lone surrogate (U+D83D) at character 3"),
        ({"a\ud800": "x\udfff"}, "the child's component 'a\\ud800'", "a lone surrogate (U+DFFF) at character 1"),
        ({"instruction": math.inf}, _CHILDS, "not JSON: inf is not representable in JCS"),
    ],
)
def test_a_component_text_rfc_8785_cannot_write_is_unwritable_naming_its_place(
    child: dict[str, Any], place: str, why: str
) -> None:
    with pytest.raises(Unwritable) as caught:
        bundle_of(PARENT, child, Minibatch([0], [0.0], [1.0]), version=0, proposal="p-1")
    assert (caught.value.place, caught.value.why) == (place, why)


def test_a_minibatch_whose_lengths_differ_is_refused() -> None:
    with pytest.raises(ValueError, match=r"a minibatch of 2 examples with scores or trajectories of lengths \[2, 1\]"):
        Minibatch([0, 1], [0.0, 0.0], [1.0])


def test_a_parent_component_longer_than_an_instruction_may_be_is_an_input_error() -> None:
    # SPEC §1: an instruction's text is 1-4000 bytes; the memory cannot hold this parent, and the
    # builder refuses it as the loader does, at the place.
    with pytest.raises(InputError) as caught:
        bundle_of({"a": "x" * 4001}, {"a": "y"}, Minibatch([0], [0.0], [1.0]), version=0, proposal="p-1")
    assert (caught.value.code, caught.value.pointer) == ("input.schema", "/memory/instructions/0/text")


# --- several children of one parent: one bundle, SPEC §5 across them ---


def _child(proposal: str, text: str, ids: list[Any], before: list[float], after: list[float]) -> Child:
    return Child(proposal, {"instruction": text}, Minibatch(ids, before, after))


def _family(*children: Child, **kw: Any) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The bundle of ``children`` of PARENT, and its report's entries by id."""
    sealed = bundle_of_children(PARENT, children, version=0, **kw)
    report = rank(sealed.bundle).report
    return dict(sealed.document), {e["id"]: e for e in report["proposals"]}


def test_a_bundle_of_one_child_is_the_bundle_of_that_proposal_byte_for_byte() -> None:
    minibatch = Minibatch([0, 1, 2], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [{"k": 0}] * 3, [{"k": 1}] * 3)
    one = bundle_of(PARENT, {"instruction": "Answer well."}, minibatch, version=2, proposal="p-1-0")
    family = bundle_of_children(PARENT, [Child("p-1-0", {"instruction": "Answer well."}, minibatch)], version=2)
    assert canon(one) == family.canonical


def test_each_child_cites_only_the_examples_of_its_own_minibatch() -> None:
    document, entries = _family(
        _child("p-1-0", "Answer well.", [0, 1], [0.0, 0.0], [1.0, 1.0]),
        _child("p-1-1", "Answer briefly.", [1, 2, 3], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
    )
    first, second = document["proposals"]
    assert (first["support"], first["contradict"]) == (["ev-reflection", "ev-0", "ev-1"], [])
    assert (second["support"], second["contradict"]) == (["ev-reflection", "ev-2"], ["ev-4"])
    lineage = {t["id"]: t["lineage"] for t in document["traces"]}
    assert [lineage[f"tr-{k}"] for k in range(5)] == ["ex-0", "ex-1", "ex-1", "ex-2", "ex-3"]
    # Example 1 is in both minibatches: one lineage, one materialization, a trace for each child.
    assert sorted(m["id"] for m in document["materializations"]) == [
        "mat-ex-0",
        "mat-ex-1",
        "mat-ex-2",
        "mat-ex-3",
        "mat-reflection",
    ]
    assert (entries["p-1-0"]["disposition"], entries["p-1-1"]["support"]["lineages"]) == ("selected", 1)


def test_the_same_edit_twice_collapses_to_one_and_another_edit_of_the_component_loses() -> None:
    _, entries = _family(
        _child("p-1-0", "Answer well.", [0, 1, 2], [0.0, 0.0, 0.0], [1.0, 1.0, 0.0]),
        _child("p-1-1", "Answer well.", [3, 4, 5], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
        _child("p-1-2", "Answer briefly.", [0, 1, 2], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
    )
    found = {k: (e["disposition"], e["rank"], _codes({"entry": e})[-1], e["superseded_by"]) for k, e in entries.items()}
    # p-1-1 and p-1-2 rank first (better on three lineages, not two); SPEC §5.3 walks in rank order.
    assert found == {
        "p-1-1": ("selected", 1, "rank.selected", None),
        "p-1-2": ("superseded", 2, "rank.conflict", "p-1-1"),
        "p-1-0": ("superseded", 3, "rank.duplicate", "p-1-1"),
    }


def test_two_children_with_one_proposal_id_are_refused() -> None:
    twice = _child("p-1", "Answer well.", [0], [0.0], [1.0])
    with pytest.raises(ValueError, match="distinct proposal ids: \\['p-1', 'p-1'\\]"):
        bundle_of_children(PARENT, [twice, twice], version=0)


def test_check_writable_names_what_of_one_child_no_bundle_can_hold() -> None:
    check_writable(PARENT, {"instruction": "Answer well."}, [0, "q-1"])
    with pytest.raises(Unwritable, match=r"^the child's component 'instruction': a lone surrogate"):
        check_writable(PARENT, {"instruction": "Answer \udc00"}, [0])
    with pytest.raises(Unwritable, match=r"^data id <object"):
        check_writable(PARENT, {"instruction": "Answer well."}, [object()])


def test_a_component_only_one_child_adds_is_that_childs_edit_and_no_other_childs() -> None:
    document, entries = _family(
        Child("p-1-0", {"instruction": "Answer well."}, Minibatch([0, 1], [0.0, 0.0], [1.0, 1.0])),
        Child("p-1-1", {"instruction": "Answer.", "format": "One line."}, Minibatch([2, 3], [0.0, 0.0], [1.0, 1.0])),
    )

    first, second = document["proposals"]
    assert [(op["action"], op["key"]) for op in first["operations"]] == [("replace", "instruction")]
    assert [(op["action"], op["key"]) for op in second["operations"]] == [("add", "format")]
    assert {e["disposition"] for e in entries.values()} == {"selected"}
