"""Scoring, ordering, selection, the pipeline entry point, the CLI and integrations."""

from ranking.apply import apply_selection
from ranking.pipeline import Result, rank, rank_bytes, rank_validation

__all__ = ["Result", "apply_selection", "rank", "rank_bytes", "rank_validation"]
