"""Loading a bundle: each input error code, its pointer, and the order of precedence (SPEC §1)."""

from __future__ import annotations

import copy
import json
from typing import Any

import orjson
import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from curator_io import InputError, bundle_from_document, canon, digest, load_bundle, parse_json
from curator_io._fast.chunked import canonical_chunk
from curator_io.sealing import seal_bundle
from tests.conftest import FIXTURES, resolve_pointer
from tests.curator_io.strategies import json_values

EXAMPLE = parse_json((FIXTURES / "example.json").read_bytes())


def refused(doc: Any, *, reseal: bool = True) -> InputError:
    raw = canon(seal_bundle(doc) if reseal else doc)
    with pytest.raises(InputError) as caught:
        load_bundle(raw)
    return caught.value


def edited(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(EXAMPLE)
    for path, value in changes.items():
        *parents, last = path.split("__")
        node = doc
        for token in parents:
            node = node[int(token)] if token.isdigit() else node[token]
        if value is KeyError:
            del node[int(last) if last.isdigit() else last]
        else:
            node[int(last) if last.isdigit() else last] = value
    return doc


def test_the_example_bundle_loads_and_keeps_its_frozen_digest() -> None:
    bundle = load_bundle((FIXTURES / "example.json").read_bytes())
    assert bundle.input_digest == EXAMPLE["frozen"]["digest"]
    assert bundle.run_id == "run-2026-11-29-a"
    assert set(bundle.memory_instructions) == {"style.imports", "ci.timeout"}


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"schema": "curator-bundle-v2"}, "/schema"),
        ({"run__frozen_at": "2026-02-30T00:00:00Z"}, "/run/frozen_at"),
        ({"memory__version": True}, "/memory/version"),
        ({"memory__version": -1}, "/memory/version"),
        ({"traces__0__steps": 0}, "/traces/0/steps"),
        ({"evidence__1__path": "../etc/passwd"}, "/evidence/1/path"),
        ({"evidence__0__path": KeyError}, "/evidence/0/path"),
        ({"materializations__0__status": "maybe"}, "/materializations/0/status"),
        ({"lessons__0__evidence": ["ev-1", "ev-1"]}, "/lessons/0/evidence"),
        ({"instructions__0__scope": {"level": "global", "repository": "acme/api"}}, "/instructions/0/scope"),
        ({"evidence__0__id": "bad id"}, "/evidence/0/id"),
    ],
)
def test_a_schema_violation_is_refused_with_a_pointer_to_the_place(change: dict[str, Any], pointer: str) -> None:
    err = refused(edited(**change))
    assert err.code == "input.schema"
    assert err.pointer == pointer


def test_a_missing_top_level_member_is_a_schema_error() -> None:
    doc = copy.deepcopy(EXAMPLE)
    del doc["lessons"]
    err = refused(doc)
    assert (err.code, err.pointer) == ("input.schema", "/lessons")
    assert "missing required member 'lessons'" in err.message


def test_two_traces_with_one_id_are_a_duplicate_id() -> None:
    doc = copy.deepcopy(EXAMPLE)
    doc["traces"].append(copy.deepcopy(doc["traces"][0]))
    err = refused(doc)
    assert (err.code, err.pointer) == ("input.duplicate_id", "/traces/2/id")


def test_an_applicable_instruction_sharing_a_memory_key_is_a_duplicate_id() -> None:
    doc = edited(instructions__0__key="style.imports")
    err = refused(doc)
    assert (err.code, err.pointer) == ("input.duplicate_id", "/instructions/0/key")


def test_two_memory_instructions_with_one_key_point_at_the_later_key() -> None:
    doc = copy.deepcopy(EXAMPLE)
    doc["memory"]["instructions"].append(copy.deepcopy(doc["memory"]["instructions"][0]))
    err = refused(doc)
    assert (err.code, err.pointer) == ("input.duplicate_id", "/memory/instructions/2/key")
    assert resolve_pointer(doc, err.pointer) == doc["memory"]["instructions"][0]["key"]


