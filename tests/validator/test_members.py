"""A report object is built from its members' values, under the names the catalogue gives, in its order."""

from __future__ import annotations

import pytest

from curator_io.catalogue import SUPPORT_MEMBERS
from validator.members import json_object


def test_a_built_object_has_each_value_under_its_name_in_order() -> None:
    built = json_object(SUPPORT_MEMBERS)(2, 2, 27, 0, 3, 1, "2026-11-20T08:00:00Z")

    assert built == {
        "lineages": 2,
        "required": 2,
        "strength": 27,
        "contradiction": 0,
        "verified": 3,
        "quarantined": 1,
        "earliest": "2026-11-20T08:00:00Z",
    }
    assert list(built) == list(SUPPORT_MEMBERS)


def test_each_build_is_a_new_object() -> None:
    build = json_object(("code", "subject"))

    assert build("delta.noop", "k") is not build("delta.noop", "k")


def test_a_value_missing_or_extra_is_refused() -> None:
    build = json_object(("code", "subject"))

    with pytest.raises(TypeError):
        build("delta.noop")
    with pytest.raises(TypeError):
        build("delta.noop", None, "extra")
