"""Building a bundle's artifacts from the tables of :mod:`curator_io.kinds`:
checked, their seals judged, frozen into models.

Two ways to one result. :func:`build_item` checks one object member by member,
in its table's order, and raises ``input.schema`` naming the first offending
member. :func:`build_chunk` checks a chunk of traces, evidence items, lessons
or materializations a member at a time across the chunk (each rule's
``holds_for_all``: one regular-expression match over all its IDs, and so on);
any doubt sends the chunk to :func:`build_item`, item by item, so a chunk
builds what its items build one by one, or fails at the same place (a
hypothesis test holds it to that).

The seal's verdict (SPEC §3.3) is settled here too, once per artifact, while
its JSON object is at hand: the model does not keep the object.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import repeat
from typing import Any, NoReturn

import orjson

from curator_io import grammar as g
from curator_io.canonical import canon, sha256_digest
from curator_io.errors import InputError, pointer_of
from curator_io.grammar import Rule
from curator_io.kinds import ARTIFACTS, Kind
from curator_io.models import SealVerdict

__all__ = ["Path", "seal_verdict_of", "fail", "member", "check_object", "build_item", "build_chunk"]

Path = tuple[str | int, ...]

_INVALID: SealVerdict = "artifact.invalid_digest"
_MISMATCH: SealVerdict = "artifact.digest_mismatch"
_SORTED = orjson.OPT_SORT_KEYS
#: A chunk's models from its columns, ``tuple.__new__(Model, fields)``: the named tuple's
#: own ``__new__`` is a Python function, this is not.
_new = tuple.__new__


def seal_verdict_of(obj: dict[str, Any], orjson_exact: bool = False) -> SealVerdict:
    """SPEC §3.3 for one artifact: None when ``digest`` is a DIGEST that seals the rest.

    ``orjson_exact``: orjson writes ``obj`` as RFC 8785 does (:meth:`Kind.orjson_exact`).
    """
    body = dict(obj)
    claimed = body.pop("digest")
    data = orjson.dumps(body, option=_SORTED) if orjson_exact else canon(body)
    if claimed == sha256_digest(data):
        return None
    return _MISMATCH if g.is_digest(claimed) else _INVALID


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
    seal = seal_verdict_of(value, kind.orjson_exact(value))
    assert kind.model is not None  # Cannot fail: every artifact kind has a model.
    if kind.keeps_object:
        return kind.model(*fields, seal, value)
    return kind.model(*fields, seal)


def build_chunk(name: str, items: list[Any], first: int) -> list[Any]:
    """The artifacts of list ``name`` in ``items``, the first of which is at index ``first``."""
    kind = ARTIFACTS[name]
    built = _in_bulk(kind, items) if items and not kind.keeps_object else None
    if built is not None:
        return built
    return [build_item(kind, item, (name, first + k)) for k, item in enumerate(items)]


def _in_bulk(kind: Kind, items: list[Any]) -> list[Any] | None:
    """Every item built at once, or None when a rule does not hold for the whole chunk."""
    try:
        columns = [[x[name] for x in items] for name, _ in kind.members]
    except (KeyError, TypeError):
        return None
    if not all(rule.all_hold(column) for (_, rule), column in zip(kind.members, columns, strict=True)):
        return None
    # Every INT in the chunk is written as an integer (Rule.holds_for_all): exact unless a member is unknown.
    size = len(kind.members)
    seals = [seal_verdict_of(x, len(x) == size) for x in items]
    kept = [
        column if rule.read is None or rule.number else list(map(rule.read, column))
        for (_, rule), column in zip(kind.members, columns[: len(kind.kept)], strict=False)
    ]
    model: type[tuple[Any, ...]] = kind.model  # type: ignore[assignment]  # a named tuple: keeps_object is False
    return list(map(_new, repeat(model), zip(*kept, seals, strict=True)))