def test_two_proposals_with_the_same_valid_id_are_a_duplicate_id_but_malformed_ones_are_not() -> None:
    doc = copy.deepcopy(EXAMPLE)
    doc["proposals"].append({"id": "p-make-test"})
    assert refused(doc).code == "input.duplicate_id"
    doc["proposals"][-1] = {"id": "bad id"}
    doc["proposals"].append({"id": "bad id"})
    load_bundle(canon(seal_bundle(doc)))  # reported as @3 and @4, not refused


def test_a_complete_trace_with_a_short_verified_prefix_is_inconsistent() -> None:
    err = refused(edited(traces__0__verified_prefix=3))
    assert (err.code, err.pointer) == ("input.inconsistent_trace", "/traces/0/verified_prefix")


def test_a_schema_error_takes_precedence_over_a_duplicate_id() -> None:
    doc = copy.deepcopy(EXAMPLE)
    doc["traces"].append(copy.deepcopy(doc["traces"][0]))
    doc["evidence"][0]["signal"] = "rumour"
    assert refused(doc).code == "input.schema"


def test_an_edit_without_resealing_is_a_frozen_digest_mismatch() -> None:
    doc = edited(run__curator="curator@9")
    err = refused(doc, reseal=False)
    assert (err.code, err.pointer) == ("input.frozen_digest_mismatch", "/frozen/digest")


def test_unknown_members_are_allowed_at_the_top_and_inside_artifacts_and_count_in_seals() -> None:
    doc = seal_bundle(edited(x_note="kept", traces__0__x_host="runner-7"))
    assert load_bundle(canon(doc)).traces["tr-101-1"].seal is None
    doc["traces"][0]["x_host"] = "runner-8"  # the trace's own seal now fails; the bundle is resealed
    doc["frozen"]["digest"] = digest({k: v for k, v in doc.items() if k != "frozen"})
    assert load_bundle(canon(doc)).traces["tr-101-1"].seal == "artifact.digest_mismatch"


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b"\xef\xbb\xbf{}", "byte-order mark"),
        (b'{"a": "\xff"}', "not UTF-8"),
        (b'{"a": 1, "a": 2}', "duplicate member"),
        (b'{"a": {"b": 1, "b": 1}}', "duplicate member"),
        (b'{"a": "\\ud800"}', "lone surrogate"),
        (b'{"a": 1e400}', "not finite"),
        (b'{"a": NaN}', "NaN"),
        (b'{"a": 1', "Expecting"),
        (b"", "Expecting value"),
    ],
)
def test_anything_but_i_json_is_malformed(raw: bytes, why: str) -> None:
    with pytest.raises(InputError, match=why) as caught:
        load_bundle(raw)
    assert caught.value.code == "input.malformed_json"


@pytest.mark.parametrize("layout", ["canonical", "indented, in spec order"])
def test_a_bundle_of_many_chunks_loads_in_chunks_as_it_loads_whole(
    layout: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench.generate import generate_bundle

    doc = generate_bundle(400, 7)  # ~1.7 MB: arrays of many 128 KB chunks
    if layout == "canonical":
        raw = canon(doc)
    else:
        order = ("schema", "run", "memory", "instructions", "materializations", "traces", "evidence", "lessons")
        spec_order = {name: doc[name] for name in (*order, "proposals", "frozen")}
        raw = json.dumps(spec_order, indent=1, ensure_ascii=False).encode()
    whole = bundle_from_document(parse_json(raw))
    monkeypatch.setattr("curator_io.bundle.bundle_from_document", lambda doc: pytest.fail("parsed whole"))
    assert load_bundle(raw) == whole


@settings(max_examples=300, deadline=None)
@given(st.lists(json_values, max_size=6), st.booleans())
def test_a_chunk_hashed_from_its_sorted_dump_is_its_canonical_form(items: list[Any], all_suspect: bool) -> None:
    # The loader takes orjson's sorted dump of a parsed chunk as its canonical bytes where it can.
    try:
        sorted_dump = orjson.dumps(items, option=orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER)
    except orjson.JSONEncodeError:
        return  # the loader parses such a chunk whole
    suspects = None if all_suspect else [x for x in items if not isinstance(x, str | int | None)]
    assert canonical_chunk(items, sorted_dump, suspects) == rfc8785.dumps(items)
