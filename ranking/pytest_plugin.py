"""The pytest plugin evidence-rank installs (entry point ``pytest11``: ``evidence_rank``).

It offers one fixture, ``rank_bundle``: rank a bundle named by a path relative
to the requesting test's file, and get back what :func:`ranking.testing.snapshot_lines`
gives, ready for a syrupy snapshot::

    def test_the_curator_run_of_2026_11_29_decides_as_reviewed(rank_bundle, snapshot):
        assert rank_bundle("bundles/2026-11-29.json") == snapshot

Relative to the test file, not to the working directory, so the test passes
whether pytest runs from the repository's root, from ``tests/`` or elsewhere.
pytest loads this module in every session of an environment that has
evidence-rank installed: it imports the library only when the fixture is used.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

__all__ = ["rank_bundle"]

RankBundle = Callable[..., str]


@pytest.fixture
def rank_bundle(request: pytest.FixtureRequest) -> RankBundle:
    """``rank_bundle(path, config=None)``: the snapshot lines of the bundle at ``path``, relative to
    the test's file, ranked with ``config`` (a config object's members; the SPEC §2 defaults)."""
    base = Path(request.path).parent

    def rank(path: str | os.PathLike[str], config: Mapping[str, Any] | None = None) -> str:
        from curator_io.config import parse_config
        from ranking.testing import score_file, snapshot_lines

        return snapshot_lines(score_file(base / path, parse_config(dict(config or {}))))

    return rank
