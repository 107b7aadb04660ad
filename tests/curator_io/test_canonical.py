"""canon() is RFC 8785 byte for byte: the fast path is held to ``rfc8785.dumps``."""

from __future__ import annotations

import enum
import hashlib
import math
import sys
from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from curator_io.canonical import canon, digest, is_sealed, seal, seal_canonical
from tests.curator_io.strategies import (
    MAX_SAFE,
    json_values,
    numbers,
    tricky_names,
    unicode_text,
    with_cycle,
    with_unwritable,
)
from tests.deadline import outcome

# A report's values: JSON whose floats are non-integral in [1e-4, 1e16), scores in hundredths among them.
report_floats = st.one_of(
    st.integers(min_value=-(10**6), max_value=10**6).filter(lambda h: h % 100 != 0).map(lambda h: h / 100),
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: 1e-4 <= abs(x) < 1e16 and not x.is_integer()),
)
report_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(min_value=-MAX_SAFE, max_value=MAX_SAFE), report_floats, unicode_text
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.one_of(unicode_text, tricky_names), children, max_size=5),
    ),
    max_leaves=40,
)


def _nest(value: Any, depth: int, as_object: bool) -> Any:
    for i in range(depth):
        value = {f"k{i % 3}": value, "\U0001f600": i} if as_object else [value, 1.0]
    return value


@settings(max_examples=600, deadline=None)
@given(json_values)
def test_canon_is_byte_identical_to_rfc8785_on_arbitrary_json(value: Any) -> None:
    assert canon(value) == rfc8785.dumps(value)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(tricky_names, numbers, max_size=8))
def test_member_names_are_sorted_by_utf16_code_units(value: dict[str, Any]) -> None:
    assert canon(value) == rfc8785.dumps(value)


@settings(max_examples=500, deadline=None)
@given(st.lists(numbers, min_size=1, max_size=6))
def test_numbers_in_arrays_are_written_as_ecmascript_does(value: list[Any]) -> None:
    assert canon(value) == rfc8785.dumps(value)


