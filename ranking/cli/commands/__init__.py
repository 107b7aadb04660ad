"""One module per command; each has ``register(subparsers)`` that sets ``run``.

Commands are listed here by name, in the order ``--help`` shows them; a module
is imported only when present, so the list is the single place to add one.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

__all__ = ["ALL"]

_ORDER = ("score", "validate", "verify", "batch", "apply", "gate", "explain", "seal", "schema")


def _load() -> list[ModuleType]:
    modules = []
    for name in _ORDER:
        qualified = f"{__name__}.{name}"
        if importlib.util.find_spec(qualified) is not None:
            modules.append(importlib.import_module(qualified))
    return modules


ALL = _load()
