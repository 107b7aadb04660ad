"""The compiled schema predicate accepts exactly what jsonschema accepts: on every
parity report, on every single-value mutation of one, and on random mutations."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator_io._fast.conformance import VOCABULARY, UnsupportedSchema, compile_schema
from curator_io.published import published_schema
from tests.conftest import PARITY

NAMES = ("report", "validation")  # the schemas a document is checked against after loading
FILES = {"report": "expected.report.json", "validation": "expected.validation.json"}

#: Values that sit on every edge the schemas draw: types (bool is not an integer, 1.0 is),
#: bounds, patterns ("$" also matches before a final newline), enums and lengths.
EDGES: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    1,
    -1,
    5,
    6,
    1.0,
    0.5,
    -0.0,
    2**53 - 1,
    2**53,
    10**400,
    1e300,
    "",
    "x",
    "p-1",
    "p-1\n",
    "@0",
    "@01",
    "selected",
    "no_op",
    "accepted",
    "sha256:" + "0" * 64,
    "sha256:" + "0" * 64 + "\n",
    "sha256:" + "A" * 64,
    "2026-11-01T00:00:00Z",
    "2026-11-01T00:00:00.1234567890Z",
    "rank.selected",
    "evidence-ranking-v1",
    [],
    ["p-1"],
    ["p-1"] * 6,
    {},
    {"code": "rank.selected", "subject": None},
)

_validators = {name: jsonschema.Draft202012Validator(published_schema(name)) for name in NAMES}
_predicates = {name: compile_schema(published_schema(name)) for name in NAMES}


def documents(name: str) -> list[Any]:
    return [
        json.loads(case.joinpath(FILES[name]).read_bytes())
        for case in sorted(PARITY.iterdir())
        if case.joinpath(FILES[name]).exists()
    ]


_all_documents = {name: documents(name) for name in NAMES}


def paths(doc: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every member and item of ``doc``, outermost first."""
    yield prefix
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            yield from paths(value, (*prefix, index))


def locations(doc: Any) -> list[tuple[Any, ...]]:
    """The first path to each location of ``doc`` with list indices ignored: the proposals
    share one schema, so mutating the first that has a member is enough."""
    seen: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for path in paths(doc):
        seen.setdefault(tuple("*" if isinstance(step, int) else step for step in path), path)
    return list(seen.values())


def replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    out = copy.deepcopy(doc)
    parent = out
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return out


def deleted(doc: Any, path: tuple[Any, ...]) -> Any:
    out = copy.deepcopy(doc)
    parent = out
    for step in path[:-1]:
        parent = parent[step]
    del parent[path[-1]]
    return out


def doc_at(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def assert_same_verdict(name: str, doc: Any) -> bool:
    verdict = _validators[name].is_valid(doc)
    assert _predicates[name](doc) is verdict, doc
    return verdict


def test_every_keyword_jsonschema_acts_on_is_in_the_vocabulary() -> None:
    # A keyword outside VOCABULARY is ignored by the predicate: it must be one jsonschema ignores too.
    assert set(jsonschema.Draft202012Validator.VALIDATORS) <= VOCABULARY


def test_a_keyword_that_is_not_implemented_refuses_to_compile() -> None:
    with pytest.raises(UnsupportedSchema, match="'minLength' is not implemented"):
        compile_schema({"type": "string", "minLength": 1})


def test_members_that_are_not_keywords_are_ignored_as_jsonschema_ignores_them() -> None:
    schema = {"type": "integer", "ge": 0, "le": 10, "title": "T"}
    for value in (-5, 50, 5, "5"):
        assert compile_schema(schema)(value) is jsonschema.Draft202012Validator(schema).is_valid(value)


def test_a_recursive_schema_compiles_and_agrees() -> None:
    schema = {
        "$defs": {
            "node": {"type": "object", "properties": {"next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}}}
        },
        "$ref": "#/$defs/node",
    }
    for doc in ({"next": None}, {"next": {"next": None}}, {"next": {"next": 1}}, {"next": []}):
        assert compile_schema(schema)(doc) is jsonschema.Draft202012Validator(schema).is_valid(doc)


@pytest.mark.parametrize("name", NAMES)
def test_every_parity_document_is_accepted_by_both(name: str) -> None:
    docs = documents(name)
    assert len(docs) > 50
    for doc in docs:
        assert assert_same_verdict(name, doc)


def compact(name: str) -> dict[str, Any]:
    """A document of ``name`` with one proposal of each shape found in the corpus (each nullable
    member null or not, reasons or none), and one item in its other lists: every location the
    schema describes, at a fraction of the corpus' size, for the exhaustive mutations below."""
    shapes: dict[tuple[bool, ...], Any] = {}
    for doc in _all_documents[name]:
        for e in doc["proposals"]:
            shapes.setdefault((*(v is None for v in e.values()), bool(e["reasons"])), e)
    out = copy.deepcopy(_all_documents[name][0])
    for key, value in out.items():
        if isinstance(value, list):
            out[key] = value[:1]
    out["proposals"] = list(shapes.values())
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_single_value_mutation_gets_the_same_verdict(name: str) -> None:
    doc = compact(name)
    assert assert_same_verdict(name, doc)
    rejected = 0
    for path in locations(doc):
        for value in EDGES:
            rejected += not assert_same_verdict(name, replaced(doc, path, value))
        if path:
            rejected += not assert_same_verdict(name, deleted(doc, path))
            if isinstance(doc_at(doc, path[:-1]), dict):
                rejected += not assert_same_verdict(name, replaced(doc, (*path[:-1], "extra"), 1))
    assert rejected > 500  # the edges do reach the schema's rules


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(EDGES),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(NAMES),
    case=st.integers(0, 10**6),
    picks=st.lists(st.tuples(st.integers(0, 10**6), json_values), min_size=1, max_size=4),
)
def test_random_mutations_of_parity_documents_get_the_same_verdict(
    name: str, case: int, picks: list[tuple[int, Any]]
) -> None:
    docs = _all_documents[name]
    doc = docs[case % len(docs)]
    for where, value in picks:
        candidates = list(paths(doc))
        doc = replaced(doc, candidates[where % len(candidates)], value)
    assert_same_verdict(name, doc)
