"""The value grammar of SPEC §0."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from curator_io import grammar as g
from curator_io._fast.bulk import are_ids, are_timestamp_shaped


@pytest.mark.parametrize("value", ["p-1", "a", "A.b_c:d/e-f", "x" * 128])
def test_valid_ids(value: str) -> None:
    assert g.is_id(value)


@pytest.mark.parametrize("value", ["", "-a", "a b", "x" * 129, "p-1\n", "é", 7, None])
def test_invalid_ids(value: object) -> None:
    assert not g.is_id(value)


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2026-11-29T10:00:00Z", True),
        ("2024-02-29T23:59:59.123456789Z", True),
        ("2026-02-29T00:00:00Z", False),
        ("2026-02-30T00:00:00Z", False),
        ("0000-01-01T00:00:00Z", False),
        ("2026-11-29T23:59:60Z", False),
        ("2026-11-29T10:00:00Z\n", False),
        ("2026-11-29T10:00:00+00:00", False),
        ("2026-11-29T10:00:00.1234567890Z", False),
        ("２026-11-29T10:00:00Z", False),
    ],
)
def test_timestamps_are_real_utc_instants(value: str, ok: bool) -> None:
    assert g.is_timestamp(value) is ok


def test_timestamps_compare_as_instants_with_the_fraction_padded() -> None:
    assert g.instant_key("2026-01-01T00:00:00.5Z") == g.instant_key("2026-01-01T00:00:00.500Z")
    assert g.instant_key("2026-01-01T00:00:00Z") < g.instant_key("2026-01-01T00:00:00.000000001Z")


@pytest.mark.parametrize(
    ("value", "ok"), [(7, True), (7.0, True), (-0.0, True), (7.5, False), (True, False), (-1, False), (2**53, False)]
)
def test_an_int_is_an_integral_binary64_never_a_boolean(value: object, ok: bool) -> None:
    assert g.is_int(value) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("src/app.py", True),
        ("a", True),
        ("/abs", False),
        ("a//b", False),
        ("a/./b", False),
        ("a/../b", False),
        ("a\tb", False),
        ("", False),
    ],
)
def test_paths_are_relative_posix_without_dot_segments(value: str, ok: bool) -> None:
    assert g.is_path(value) is ok


_ID_LIKE = st.one_of(
    st.text(alphabet=st.sampled_from(list("aZ09._:/-\n é")), max_size=130),
    st.sampled_from(["a" * 128, "a" * 129, "x\ny", "-a", 5, None]),
)


@given(st.lists(_ID_LIKE, max_size=6))
def test_a_list_of_ids_is_checked_at_once_as_each_id_alone(values: list[object]) -> None:
    assert are_ids(values) is all(map(g.is_id, values))


_TIMESTAMP_LIKE = st.one_of(
    st.sampled_from(
        [
            "2026-11-29T10:00:00Z",
            "2024-02-29T23:59:59.123456789Z",
            "2023-02-29T00:00:00Z",
            "0000-01-01T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-11-29T10:00:00Z\n",
            "2026-11-29 10:00:00Z",
            "2026-11-29T10:00:60Z",
            5,
        ]
    ),
    st.text(alphabet=st.sampled_from(list("0129-T:.Z\n")), max_size=24),
)


@given(st.lists(_TIMESTAMP_LIKE, max_size=6))
def test_timestamps_shaped_at_once_are_real_instants_save_the_day_and_year_checks(values: list[object]) -> None:
    checked = [v for v in values if type(v) is str and (v[8:10] > "28" or v[:4] == "0000")]
    at_once = are_timestamp_shaped(values) and all(g.is_timestamp(v) for v in checked)
    assert at_once is all(map(g.is_timestamp, values))
