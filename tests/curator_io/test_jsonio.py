"""parse_json keeps SPEC §0 "JSON" exactly, whichever of its two parsers answers."""

from __future__ import annotations

import io
import json
import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator_io import InputError, canon
from curator_io.jsonio import _parse_strict, iter_jsonl_lines, parse_json
from tests.deadline import outcome

MAX_SAFE = 2**53 - 1


def _malformed(raw: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message) as caught:
        parse_json(raw)
    assert caught.value.code == "input.malformed_json"
    assert caught.value.pointer == ""


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'\xef\xbb\xbf{"a":1}', "a UTF-8 byte-order mark is not allowed"),
        (b'{"a":"\xff"}', "not UTF-8 at byte 6"),
        (b'{"a":"\xed\xa0\x80"}', "not UTF-8 at byte 6"),  # a surrogate, UTF-8 encoded
        (b'{"a": [1, 2', "at line 1 column"),
        (b"", "at line 1 column 1"),
        (b'{"a":1,"a":2}', "duplicate member name 'a'"),
        (b'{"p":[{"x":1,"y":{"k":1,"k":1}}]}', "duplicate member name 'k'"),
        (b'{"a":1,"\\u0061":2}', "duplicate member name 'a'"),
        (b'{"a:b":1,"a\\u003ab":2}', "duplicate member name 'a:b'"),
        (b'{"t":"10:00","x":{"t":"11:00","t":"12:00"}}', "duplicate member name 't'"),
        (b'["\\ud800"]', "lone surrogate"),
        (b'{"k":"x\\uDC00"}', "lone surrogate"),
        (b'["\\udc00\\ud800"]', "lone surrogate"),
        (b"[1e400]", "number 1e400 is not finite as a binary64"),
        (b"[-1e400]", "number -1e400 is not finite as a binary64"),
        (b"[1" + b"0" * 400 + b"]", "is not finite as a binary64"),
        # Past Python's 4,300-digit limit for int(): still ours to refuse, not a ValueError.
        (b"[" + b"7" * 5000 + b"]", "is not finite as a binary64"),
        (b'{"a":-' + b"9" * 5000 + b"}", "is not finite as a binary64"),
        (b"-" + b"1" * 4301, "is not finite as a binary64"),
        (b"[NaN]", "NaN is not JSON"),
        (b'{"a":Infinity}', "Infinity is not JSON"),
        (b"[-Infinity]", "-Infinity is not JSON"),
        (b"[1,]", "at line 1 column"),
        (b'["a\tb"]', "at line 1 column"),  # a raw control character in a string
        (b"[1]\x0c", "at line 1 column"),  # form feed is not JSON whitespace
        (b"[01]", "at line 1 column"),
    ],
)
def test_what_is_not_i_json_is_refused_as_malformed(raw: bytes, message: str) -> None:
    _malformed(raw, message)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'["\\ud83d\\ude00"]', ["\U0001f600"]),
        (b'["\\uffff\xef\xbf\xbf"]', ["\uffff\uffff"]),  # noncharacters are allowed
        (b'{"t":"10:00:00Z","u":"a\\u003ab"}', {"t": "10:00:00Z", "u": "a:b"}),
        (b"[9007199254740991, -9007199254740991]", [MAX_SAFE, -MAX_SAFE]),
        (b"[9007199254740993]", [9007199254740992.0]),
        (b"[-9007199254740993]", [-9007199254740992.0]),
        (b"[18446744073709551617]", [1.8446744073709552e19]),
        (b"[1" + b"0" * 30 + b"]", [1e30]),
        (b"[1" + b"0" * 308 + b"]", [1e308]),  # 309 digits: still finite
        (b"[18446744073709553664, 18446744073709553665]", [2.0**64, 2.0**64 + 4096]),  # halfway: to even, and above
        (b"[9007199254740993.0, 9007199254740995]", [2.0**53, 2.0**53 + 4]),
        (b"[1e-400]", [0.0]),
        (b" \t\r\n[7.0, 7e0, 0.7e1]\n", [7.0, 7.0, 7.0]),
        (b"1", 1),
        (b'"x"', "x"),
    ],
)
def test_i_json_parses_to_the_values_javascript_reads(raw: bytes, expected: Any) -> None:
    assert _typed(parse_json(raw)) == _typed(expected)


def test_minus_zero_is_the_integer_zero_and_minus_zero_point_zero_keeps_its_sign() -> None:
    value = parse_json(b'{"a":-0,"b":-0.0}')
    assert type(value["a"]) is int and value["a"] == 0
    assert type(value["b"]) is float and math.copysign(1.0, value["b"]) == -1.0


def test_members_keep_their_document_order() -> None:
    assert list(parse_json(b'{"b":1,"a":2,"c":{"z":0,"y":1}}')) == ["b", "a", "c"]


def test_jsonl_lines_are_numbered_and_blank_lines_skipped() -> None:
    raw = b'{"a":1}\r\n\n  \n{"b":2}'
    assert list(iter_jsonl_lines(io.BytesIO(raw))) == [(1, b'{"a":1}'), (4, b'{"b":2}')]


@settings(max_examples=500, deadline=None)
@given(st.floats(min_value=5e-324, max_value=1.7e308), st.integers(min_value=-1, max_value=1))
def test_numbers_round_as_float_does_even_halfway_between_two_binary64s(x: float, nudge: int) -> None:
    # The exact midpoint to the next binary64, written out in full, or a hair either side of it.
    mid = (Fraction(x) + Fraction(math.nextafter(x, math.inf))) / 2 + Fraction(nudge, 10**400)
    text = _decimal(mid)
    expected = _integer(text) if "." not in text else float(text)
    assert _typed(parse_json(f"[{text}]".encode())) == _typed([expected])


