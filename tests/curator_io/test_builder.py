"""Writing a bundle with curator_io.BundleBuilder: sealed, checked by the loader, byte for byte.

The builder states no rule of its own: what it refuses, the loader refuses, with the same
code, pointer and message. So the tests compare it with the loader rather than restate SPEC §1.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from curator_io import (
    Add,
    BundleBuilder,
    InputError,
    Remove,
    Replace,
    Scope,
    SealedBundle,
    canon,
    digest,
    fit_text,
    load_bundle,
    parse_json,
    read_memory,
    seal,
)
from curator_io.jsonio import MAX_DEPTH
from curator_io.kinds import EVIDENCE, INSTRUCTION, LESSON, MATERIALIZATION, TRACE, Kind
from curator_io.markdown.document import write_markdown_memory
from curator_io.sealing import seal_bundle
from ranking.pipeline import rank
from tests.conftest import FIXTURES

REPO = Scope("repository", "acme/api")
T0 = "2026-11-20T08:00:00Z"


def _extra(item: dict[str, Any], kind: Kind) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in kind.names}


def _operation(op: dict[str, Any]) -> Add | Replace | Remove:
    if op["action"] == "add":
        return Add(op["key"], op["text"])
    if op["action"] == "replace":
        return Replace(op["key"], op["text"], op["expected_digest"])
    return Remove(op["key"], op["expected_digest"])


def rebuilt(doc: dict[str, Any]) -> SealedBundle:
    """``doc`` written again by a builder, as its run."""
    return recorded(doc).build(doc["run"]["id"])


_LEFT_OUT = object()


def _record(method: Callable[..., None], kind: Kind, item: dict[str, Any], **given: Any) -> None:
    """``method`` called with ``item``'s members of ``kind`` by name (the builder's parameters are
    SPEC §1's names), ``given`` in place of some (``_LEFT_OUT``: not passed), the rest as ``members=``."""
    own = {name: value for name, value in item.items() if name in kind.names and name != "digest"}
    method(**{k: v for k, v in {**own, **given}.items() if v is not _LEFT_OUT}, members=_extra(item, kind))


def recorded(doc: dict[str, Any]) -> BundleBuilder:
    """A builder that recorded ``doc`` call by call, as a program that produced it would."""
    run, memory = doc["run"], doc["memory"]
    b = BundleBuilder(memory_version=memory["version"], curator=run["curator"], frozen_at=run["frozen_at"])
    for method, items in (
        (b.memory_instruction, memory["instructions"]),
        (b.applicable_instruction, doc["instructions"]),
    ):
        for i in items:
            _record(method, INSTRUCTION, i, scope=Scope(**i["scope"]))
    for m in doc["materializations"]:
        _record(b.materialization, MATERIALIZATION, m)
    for t in doc["traces"]:
        partial = t["completeness"] == "partial"
        _record(b.trace, TRACE, t, completeness=_LEFT_OUT, verified_prefix=t["verified_prefix"] if partial else None)
    for e in doc["evidence"]:
        _record(b.evidence, EVIDENCE, e)
    for les in doc["lessons"]:
        _record(b.lesson, LESSON, les)
    for p in doc["proposals"]:
        b.propose(
            p["id"],
            lesson=p["lesson"],
            scope=Scope(**p["scope"]),
            confidence=p["confidence"],
            operations=[_operation(op) for op in p["operations"]],
            support=p["support"],
            contradict=p["contradict"],
            rationale=p.get("rationale"),
            base_memory_version=p["base_memory_version"],
        )
    return b


def _builder() -> BundleBuilder:
    """acme/api: one memory instruction, two lineages of a deterministic `make test`."""
    b = BundleBuilder(memory_version=7, curator="my-curator@1", frozen_at="2026-11-29T10:00:00Z")
    b.memory_instruction("ci.timeout", "CI jobs time out after 20 minutes.", scope=REPO)
    for k, task in enumerate(("task-101", "task-117")):
        b.materialization(f"mat-{k}", repository="acme/api", source_revision=f"rev-{k}")
        b.trace(f"tr-{k}", lineage=task, materialization=f"mat-{k}", steps=[{"run": "pytest"}, {"run": "make test"}])
        b.evidence(f"ev-{k}", trace=f"tr-{k}", step=1, signal="deterministic", observed_at=T0, summary="make test: 0")
    b.lesson("les-1", text="Tests need the env vars the Makefile sets.", evidence=["ev-0", "ev-1"])
    b.propose(
        "p-make-test",
        lesson="les-1",
        scope=REPO,
        confidence=0.8,
        operations=[Add("test.command", "Run the tests with make test.")],
        support=["ev-0", "ev-1"],
    )
    return b