@settings(max_examples=60, deadline=None)
@given(json_values, st.integers(min_value=1, max_value=400), st.booleans())
def test_deep_nesting_is_written_as_rfc8785_writes_it(leaf: Any, depth: int, as_object: bool) -> None:
    # Past 254 levels orjson refuses to write; such a value is written by rfc8785 itself.
    value = _nest(leaf, depth, as_object)
    assert canon(value) == rfc8785.dumps(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, b"1"),
        (7.0, b"7"),
        (-0.0, b"0"),
        (1e21, b"1e+21"),
        (1e20, b"100000000000000000000"),
        (1e16, b"10000000000000000"),
        (5e-7, b"5e-7"),
        (1e-6, b"0.000001"),
        (1e23, b"1e+23"),
        (33.33, b"33.33"),
        (9007199254740992.0, b"9007199254740992"),
        (MAX_SAFE, b"9007199254740991"),
        (-MAX_SAFE, b"-9007199254740991"),
        ([1.0, -0.0, 1e21, 5e-7], b"[1,0,1e+21,5e-7]"),
        ({"b": 1.0, "a": {"y": -0.0, "x": 1e16}}, b'{"a":{"x":10000000000000000,"y":0},"b":1}'),
        ("\x7f\u2028\u2029", '"\x7f\u2028\u2029"'.encode()),
        ('\x00\x08\t\n\x0c\r\x1f"\\/', b'"\\u0000\\b\\t\\n\\f\\r\\u001f\\"\\\\/"'),
        ({"\ue000": 1, "\U0001f600": 2}, '{"\U0001f600":2,"\ue000":1}'.encode()),
        (
            {"\ue000": 1, "\U0001f600": 2, "a": [{"\uffff": 0, "\U00010000": 0}]},
            '{"a":[{"\U00010000":0,"\uffff":0}],"\U0001f600":2,"\ue000":1}'.encode(),
        ),
        ({"é": 1, "e": 2, "z": 3}, '{"e":2,"z":3,"é":1}'.encode()),
        ((1, [2.0]), b"[1,[2]]"),
        ([], b"[]"),
        ({}, b"{}"),
        (None, b"null"),
        ([True, False, None], b"[true,false,null]"),
    ],
)
def test_named_edge_cases_are_written_as_jcs_requires(value: Any, expected: bytes) -> None:
    assert canon(value) == expected
    assert rfc8785.dumps(value) == expected


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (float("nan"), rfc8785.FloatDomainError, "nan is not representable in JCS"),
        ([1, {"a": float("nan")}], rfc8785.FloatDomainError, "nan is not representable in JCS"),
        ({"a": [float("inf")]}, rfc8785.FloatDomainError, "inf is not representable in JCS"),
        ([2**53], rfc8785.IntegerDomainError, "9007199254740992 exceeds safe integer domain"),
        ({"a": -(2**53)}, rfc8785.IntegerDomainError, "-9007199254740992 exceeds safe integer domain"),
        ([2**70], rfc8785.IntegerDomainError, "exceeds safe integer domain"),
        ({1: "a"}, rfc8785.CanonicalizationError, "object keys must be strings"),
        (["\ud800"], rfc8785.CanonicalizationError, "input contains non-UTF-8 codepoints"),
        ([b"bytes"], rfc8785.CanonicalizationError, "unsupported type"),
    ],
)
def test_what_rfc8785_refuses_is_refused_with_its_own_error(value: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        rfc8785.dumps(value)
    with pytest.raises(error, match=message):
        canon(value)


class _Color(enum.Enum):
    RED = 1


class _Level(enum.IntEnum):
    HIGH = 3


class _Name(enum.StrEnum):
    ADA = "ada"


def test_an_enum_is_refused_although_orjson_would_write_it() -> None:
    with pytest.raises(rfc8785.CanonicalizationError, match="unsupported type"):
        canon({"color": _Color.RED})


def test_int_and_str_subclasses_are_written_as_rfc8785_writes_them() -> None:
    value = {"level": _Level.HIGH, "name": [_Name.ADA]}
    assert canon(value) == rfc8785.dumps(value) == b'{"level":3,"name":["ada"]}'


def test_a_float_that_is_not_finite_is_never_written_as_null() -> None:
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(rfc8785.FloatDomainError):
            canon({"confidence": bad, "path": None})


def test_nesting_beyond_the_recursion_limit_fails_as_rfc8785_does() -> None:
    value = _nest(0, sys.getrecursionlimit() + 10, as_object=False)
    with pytest.raises(RecursionError):
        rfc8785.dumps(value)
    with pytest.raises(RecursionError):
        canon(value)


@settings(max_examples=300, deadline=None)
@given(with_unwritable())
def test_what_rfc8785_cannot_write_anywhere_in_a_value_is_refused_with_its_own_error(value: Any) -> None:
    assert outcome(canon, value) == outcome(rfc8785.dumps, value)


@settings(max_examples=100, deadline=None)
@given(st.one_of(with_cycle(), with_cycle(with_unwritable())))
def test_a_value_that_contains_itself_is_refused_quickly_as_rfc8785_refuses_it(value: Any) -> None:
    assert outcome(rfc8785.dumps, value)[0] == "raised"
    assert outcome(canon, value, seconds=2) == outcome(rfc8785.dumps, value)


@pytest.mark.parametrize("shape", ["list", "object", "through a nested container", "tuple"])
def test_each_kind_of_cycle_raises_recursion_error_as_rfc8785_does(shape: str) -> None:
    cycle: Any
    if shape == "list":
        cycle = []
        cycle.append(cycle)
    elif shape == "object":
        cycle = {"a": 1}
        cycle["self"] = cycle
    elif shape == "through a nested container":
        cycle = [1, {"k": [2.5]}]
        cycle[1]["k"].append(cycle)
    else:
        cycle = ([],)
        cycle[0].append(cycle)
    assert outcome(canon, cycle, seconds=2) == outcome(rfc8785.dumps, cycle) == ("raised", RecursionError)


def test_digest_is_the_sha256_of_the_canonical_bytes() -> None:
    value = {"b": [1.0, "é"], "a": None}
    assert canon(value) == '{"a":null,"b":[1,"é"]}'.encode()
    assert digest(value) == "sha256:" + hashlib.sha256(canon(value)).hexdigest()


def test_a_sealed_object_is_sealed_and_a_changed_one_is_not() -> None:
    sealed = seal({"id": "ev-1", "step": 3, "digest": "sha256:" + "0" * 64})
    assert sealed["digest"] == digest({"id": "ev-1", "step": 3})
    assert is_sealed(sealed)
    assert not is_sealed({**sealed, "step": 4})
    assert not is_sealed({"id": "ev-1", "step": 3})


def test_sealing_leaves_the_original_as_it_was() -> None:
    original = {"digest": "x", "id": "a"}
    assert seal(original) == {"id": "a", "digest": digest({"id": "a"})}
    assert original == {"digest": "x", "id": "a"}


@given(
    st.dictionaries(
        st.one_of(unicode_text, tricky_names, st.sampled_from(["digest", "dig", "digests", "d"])), json_values
    )
)
def test_seal_canonical_gives_the_sealed_object_and_its_canonical_bytes(value: dict[str, Any]) -> None:
    sealed, written = seal_canonical(value)
    assert sealed == seal(value)
    assert written == rfc8785.dumps(sealed)


@given(st.dictionaries(tricky_names, report_values, max_size=4), st.dictionaries(tricky_names, json_values, max_size=4))
def test_seal_canonical_checks_every_member_itself(entries: dict[str, Any], rest: dict[str, Any]) -> None:
    # A report's entries hold floats only where a score is not whole; any other float is written as JCS too.
    value = {**rest, "proposals": [entries, entries]}
    sealed, written = seal_canonical(value)
    assert written == rfc8785.dumps(sealed)
    assert sealed == seal(value)


def _sealed_by_rfc8785(obj: dict[Any, Any]) -> tuple[dict[Any, Any], bytes]:
    body = {name: value for name, value in obj.items() if name != "digest"}
    sealed = {**body, "digest": "sha256:" + hashlib.sha256(rfc8785.dumps(body)).hexdigest()}
    return sealed, rfc8785.dumps(sealed)


_objects = st.dictionaries(st.one_of(unicode_text, tricky_names), json_values, max_size=4)


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        with_unwritable(_objects),
        with_cycle(_objects.filter(bool)),
        st.dictionaries(st.one_of(st.integers(), st.none(), tricky_names), json_values, min_size=1, max_size=3),
    )
)
def test_seal_canonical_refuses_what_rfc8785_refuses_with_its_own_error(value: dict[Any, Any]) -> None:
    assert outcome(seal_canonical, value, seconds=2) == outcome(_sealed_by_rfc8785, value)
