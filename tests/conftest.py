"""Shared fixtures: where the parity corpus and the shipped fixtures live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
#: The reference's parity corpus sits beside the checkout: ../shared/parity/cases.
PARITY = Path(os.environ.get("EVIDENCE_RANK_PARITY", REPO.parent / "shared" / "parity" / "cases"))


def parity_cases() -> list[Path]:
    """Every case folder; an absent corpus is an error, never a silent skip."""
    if not PARITY.is_dir():
        raise RuntimeError(f"parity corpus not found at {PARITY}; set EVIDENCE_RANK_PARITY")
    return sorted(p for p in PARITY.iterdir() if p.is_dir())


@pytest.fixture
def parity_dir() -> Path:
    return PARITY


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Parity is the first test: the reference corpus runs before everything else."""
    items.sort(key=lambda item: item.path.name != "test_parity.py")
