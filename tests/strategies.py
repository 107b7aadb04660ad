"""Hypothesis strategies for JSON values, shared by the tests of canonicalization and loading."""

from __future__ import annotations

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
