"""The config (SPEC §2): defaults, ranges and the exact threshold."""

from __future__ import annotations

from typing import Any

import pytest

from curator_io import ConfigError, parse_config
from curator_io.config import DEFAULT_CONFIG


def test_members_not_given_take_their_defaults_and_reports_carry_all_eight() -> None:
    config = parse_config({"threshold": 55})
    assert config.to_json() == {
        "threshold": 55,
        "max_selected": 5,
        "max_operations": 6,
        "max_operation_bytes": 1200,
        "max_delta_bytes": 4000,
        "min_lineages": 2,
        "min_lineages_broad": 3,
        "min_lineages_user": 1,
    }
    assert parse_config({}) == DEFAULT_CONFIG


def test_the_threshold_means_its_shortest_decimal_exactly() -> None:
    assert parse_config({"threshold": 40.1}).threshold_hundredths == 4010
    # Every threshold SPEC §2 allows, against its decimal read exactly.
    for hundredths in range(10_001):
        threshold = float(f"{hundredths // 100}.{hundredths % 100:02d}")
        assert parse_config({"threshold": threshold}).threshold_hundredths == hundredths
    assert parse_config({"threshold": 40.0}).to_json()["threshold"] == 40


@pytest.mark.parametrize(
    ("doc", "member"),
    [
        ({"threshold": 40.123}, "threshold"),
        ({"threshold": 1e-05}, "threshold"),
        ({"threshold": 101}, "threshold"),
        ({"threshold": True}, "threshold"),
        ({"max_selected": 6}, "max_selected"),
        ({"max_selected": 0}, "max_selected"),
        ({"min_lineages": 1.5}, "min_lineages"),
        ({"min_lineage": 2}, "min_lineage"),
    ],
)
def test_a_config_outside_its_ranges_is_a_usage_error(doc: dict[str, Any], member: str) -> None:
    with pytest.raises(ConfigError, match=member) as caught:
        parse_config(doc)
    assert caught.value.code == "config.invalid"
    assert caught.value.pointer == f"/{member}"
    assert caught.value.exit_code == 2
