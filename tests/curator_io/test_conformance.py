"""The compiled schema predicate accepts exactly what jsonschema accepts: on every
parity report, on every single-value mutation of one, and on random mutations."""

from __future__ import annotations

import copy
import itertools
import json
import math
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator_io._fast.conformance import VOCABULARY, UnsupportedSchema, compile_schema
from curator_io.published import published_schema
from tests.conftest import PARITY
from tests.curator_io.strategies import unwritable
from tests.deadline import outcome

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


def cycled(doc: Any, path: tuple[Any, ...], up: int) -> Any:
    """A copy of ``doc`` whose value at ``path`` (not the root) is the container ``up`` levels
    above it: a document that contains itself."""
    out = copy.deepcopy(doc)
    chain = [out]
    for step in path[:-1]:
        chain.append(chain[-1][step])
    chain[-1][path[-1]] = chain[max(0, len(chain) - 1 - up)]
    return out


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(NAMES),
    case=st.integers(0, 10**6),
    where=st.integers(0, 10**6),
    value=st.one_of(unwritable, st.sampled_from(["\ud800", "p-1\udc00", "sha256:" + "0" * 63 + "\udfff"])),
    up=st.one_of(st.none(), st.integers(0, 8)),
)
def test_what_no_json_holds_gets_the_same_verdict_or_the_same_error(
    name: str, case: int, where: int, value: Any, up: int | None
) -> None:
    # Non-finite numbers and lone surrogates put anywhere, or a cycle through any container.
    doc = _all_documents[name][case % len(_all_documents[name])]
    places = [p for p in paths(doc) if p]
    path = places[where % len(places)]
    doc = replaced(doc, path, value) if up is None else cycled(doc, path, up)
    expected = outcome(_validators[name].is_valid, doc)
    assert outcome(_predicates[name], doc, seconds=2) == expected


def _node_schemas() -> Iterator[dict[str, Any]]:
    """A node with a ``next`` node, its keywords and properties in every order."""
    for order in itertools.permutations(["type", "properties", "required"]):
        for names in (["n", "next"], ["next", "n"]):
            for nullable in (True, False):
                ref = {"$ref": "#/$defs/node"}
                follow = {"anyOf": [ref, {"type": "null"}]} if nullable else ref
                keywords = {
                    "type": "object",
                    "properties": {name: {"minimum": 0} if name == "n" else follow for name in names},
                    "required": ["n"],
                }
                yield {"$defs": {"node": {k: keywords[k] for k in order}}, "$ref": "#/$defs/node"}


def _cyclic_nodes() -> Iterator[dict[str, Any]]:
    """Nodes whose ``next`` leads back to one of them, with ``n`` valid, invalid or missing."""
    for first, second in itertools.product([1, -1, None, "x"], repeat=2):
        for loop in ("itself", "through its child", "at its child"):
            top: dict[str, Any] = {} if first is None else {"n": first}
            child: dict[str, Any] = {} if second is None else {"n": second}
            top["next"] = top if loop == "itself" else child
            child["next"] = top if loop == "through its child" else child
            yield top


def test_a_document_that_contains_itself_is_never_accepted_and_raises_only_what_jsonschema_raises() -> None:
    # jsonschema walks every branch of an anyOf to its end and the predicate stops at a branch's
    # first failure, so where jsonschema raises RecursionError the predicate may say no instead:
    # a caller that asks jsonschema whenever the predicate does not say yes meets jsonschema's own error.
    seen = set()
    for schema in _node_schemas():
        predicate, validator = compile_schema(schema), jsonschema.Draft202012Validator(schema)
        for node in _cyclic_nodes():
            expected, got = outcome(validator.is_valid, node), outcome(predicate, node, seconds=2)
            seen.add(expected)
            assert got == expected or (expected == ("raised", RecursionError) and got == ("returned", False))
    assert seen == {("returned", False), ("raised", RecursionError)}


@pytest.mark.parametrize("n", [math.nan, math.inf, -math.inf])
def test_a_number_that_is_not_finite_gets_the_verdict_jsonschema_gives(n: float) -> None:
    for schema in ({"minimum": 0}, {"maximum": 0}, {"type": "integer"}, {"type": "number"}, {"enum": ["a"]}):
        assert compile_schema(schema)(n) is jsonschema.Draft202012Validator(schema).is_valid(n), schema
