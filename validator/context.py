"""What validation computes once per bundle, so each proposal's checks are
lookups rather than scans (SPEC §3 has no pairwise check)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from curator_io.config import Config
from curator_io.models import Bundle, Scope
from validator.normalize import norm

__all__ = ["Context", "make_context"]


@dataclass(frozen=True, slots=True)
class Context:
    bundle: Bundle
    config: Config
    applicable_keys: frozenset[str]
    memory_norms: Mapping[str, str]
    """Memory instruction key -> norm(text)."""
    memory_keys_by_norm: Mapping[str, frozenset[str]]
    applicable_scopes_by_norm: Mapping[str, tuple[Scope, ...]]


def make_context(bundle: Bundle, config: Config) -> Context:
    memory_norms = {key: norm(i.text) for key, i in bundle.memory_instructions.items()}
    by_norm: dict[str, set[str]] = {}
    for key, n in memory_norms.items():
        by_norm.setdefault(n, set()).add(key)
    scopes: dict[str, list[Scope]] = {}
    for inst in bundle.applicable:
        scopes.setdefault(norm(inst.text), []).append(inst.scope)
    return Context(
        bundle=bundle,
        config=config,
        applicable_keys=frozenset(i.key for i in bundle.applicable),
        memory_norms=memory_norms,
        memory_keys_by_norm={n: frozenset(keys) for n, keys in by_norm.items()},
        applicable_scopes_by_norm={n: tuple(s) for n, s in scopes.items()},
    )
