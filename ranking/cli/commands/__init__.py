"""One module per command; each has ``register(subparsers)`` that sets ``run``.

``ALL`` is the order ``--help`` lists them in.
"""

from __future__ import annotations

from ranking.cli.commands import apply, batch, explain, gate, ledger, schema, score, seal, validate, verify

__all__ = ["ALL"]

ALL = [score, validate, verify, batch, apply, gate, explain, seal, schema, ledger]
