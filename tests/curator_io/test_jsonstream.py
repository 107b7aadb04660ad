"""Reading a document a chunk at a time gives what parsing it whole gives, or defers to it.

Chunks are made tiny here (:data:`CHUNK` 64 bytes), so every document of a few
hundred bytes is cut many times, at guesses inside strings and nested values too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import curator_io.bundle as bundle_module
from curator_io import InputError, canon, load_bundle, parse_json
from curator_io._fast.jsonstream import ArrayMember, Unsure, iter_members
from curator_io.bundle import bundle_from_document
from tests.conftest import FIXTURES, parity_cases
from tests.curator_io.test_jsonio import refused_literals
from tests.deadline import outcome as refusal_of


@pytest.fixture(autouse=True)
def tiny_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("curator_io._fast.jsonstream.CHUNK", 64)
    monkeypatch.setattr("curator_io._fast.jsonstream.LIMIT", 4096)
    monkeypatch.setattr("curator_io.bundle.CHUNKED_ABOVE", 0)  # small documents read in chunks too


def collected(raw: bytes) -> dict[str, Any]:
    """The document as :func:`iter_members` reads it, every array gathered back."""
    out: dict[str, Any] = {}
    for name, value in iter_members(raw):
        out[name] = [x for items, _ in value for x in items] if isinstance(value, ArrayMember) else value
    return out


def outcome(load: Any, raw: bytes) -> Any:
    try:
        return load(raw)
    except InputError as e:
        return (e.code, e.pointer, e.detail)


def whole(raw: bytes) -> Any:
    return bundle_from_document(parse_json(raw))


def _bundles() -> list[Path]:
    return [case / "bundle.json" for case in parity_cases()] + sorted(FIXTURES.glob("*.json"))


@pytest.mark.parametrize("path", _bundles(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_corpus_bundle_loads_in_chunks_as_it_loads_whole(path: Path) -> None:
    raw = path.read_bytes()
    assert outcome(load_bundle, raw) == outcome(whole, raw)


def test_a_sealed_bundle_is_read_in_chunks_without_the_whole_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = (FIXTURES / "example.json").read_bytes()
    expected = whole(raw)
    monkeypatch.setattr(bundle_module, "bundle_from_document", lambda doc: pytest.fail("parsed whole"))
    assert load_bundle(raw) == expected


def test_a_pretty_printed_bundle_in_another_member_order_is_read_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = parse_json((FIXTURES / "example.json").read_bytes())
    reordered = {name: doc[name] for name in ("schema", "run", "memory", "frozen", *reversed(list(doc)))}
    raw = json.dumps(reordered, indent=2, ensure_ascii=False).encode()
    expected = whole(raw)
    monkeypatch.setattr(bundle_module, "bundle_from_document", lambda doc: pytest.fail("parsed whole"))
    assert load_bundle(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": [{"s": "},{"}, {"s": "}]"}, {"s": "\\"},{\\""}], "b": 1}',
        b'{"a": [[1, [2]], [], {"x": [{"y": {}}, {"z": []}]}, "s", 3.5, null, true], "b": {"c": [1]}}',
        b'{"a": [], "b": [ ], "c": [\n\t{"k": "\\\\"}\n ]}',
        b' {\r\n"only": [{"k": "' + "é😀".encode() * 40 + b'"}, {"k": 2}]} ',
        b'{"n": [1e2, -0.0, 1E-7, 0.1]}',
        b"{}",
    ],
)
def test_odd_but_valid_documents_read_in_chunks_as_parsed_whole(raw: bytes) -> None:
    assert collected(raw) == parse_json(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": [1, ]}',
        b'{"a": [1], }',
        b'{"a": [{"k": 1, "k": 2}, {"j": 1}]}',
        b'{"a": [1], "a": [2]}',
        b'{"a": [{"k\\u003a": 1, "k:": 2}]}',
        # Written as orjson would write them but for the repeat: the sorted dump is shorter, so the count runs.
        b'{"a":[{"k":1,"k":1}]}',
        b'{"a":[{"a":1,"b":[],"b":[]},{"c":2}]}',
        b'{"a":[{"k\\u003a":1,"k:":1}]}',
        b'\xef\xbb\xbf{"a": []}',
        b'{"a": []} x',
        b'{"a": [9007199254740993]}',
        b'{"a": ["\\ud800"]}',
        b'{"a": [{"k": 1}, {"k": "\xff"}]}',
        b'{"a": [{"k": 1}}]}',
        b'["not", "an object"]',
    ],
)
def test_whatever_the_whole_parse_must_decide_is_left_to_it(raw: bytes) -> None:
    with pytest.raises(Unsure):
        collected(raw)


_TRICKY = st.text(alphabet=st.sampled_from(list('ab{}[],:" \\/é😀\n')), max_size=12)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**53) + 1, 2**53 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    _TRICKY,
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_TRICKY, inner, max_size=4)),
    max_leaves=12,
)
_DOCUMENTS = st.dictionaries(
    _TRICKY, st.one_of(st.lists(st.dictionaries(_TRICKY, _VALUES, max_size=4), max_size=8), _VALUES), max_size=5
)


def _written(doc: dict[str, Any], style: int) -> bytes:
    if style == 0:
        return orjson.dumps(doc)
    if style == 1:
        return json.dumps(doc, indent=style, ensure_ascii=False).encode()
    return json.dumps(doc, separators=(" , ", " : ")).encode()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_DOCUMENTS, style=st.integers(0, 2))
def test_any_document_reads_in_chunks_as_parsed_whole(doc: dict[str, Any], style: int) -> None:
    raw = _written(doc, style)
    try:
        got = collected(raw)
    except Unsure:
        return  # deferred to the whole parse: always allowed, never wrong
    assert canon(got) == canon(parse_json(raw))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_DOCUMENTS, style=st.integers(0, 2), data=st.data())
def test_a_document_with_one_byte_changed_is_never_read_differently(doc: dict[str, Any], style: int, data: Any) -> None:
    raw = bytearray(_written(doc, style))
    if not raw:
        return
    at = data.draw(st.integers(0, len(raw) - 1))
    edit = data.draw(st.sampled_from(["delete", "replace", "insert"]))
    byte = data.draw(st.sampled_from(list(b'{}[],:"\\ 0a\xff')))
    if edit == "delete":
        del raw[at]
    elif edit == "replace":
        raw[at] = byte
    else:
        raw.insert(at, byte)
    try:
        expected = parse_json(bytes(raw))
    except InputError:
        with pytest.raises(Unsure):
            collected(bytes(raw))
        return
    try:
        got = collected(bytes(raw))
    except Unsure:
        return
    if type(expected) is dict:
        assert canon(got) == canon(expected)


_EXAMPLE = json.loads((FIXTURES / "example.json").read_bytes())
_PLACE = "@@refused@@"


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every member and item of ``value``."""
    out = [path] if path else []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        out += _places(item, (*path, key))
    return out


_EXAMPLE_PLACES = _places(_EXAMPLE)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(_EXAMPLE_PLACES), literal=refused_literals, style=st.integers(0, 2))
def test_a_bundle_holding_what_the_strict_parser_refuses_is_refused_as_the_whole_parse_refuses_it(
    where: tuple[Any, ...], literal: bytes, style: int
) -> None:
    doc = json.loads(json.dumps(_EXAMPLE))
    parent = doc
    for step in where[:-1]:
        parent = parent[step]
    parent[where[-1]] = _PLACE
    raw = _written(doc, style).replace(f'"{_PLACE}"'.encode(), literal)
    assert refusal_of(load_bundle, raw) == refusal_of(whole, raw)
