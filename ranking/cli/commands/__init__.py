"""One module per command; each has ``register(subparsers)`` and sets ``run``."""

from ranking.cli.commands import score

ALL = [score]

__all__ = ["ALL"]
