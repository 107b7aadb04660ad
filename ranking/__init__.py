"""Scoring, ordering, selection, the pipeline entry point, the CLI and integrations."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ranking.checking.acceptance import Accepted, Replayed, accept
    from ranking.checking.apply import apply_selection, reviewable
    from ranking.checking.transcript_replay import replay_transcripts
    from ranking.pipeline import Result, rank, rank_bytes
    from ranking.running.inputs import read_memory_file, read_transcript_file

    __version__: str
    """The installed distribution's version (``evidence-rank``), or ``"unknown"`` in a never-installed checkout."""

__all__ = [
    "__version__",
    "Result",
    "Accepted",
    "Replayed",
    "accept",
    "apply_selection",
    "reviewable",
    "rank",
    "rank_bytes",
    "read_memory_file",
    "read_transcript_file",
    "replay_transcripts",
]

_HOMES = {
    "Result": "ranking.pipeline",
    "Accepted": "ranking.checking.acceptance",
    "Replayed": "ranking.checking.acceptance",
    "accept": "ranking.checking.acceptance",
    "apply_selection": "ranking.checking.apply",
    "reviewable": "ranking.checking.apply",
    "rank": "ranking.pipeline",
    "rank_bytes": "ranking.pipeline",
    "read_memory_file": "ranking.running.inputs",
    "read_transcript_file": "ranking.running.inputs",
    "replay_transcripts": "ranking.checking.transcript_replay",
}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("evidence-rank")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def __getattr__(name: str) -> Any:
    # PEP 562: a command that only scores (`batch`) does not pay for what `apply`
    # imports (jsonschema, pydantic), a large share of a short run's start-up;
    # nor does `import ranking` pay for importlib.metadata until __version__ is read.
    if name == "__version__":
        return _version()
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'ranking' has no attribute {name!r}")
    return getattr(import_module(home), name)
