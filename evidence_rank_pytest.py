"""The pytest plugin evidence-rank installs (entry point ``pytest11``: ``evidence_rank``).

It offers one fixture, ``rank_bundle``: rank a bundle named by a path relative
to the requesting test's file, and get back what :func:`ranking.testing.snapshot_lines`
gives, ready for a syrupy snapshot::

    def test_the_curator_run_of_2026_11_29_decides_as_reviewed(rank_bundle, snapshot):
        assert rank_bundle("bundles/2026-11-29.json") == snapshot

Relative to the test file, not to the working directory, so the test passes
whether pytest runs from the repository's root, from ``tests/`` or elsewhere.

A module of its own, outside the packages: pytest loads it in every session of
an environment that has evidence-rank installed, before the project's
``conftest.py``. Importing ``ranking.anything`` here would put evidence-rank's
``ranking`` in ``sys.modules`` first, and a project with its own top-level
``ranking`` package would fail to collect. So it imports none of evidence-rank's
packages until the fixture is called.

A bundle evidence-rank refuses (edited and not resealed, say) is not a
decision to snapshot. The call skips the rest of the test, so that syrupy counts
its snapshot neither failed nor unused (it would offer to delete the reviewed
snapshot of a failed test), and the fixture then fails the test at teardown
with the error's code, pointer and advice, in a few lines, without a traceback.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from curator_io.errors import EvidenceRankError

__all__ = ["rank_bundle"]

RankBundle = Callable[..., str]


@pytest.fixture
def rank_bundle(request: pytest.FixtureRequest) -> Iterator[RankBundle]:
    """``rank_bundle(path, config=None)``: the snapshot lines of the bundle at ``path``, relative to
    the test's file, ranked with ``config`` (a config object's members; the SPEC §2 defaults)."""
    base = Path(request.path).parent
    refused: list[str] = []

    def rank(path: str | os.PathLike[str], config: Mapping[str, Any] | None = None) -> str:
        from curator_io.config import parse_config
        from curator_io.errors import EvidenceRankError
        from ranking.testing import score_file, snapshot_lines

        try:
            return snapshot_lines(score_file(base / path, parse_config(dict(config or {}))))
        except EvidenceRankError as e:
            refused.append(_refusal(base / path, e))
        from ranking.views.terminal import printable

        pytest.skip(printable(f"evidence-rank refused {_shown(base / path)}: no snapshot compared (the error follows)"))

    yield rank
    if refused:
        pytest.fail("\n".join(refused), pytrace=False)


def _refusal(path: Path, error: EvidenceRankError) -> str:
    """What a person needs to fix ``path``: the error with its code and pointer, and its advice
    with the bundle's own path where it says ``BUNDLE``; each line through the escaper, as every
    line evidence-rank prints (pytest's output is a CI log too)."""
    from ranking.views.terminal import printable

    lines = [f"evidence-rank refused {_shown(path)}, before any snapshot comparison:", error.message]
    advice = error.diagnostics()
    if advice:
        lines.append("hint: " + advice.replace("BUNDLE", shlex.quote(_shown(path))))
    return "\n".join(printable(line) for line in lines)


def _shown(path: Path) -> str:
    """``path`` as a command run from here names it: relative to the working directory when under it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