@pytest.mark.parametrize("fixture", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.name)
def test_the_builder_writes_each_shipped_fixture_byte_for_byte(fixture: Path) -> None:
    doc = parse_json(fixture.read_bytes())
    sealed = rebuilt(doc)
    assert sealed.canonical == canon(doc)
    assert sealed.document == doc
    assert sealed.bundle == load_bundle(fixture.read_bytes())


def test_a_built_bundle_is_its_canonical_bytes_loaded_and_ranks() -> None:
    sealed = _builder().build("run-1")
    assert sealed.canonical == canon(sealed.document)
    assert sealed.bundle.input_digest == sealed.document["frozen"]["digest"]
    assert sealed.bundle.run_id == "run-1"
    (entry,) = rank(sealed.bundle).report["proposals"]
    assert (entry["id"], entry["disposition"], entry["support"]["lineages"]) == ("p-make-test", "selected", 2)


def test_the_same_calls_give_the_same_bytes() -> None:
    assert _builder().build("run-1").canonical == _builder().build("run-1").canonical


def test_a_replace_without_a_digest_is_written_against_the_memory_instruction() -> None:
    b = _builder()
    b.propose(
        "p-timeout",
        lesson="les-1",
        scope=REPO,
        confidence=0.5,
        operations=[Replace("ci.timeout", "CI jobs time out after 30 minutes."), Remove("ci.timeout")],
        support=["ev-0"],
    )
    sealed = b.build("run-1")
    memory_digest = sealed.document["memory"]["instructions"][0]["digest"]
    ops = sealed.document["proposals"][1]["operations"]
    assert [op["expected_digest"] for op in ops] == [memory_digest, memory_digest]


def test_recorded_steps_are_sealed_in_the_trace_and_make_it_complete() -> None:
    trace = _builder().build("run-1").document["traces"][0]
    assert (trace["steps"], trace["completeness"], trace["verified_prefix"]) == (2, "complete", 2)
    assert trace["step_digests"] == [digest({"run": "pytest"}), digest({"run": "make test"})]


def test_a_step_rfc_8785_cannot_write_ends_what_the_trace_verifies() -> None:
    b = _builder()
    b.trace("tr-x", lineage="task-9", materialization="mat-0", steps=[{"exit": 0}, {"exit": float("nan")}, "ok"])
    trace = b.build("run-1").document["traces"][2]
    assert (trace["steps"], trace["completeness"], trace["verified_prefix"]) == (3, "partial", 1)
    assert trace["step_digests"] == [digest({"exit": 0}), None, digest("ok")]


def test_a_verified_prefix_past_a_step_that_cannot_be_written_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^trace 'tr-x': step 1 cannot be written, so at most 1 are verified$"):
        _builder().trace("tr-x", lineage="task-9", materialization="mat-0", steps=[1, "\ud800"], verified_prefix=2)


def test_a_partial_trace_counted_in_steps_keeps_its_verified_prefix() -> None:
    b = _builder()
    b.trace("tr-x", lineage="task-9", materialization="mat-0", steps=22, verified_prefix=18)
    trace = b.build("run-1").document["traces"][2]
    assert (trace["steps"], trace["completeness"], trace["verified_prefix"]) == (22, "partial", 18)
    assert "step_digests" not in trace


