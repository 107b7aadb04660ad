"""Sealing a bundle for curator authors and fixture writers: every artifact's
``digest`` and the bundle's ``frozen.digest`` (SPEC §0, §1)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from curator_io.canonical import digest, is_sealed, seal
from curator_io.errors import pointer_of

__all__ = ["seal_bundle", "seal_artifacts", "unsealed_places", "ARTIFACT_LISTS"]

#: Where artifacts live in a bundle document, as JSON Pointer token paths.
ARTIFACT_LISTS: tuple[tuple[str, ...], ...] = (
    ("memory", "instructions"),
    ("instructions",),
    ("materializations",),
    ("traces",),
    ("evidence",),
    ("lessons",),
)


def _artifacts(doc: dict[str, Any]) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]:
    for path in ARTIFACT_LISTS:
        node: Any = doc
        for token in path:
            node = node.get(token) if isinstance(node, dict) else None
        if isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, dict):
                    yield (*path, i), item


def seal_bundle(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``doc`` with every artifact sealed and ``frozen.digest`` set last."""
    out = seal_artifacts(doc)
    frozen = dict(doc.get("frozen") or {}) if isinstance(doc.get("frozen"), dict) else {}
    frozen["digest"] = digest(out)
    return {**out, "frozen": frozen}


def seal_artifacts(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``doc`` without ``frozen``, every artifact sealed: what ``frozen.digest`` is of."""
    out = {k: v for k, v in doc.items() if k != "frozen"}
    for path in ARTIFACT_LISTS:
        parent: dict[str, Any] = out
        for token in path[:-1]:
            if not isinstance(parent.get(token), dict):
                break  # no artifacts here: as _artifacts, seal only what is a list of objects
            parent[token] = dict(parent[token])
            parent = parent[token]
        else:
            items = parent.get(path[-1])
            if isinstance(items, list):
                parent[path[-1]] = [seal(x) if isinstance(x, dict) else x for x in items]
    return out


def unsealed_places(doc: dict[str, Any]) -> list[str]:
    """JSON Pointers to every artifact digest, and the frozen digest, that does not seal."""
    places = [pointer_of(*path, "digest") for path, item in _artifacts(doc) if not is_sealed(item)]
    frozen = doc.get("frozen")
    body = {k: v for k, v in doc.items() if k != "frozen"}
    if not isinstance(frozen, dict) or frozen.get("digest") != digest(body):
        places.append("/frozen/digest")
    return places