def _decimal(q: Fraction) -> str:
    """The exact decimal expansion of a dyadic (or /10^k) rational."""
    whole, rest = divmod(q.numerator, q.denominator)
    if rest == 0:
        return str(whole)
    digits = []
    while rest and len(digits) < 1200:
        whole_digit, rest = divmod(rest * 10, q.denominator)
        digits.append(str(whole_digit))
    return f"{whole}.{''.join(digits)}"


# --- the fast path against an independent statement of SPEC §0 "JSON" ---


class _Refused(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        raise _Refused("duplicate")
    return dict(pairs)


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused("not finite")
    return value


def _integer(text: str) -> int | float:
    value = int(text)
    return value if abs(value) <= MAX_SAFE else _number(text)


def _refuse(name: str) -> None:
    raise _Refused(name)


def _reference(raw: bytes) -> Any:
    """SPEC §0, written once more without orjson: the oracle of the differential test."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raise _Refused("bom")
    value = json.loads(
        raw.decode("utf-8"), object_pairs_hook=_pairs, parse_float=_number, parse_int=_integer, parse_constant=_refuse
    )
    if any("\ud800" <= ch <= "\udfff" for s in _strings(value) for ch in s):
        raise _Refused("lone surrogate")
    return value


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _typed(value: Any) -> Any:
    """A form where 1 != 1.0 and 0.0 != -0.0, and member order counts."""
    if isinstance(value, dict):
        return ("object", [(k, _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("array", [_typed(v) for v in value])
    return (type(value).__name__, repr(value))


def _outcome(parse: Any, raw: bytes) -> Any:
    try:
        return _typed(parse(raw))
    except (_Refused, ValueError, UnicodeDecodeError):
        return "refused"
    except InputError as e:
        if e.code != "input.malformed_json":
            raise
        return "refused"


def _string_literal(text: str, ascii_only: bool, escape_colons: bool) -> str:
    literal = json.dumps(text, ensure_ascii=ascii_only)
    # ':' is never part of an escape sequence, so this only re-spells colons.
    return literal.replace(":", "\\u003a") if escape_colons else literal


unicode_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)
string_literals = st.one_of(
    st.builds(_string_literal, unicode_text, st.booleans(), st.booleans()),
    st.sampled_from(['"\\ud800"', '"x\\udc00"', '"\\ud83d\\ude00"', '"\\u0000\\/"', '"10:00:00Z"']),
)
number_literals = st.one_of(
    st.integers().map(str),
    st.integers(min_value=-(2**64), max_value=2**64).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["-0", "-0.0", "1E5", "0.1e1", "7.0", "7e0", "1e400", "-1e400", "1e-400", "1e16", "1e+21"]),
)
names = st.one_of(
    st.sampled_from(['"a"', '"b"', '"\\u0061"', '"a:b"', '"a\\u003ab"', '"\\u00e9"', '"\xe9"']), string_literals
)
documents = st.recursive(
    st.one_of(st.sampled_from(["null", "true", "false", "NaN"]), number_literals, string_literals),
    lambda children: st.one_of(
        st.lists(children, max_size=4).map(lambda xs: "[" + ",".join(xs) + "]"),
        st.lists(st.tuples(names, children), max_size=4).map(
            lambda kvs: "{" + ", ".join(f"{k} : {v}" for k, v in kvs) + "}"
        ),
    ),
    max_leaves=20,
)


@settings(max_examples=600, deadline=None)
@given(documents)
def test_parse_json_agrees_with_the_spec_on_arbitrary_documents(text: str) -> None:
    raw = text.encode("utf-8")
    assert _outcome(parse_json, raw) == _outcome(_reference, raw)


#: What the strict parser refuses, as bytes: lone surrogates escaped and UTF-8 encoded, bytes
#: that are not UTF-8, JavaScript's constants, numbers beyond binary64 (of 5,000 digits too),
#: nesting past the limit, a repeated name; and a number of 5,000 digits that it reads.
refused_literals = st.sampled_from(
    [
        b'"\\ud800"',
        b'"a\\udfffb"',
        b'"\xed\xa0\x80"',
        b'"\xff"',
        b'"\xc3"',
        b"NaN",
        b"Infinity",
        b"-Infinity",
        b"1e400",
        b"-1e400",
        b"9" * 5000,
        b"-" + b"1" * 4301,
        b"0." + b"3" * 5000,
        b"[" * 600 + b"]" * 600,
        b'{"a":1,"a":2}',
    ]
)
byte_documents = st.recursive(
    st.one_of(number_literals, string_literals, st.sampled_from(["null", "true", "false"])).map(str.encode)
    | refused_literals,
    lambda children: st.one_of(
        st.lists(children, max_size=4).map(lambda xs: b"[" + b",".join(xs) + b"]"),
        st.lists(st.tuples(names.map(str.encode), children), max_size=4).map(
            lambda kvs: b"{" + b",".join(k + b":" + v for k, v in kvs) + b"}"
        ),
    ),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(byte_documents)
def test_parse_json_refuses_what_the_strict_parser_refuses_with_its_error(raw: bytes) -> None:
    assert outcome(parse_json, raw) == outcome(_parse_strict, raw)


@pytest.mark.parametrize("depth", [600, 1000, 100_000])
def test_a_document_nested_beyond_the_implementation_limit_is_malformed_not_a_crash(depth: int) -> None:
    with pytest.raises(InputError, match="nested deeper than 512 levels") as caught:
        parse_json(b"[" * depth + b"]" * depth)
    assert caught.value.code == "input.malformed_json"


def test_a_document_nested_within_the_limit_parses_and_canonicalizes() -> None:
    raw = b"[" * 500 + b"]" * 500
    assert canon(parse_json(raw)) == raw