def _hand_written(edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = copy.deepcopy(dict(_builder().build("run-1").document))
    edit(doc)
    return doc


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        node: Any = doc
        for token in parents:
            node = node[int(token) if token.isdigit() else token]
        node[int(last) if last.isdigit() else last] = value

    return edit


def _both(*edits: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        for one in edits:
            one(doc)

    return edit


@pytest.mark.parametrize(
    "edit",
    [
        _set("evidence/1/observed_at", "yesterday"),
        _set("evidence/1/signal", "hunch"),
        _set("traces/1/id", "tr-0"),
        _both(_set("traces/0/completeness", "partial"), _set("traces/0/verified_prefix", 3)),
        _set("traces/1/steps", 0),
        _set("lessons/0/evidence", []),
        _set("memory/instructions/0/scope", {"level": "path", "repository": "acme/api"}),
        _set("materializations/0/status", "unknown"),
        _set("run/frozen_at", "2026-02-30T00:00:00Z"),
    ],
    ids=[
        "timestamp",
        "signal",
        "duplicate_id",
        "inconsistent_trace",
        "steps",
        "lesson_evidence",
        "scope",
        "status",
        "calendar",
    ],
)
def test_the_builder_refuses_what_the_loader_refuses_with_its_code_pointer_and_message(
    edit: Callable[[dict[str, Any]], None],
) -> None:
    doc = _hand_written(edit)
    with pytest.raises(InputError) as loaded:
        load_bundle(canon(seal_bundle(doc)))
    with pytest.raises(InputError) as built:
        rebuilt(doc)
    assert (built.value.code, built.value.pointer, built.value.message) == (
        loaded.value.code,
        loaded.value.pointer,
        loaded.value.message,
    )


@pytest.mark.parametrize(
    ("edit", "pointer", "why"),
    [
        (_set("lessons/0/text", "Tests need \ud83d"), "/lessons/0/text", "input contains non-UTF-8 codepoints"),
        (_set("proposals/0/confidence", float("inf")), "/proposals/0/confidence", "inf is not representable in JCS"),
        (_set("evidence/0/x_host", object()), "/evidence/0/x_host", "unsupported type: <class 'object'>"),
    ],
    ids=["lone_surrogate", "infinity", "object"],
)
def test_a_value_rfc_8785_cannot_write_is_malformed_json_at_its_place(
    edit: Callable[[dict[str, Any]], None], pointer: str, why: str
) -> None:
    with pytest.raises(InputError, match=r"^input\.malformed_json at ") as e:
        rebuilt(_hand_written(edit))
    assert (e.value.code, e.value.pointer) == ("input.malformed_json", pointer)
    assert e.value.detail.endswith(why)


def test_a_value_that_contains_itself_is_malformed_json_at_its_place() -> None:
    b = _builder()
    loop: list[Any] = []
    loop.append(loop)
    b.materialization("mat-loop", repository="acme/api", source_revision="r", members={"x_loop": loop})
    with pytest.raises(InputError) as e:
        b.build("run-1")
    assert (e.value.code, e.value.pointer, e.value.detail) == (
        "input.malformed_json",
        "/materializations/2/x_loop/0",
        "a value that contains itself",
    )


@pytest.mark.parametrize("depth", [510, 513, 950, 2_000, 100_000])
def test_a_value_nested_past_what_the_parser_reads_is_malformed_json_at_its_place(depth: int) -> None:
    # From just past SPEC §0's 512 levels to far past Python's recursion limit: the builder names the
    # first array nested 513 levels deep (the document is level 1), and raises no RecursionError.
    deep: Any = 0
    for _ in range(depth):
        deep = [deep]
    b = _builder()
    b.materialization("mat-deep", repository="acme/api", source_revision="r", members={"x_deep": deep})
    with pytest.raises(InputError) as e:
        b.build("run-1")
    assert (e.value.code, e.value.detail) == ("input.malformed_json", f"nested deeper than {MAX_DEPTH} levels")
    assert e.value.pointer == "/materializations/2/x_deep" + "/0" * (MAX_DEPTH - 3)


def test_members_may_not_set_what_the_builder_writes() -> None:
    with pytest.raises(ValueError, match=r"^TraceModel: members= may not set digest, steps: the builder writes them$"):
        _builder().trace("tr-x", lineage="t", materialization="mat-0", steps=1, members={"steps": 2, "digest": "x"})


def test_a_replace_of_a_key_the_memory_lacks_needs_its_digest() -> None:
    b = _builder()
    b.propose("p-x", lesson="les-1", scope=REPO, confidence=1, operations=[Replace("nope", "t")], support=["ev-0"])
    with pytest.raises(ValueError, match=r"^proposal 'p-x'") as refused:
        b.build("run-1")
    assert str(refused.value) == (
        "proposal 'p-x': replace of 'nope': no instruction 'nope' in the memory; "
        "give expected_digest= to edit one it does not hold"
    )


def test_a_replace_of_a_mistyped_key_names_the_key_it_likely_meant() -> None:
    b = _builder()
    b.memory_instruction("test.command", "Run the tests with make test.", scope=REPO)
    b.propose(
        "p-x", lesson="les-1", scope=REPO, confidence=1, operations=[Replace("test.comand", "t")], support=["ev-0"]
    )
    with pytest.raises(ValueError, match=r"^proposal 'p-x'") as refused:
        b.build("run-1")
    assert str(refused.value) == (
        "proposal 'p-x': replace of 'test.comand': no instruction 'test.comand' in the memory; "
        "did you mean 'test.command'?"
    )


def test_a_malformed_proposal_is_written_for_validation_to_reject() -> None:
    b = _builder()
    b.propose("p-empty", lesson="les-1", scope=REPO, confidence=2, operations=[], support=["ev-0"])
    report = rank(b.build("run-1").bundle).report
    entry = next(e for e in report["proposals"] if e["id"] == "p-empty")
    assert (entry["disposition"], entry["reasons"]) == (
        "rejected",
        [{"code": "proposal.incomplete", "subject": "confidence"}],
    )


def test_a_bundle_named_by_its_content_is_built_as_that_run() -> None:
    named = _builder().build_named("run")
    assert named.bundle.run_id == f"run-{_builder().content_digest()[7:19]}"
    assert named.canonical == _builder().build(named.bundle.run_id).canonical


def test_a_bundle_named_by_its_content_changes_name_with_any_record() -> None:
    b = _builder()
    b.evidence("ev-late", trace="tr-0", step=0, signal="tool", observed_at=T0)
    assert b.build_named("run").bundle.run_id != _builder().build_named("run").bundle.run_id


@pytest.mark.parametrize(
    ("text", "most", "fitted"),
    [
        ("short", 2000, "short"),
        ("é" * 10, 20, "é" * 10),  # 20 bytes: as it is
        ("é" * 11, 20, "é" * 8 + "…"),  # 17 bytes of é at most, then the 3 of …
        ("ab\ud83d", 10, "ab?"),  # a reply cut inside a character
    ],
)
def test_a_text_fitted_for_a_bundle_is_cut_at_a_character_within_its_bytes(text: str, most: int, fitted: str) -> None:
    assert fit_text(text, most) == fitted
    assert len(fit_text(text, most).encode("utf-8")) <= most


# --- the next day's bundle from yesterday's memory (docs/gate-your-curator.md) ---------------

_YESTERDAY = {
    "version": 4,
    "instructions": [
        seal({"key": "style.lint", "text": "Run ruff.", "scope": {"level": "global"}, "origin": "user"}),
        seal({"key": "a.first", "text": "Keys need not be sorted.", "scope": REPO.to_json(), "origin": "curated"}),
    ],
}


def test_a_builder_from_a_markdown_memory_holds_exactly_the_memory_the_file_holds() -> None:
    document = read_memory(write_markdown_memory(_YESTERDAY), markdown=True)

    b = BundleBuilder.from_memory(document, curator="c@1", frozen_at=T0)

    assert canon(b.build("run-1").document["memory"]) == canon(_YESTERDAY)
    assert b.memory_version == 4


def test_a_builder_from_a_json_memory_keeps_every_member_of_it() -> None:
    memory = {**_YESTERDAY, "owner": "team-a"}
    memory["instructions"] = [seal({**_YESTERDAY["instructions"][0], "note": {"why": "CI"}})]

    sealed = BundleBuilder.from_memory(memory, curator="c@1", frozen_at=T0).build("run-1")

    assert canon(sealed.document["memory"]) == canon(memory)


def test_a_builder_refuses_a_memory_whose_instruction_is_not_sealed() -> None:
    memory = {**_YESTERDAY, "instructions": [{**_YESTERDAY["instructions"][0], "text": "Edited by hand."}]}

    with pytest.raises(InputError, match=r"^input\.schema at '/instructions/0/digest': the digest is not"):
        BundleBuilder.from_memory(memory, curator="c@1", frozen_at=T0)


def test_a_builder_refuses_a_memory_spec_does_not_allow() -> None:
    with pytest.raises(InputError, match=r"^input\.schema at '/version': expected an INT"):
        BundleBuilder.from_memory({"version": -1, "instructions": []}, curator="c@1", frozen_at=T0)


def _slipped() -> BundleBuilder:
    """The example's records with the loop's usual slips: a trace of a checkout never recorded,
    evidence one step past its trace's end, and a proposal citing evidence never recorded."""
    b = _builder()
    b.trace("tr-9", lineage="task-9", materialization="mat-9", steps=2)
    b.evidence("ev-9", trace="tr-9", step=2, signal="deterministic", observed_at=T0)
    b.propose("p-x", lesson="les-1", scope=REPO, confidence=1, operations=[Add("x.y", "t")], support=["ev-7"])
    return b


def test_the_builder_lists_the_loops_bookkeeping_slips_before_it_builds() -> None:
    assert _builder().mistakes() == ()
    assert _slipped().mistakes() == (
        "trace 'tr-9' ran in materialization 'mat-9', which is not recorded",
        "evidence 'ev-9' is at step 2 of trace 'tr-9', which has 2 steps (0 to 1)",
        "proposal 'p-x''s support cites evidence 'ev-7', which is not recorded",
    )


def test_a_strict_build_refuses_the_slips_and_a_default_one_builds_what_spec_allows() -> None:
    assert _slipped().build("run-1").bundle is not None  # valid input: validation rejects what cites them
    with pytest.raises(ValueError, match=r"^the bundle's bookkeeping: ") as refused:
        _slipped().build("run-1", strict=True)
    assert str(refused.value) == (
        "the bundle's bookkeeping: trace 'tr-9' ran in materialization 'mat-9', which is not recorded (and 2 more)"
    )
