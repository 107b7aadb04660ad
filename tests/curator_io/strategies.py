"""Hypothesis strategies for JSON values, shared by the tests of canonicalization and loading."""

from __future__ import annotations

import copy
import math
from typing import Any

from hypothesis import strategies as st

MAX_SAFE = 2**53 - 1

# Every Unicode scalar value: no lone surrogates (category Cs), which are not JSON text.
unicode_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)))
# Names that order differently by UTF-16 code units and by code points, plus escapes.
tricky_names = st.text(
    alphabet=st.sampled_from(["a", "B", "é", "\ue000", "\uffff", "\U00010000", "\U0001f600", '"', "\\", "\n", "\x00"]),
    max_size=4,
)
edge_floats = st.sampled_from(
    [
        1.0,
        7.0,
        -0.0,
        0.0,
        1e21,
        1e20,
        1e16,
        1e15,
        5e-7,
        1e-6,
        1e-5,
        1e-4,
        1.5e-6,
        0.1,
        33.33,
        1e23,
        9007199254740992.0,
        4503599627370495.5,
        5e-324,
        2.2250738585072014e-308,
        1.7976931348623157e308,
    ]
)
numbers = st.one_of(
    st.integers(min_value=-MAX_SAFE, max_value=MAX_SAFE),
    st.floats(allow_nan=False, allow_infinity=False),
    edge_floats,
)
scalars = st.one_of(st.none(), st.booleans(), numbers, unicode_text)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.one_of(unicode_text, tricky_names), children, max_size=5),
    ),
    max_leaves=40,
)


# --- what a fast path must refuse as its reference does --------------------------------

#: Values RFC 8785 cannot write, each refused with an error of its own: a float that is not
#: finite, a lone surrogate (in a string, or in a member name), an integer beyond 2^53 - 1.
#: (Copied: a container drawn twice must be two, or putting one into the other makes a cycle.)
unwritable = st.sampled_from(
    [math.nan, math.inf, -math.inf, "\ud800", "x\udc00y", {"\udbff": 1}, {"a\ud800": None}, 2**53, -(2**60)]
).map(copy.deepcopy)


def _containers(value: Any) -> list[list[Any] | dict[str, Any]]:
    """Every list and dict in ``value``, outermost first."""
    out: list[list[Any] | dict[str, Any]] = []
    todo = [value]
    while todo:
        node = todo.pop(0)
        if isinstance(node, dict | list):
            out.append(node)
            todo.extend(node.values() if isinstance(node, dict) else node)
    return out


def _put(draw: st.DrawFn, into: list[Any] | dict[str, Any], value: Any) -> None:
    """``value`` as one more item of ``into``, or as one of its members (new or replaced)."""
    if isinstance(into, list):
        into.insert(draw(st.integers(0, len(into))), value)
    else:
        into[draw(st.one_of(st.sampled_from(sorted(into) or ["k"]), tricky_names))] = value


json_containers = st.one_of(
    st.lists(json_values, max_size=4), st.dictionaries(st.one_of(unicode_text, tricky_names), json_values, max_size=4)
)


@st.composite
def with_unwritable(draw: st.DrawFn, values: st.SearchStrategy[Any] = json_containers) -> Any:
    """A JSON container with one or two values RFC 8785 cannot write put in, however deep."""
    value = draw(values)
    for _ in range(draw(st.integers(1, 2))):
        _put(draw, draw(st.sampled_from(_containers(value))), draw(unwritable))
    return value


@st.composite
def with_cycle(draw: st.DrawFn, values: st.SearchStrategy[Any] = json_containers) -> Any:
    """A JSON container that contains itself: some container in it holds itself or one around it."""
    value = draw(values)
    containers = _containers(value)
    at = draw(st.integers(0, len(containers) - 1))
    around = [c for c in containers[: at + 1] if _holds(c, containers[at])]
    _put(draw, containers[at], draw(st.sampled_from(around)))
    return value


def _holds(outer: Any, inner: Any) -> bool:
    return any(c is inner for c in _containers(outer))
