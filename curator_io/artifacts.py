"""Building a bundle's artifacts from the tables of :mod:`curator_io.kinds`:
checked, their seals judged, frozen into models.

:func:`build_item` checks one object member by member, in its table's order,
and raises ``input.schema`` naming the first offending member; :func:`build_chunk`
builds a list of them, item by item (or, off the reference path, a member at a
time across the chunk: :mod:`curator_io._fast.bulk`, which builds the same).

The seal's verdict (SPEC §3.3) is settled here too, once per artifact, while
its JSON object is at hand: the model does not keep the object.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NoReturn

from curator_io import grammar as g
from curator_io.canonical import canon, seal_verdict
from curator_io.errors import InputError, pointer_of
from curator_io.grammar import Rule
from curator_io.kinds import ARTIFACTS, Kind
from curator_io.models import SealVerdict
from curator_io.reference import off

__all__ = ["Path", "seal_verdict_of", "fail", "member", "check_object", "build_item", "build_chunk"]

Path = tuple[str | int, ...]


def seal_verdict_of(obj: dict[str, Any]) -> SealVerdict:
    """SPEC §3.3 for one artifact: None when ``digest`` is a DIGEST that seals the rest."""
    body = dict(obj)
    claimed = body.pop("digest")
    return seal_verdict(claimed, canon(body))


def fail(path: Path, detail: str) -> NoReturn:
    raise InputError("input.schema", detail, pointer=pointer_of(*path))


def member(obj: dict[str, Any], name: str, path: Path, rule: Rule) -> Any:
    """``obj[name]`` as its model keeps it, or ``input.schema`` at ``path/name``."""
    if name not in obj:
        fail(path + (name,), f"missing required member {name!r}")
    value = obj[name]
    if not rule.holds(value):
        fail(path + (name,), f"expected {rule.expected}, got {g.shown(value)}")
    return value if rule.read is None else rule.read(value)


def _read(kind: Kind, value: Any, path: Path) -> Iterator[Any]:
    if type(value) is not dict:
        fail(path, "expected an object")
    for name, rule in kind.members:
        yield member(value, name, path, rule)


def check_object(kind: Kind, value: Any, path: Path) -> dict[str, Any]:
    """``value``, an object whose every member of ``kind`` holds, checked in the table's order."""
    for _ in _read(kind, value, path):
        pass
    return value  # type: ignore[no-any-return]  # _read failed unless it is a dict


def build_item(kind: Kind, value: Any, path: Path) -> Any:
    """The model of one artifact at ``path``; ``input.schema`` names its first offending member."""
    fields = list(_read(kind, value, path))[: len(kind.kept)]
    seal = seal_verdict_of(value)
    assert kind.model is not None  # Cannot fail: every artifact kind has a model.
    if kind.keeps_object:
        return kind.model(*fields, seal, value)
    return kind.model(*fields, seal)


def build_chunk(name: str, items: list[Any], first: int) -> list[Any]:
    """The artifacts of list ``name`` in ``items``, the first of which is at index ``first``."""
    kind = ARTIFACTS[name]
    if not off("bulk") and items and not kind.keeps_object:
        from curator_io._fast.bulk import build_in_bulk

        built = build_in_bulk(kind, items)
        if built is not None:
            return built
    return [build_item(kind, item, (name, first + k)) for k, item in enumerate(items)]
