"""One artifact of a bundle (SPEC §1, "Artifacts"): checked, sealed or not, frozen.

Each ``build`` function takes the JSON value at ``path`` and returns the model
or raises ``input.schema`` naming the first offending member. The seal's
verdict (SPEC §3.3) is settled here too, once per artifact, while its JSON
object is at hand: the model does not keep the object.

Traces, evidence and lessons are most of a bundle, so a chunk of them is
first checked a member at a time across the chunk (``build_chunk``); only a
chunk that fails is checked item by item, member by member, to name the place.
An artifact whose members are exactly the known ones, its INTs written as
integers, is *plain*: orjson writes it as RFC 8785 does (ASCII names, strings,
integers up to 2^53 - 1, null), so its seal is hashed without the
canonicalizer's walk.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from itertools import repeat
from typing import Any, NoReturn

import orjson

from curator_io import grammar as g
from curator_io.canonical import canon
from curator_io.errors import InputError, pointer_of
from curator_io.models import SIGNAL_WEIGHTS, Evidence, Instruction, Integrity, Lesson, Materialization, Scope, Trace

__all__ = [
    "BUILDERS",
    "PLAIN",
    "Path",
    "parse_scope",
    "build_instruction",
    "build_materialization",
    "build_trace",
    "build_evidence",
    "build_lesson",
    "build_chunk",
    "integrity_of",
    "fail",
    "member",
    "is_str",
]

Path = tuple[str | int, ...]

#: How many members each kind has when it has no unknown one.
_MEMBERS = {"instructions": 5, "materializations": 5, "traces": 7, "evidence": 8, "lessons": 4}

_INVALID: Integrity = "artifact.invalid_digest"
_MISMATCH: Integrity = "artifact.digest_mismatch"
_SORTED = orjson.OPT_SORT_KEYS


def integrity_of(obj: dict[str, Any], plain: bool = False) -> Integrity:
    """SPEC §3.3 for one artifact: None when ``digest`` is a DIGEST that seals the rest."""
    body = dict(obj)
    claimed = body.pop("digest")
    data = orjson.dumps(body, option=_SORTED) if plain else canon(body)
    if claimed == "sha256:" + hashlib.sha256(data).hexdigest():
        return None
    return _MISMATCH if g.is_digest(claimed) else _INVALID


def fail(path: Path, detail: str) -> NoReturn:
    raise InputError("input.schema", detail, pointer=pointer_of(*path))


def member(obj: dict[str, Any], name: str, path: Path, check: Callable[[Any], bool], what: str) -> Any:
    if name not in obj:
        fail(path + (name,), f"missing required member {name!r}")
    value = obj[name]
    if not check(value):
        fail(path + (name,), f"expected {g.described(what)}, got {g.shown(value)}")
    return value


def _object(value: Any, path: Path) -> dict[str, Any]:
    if type(value) is not dict:
        fail(path, "expected an object")
    return value


def _text(lo: int, hi: int) -> Callable[[Any], bool]:
    return lambda v: type(v) is str and lo <= g.utf8_len(v) <= hi


def _one_of(*choices: str) -> Callable[[Any], bool]:
    return lambda v: type(v) is str and v in choices


def is_str(v: Any) -> bool:
    return type(v) is str


_SCOPE_MEMBERS = {
    "global": frozenset({"level"}),
    "repository": frozenset({"level", "repository"}),
    "path": frozenset({"level", "repository", "path"}),
}


def parse_scope(value: Any) -> Scope | None:
    """A Scope when ``value`` has exactly the members of its level, else None."""
    if type(value) is not dict:
        return None
    level = value.get("level")
    members = _SCOPE_MEMBERS.get(level) if type(level) is str else None
    if members is None or value.keys() != members:
        return None
    if level == "global":
        return Scope("global")
    if not g.is_repo(value["repository"]):
        return None
    if level == "repository":
        return Scope("repository", value["repository"])
    if not g.is_path(value["path"]):
        return None
    return Scope("path", value["repository"], value["path"])


# --- instructions and materializations: few per bundle, checked member by member -----


def build_instruction(value: Any, path: Path) -> Instruction:
    obj = _object(value, path)
    key = member(obj, "key", path, g.is_id, "a KEY")
    text = member(obj, "text", path, _text(1, 4000), "a string of 1-4000 bytes")
    scope = parse_scope(member(obj, "scope", path, lambda v: True, "a scope"))
    if scope is None:
        fail(path + ("scope",), "expected a scope with exactly the members of its level")
    origin = member(obj, "origin", path, _one_of("user", "curated", "repository"), "user, curated or repository")
    dig = member(obj, "digest", path, is_str, "a string")
    # Plain: a scope holds strings only (parse_scope checked its members).
    return Instruction(key, text, scope, origin, dig, integrity_of(obj, len(obj) == _MEMBERS["instructions"]), obj)


def build_materialization(value: Any, path: Path) -> Materialization:
    obj = _object(value, path)
    fields = (
        member(obj, "id", path, g.is_id, "an ID"),
        member(obj, "repository", path, g.is_repo, "a REPO"),
        member(obj, "source_revision", path, _text(1, 100), "a string of 1-100 bytes"),
        member(obj, "status", path, _one_of("compatible", "incompatible", "invalid"), "a status"),
    )
    member(obj, "digest", path, is_str, "a string")
    return Materialization(*fields, integrity_of(obj, len(obj) == _MEMBERS["materializations"]))


# --- traces and evidence: most of a bundle ----------------------------------------


def build_trace(value: Any, path: Path) -> Trace:
    obj = _object(value, path)
    fields = (
        member(obj, "id", path, g.is_id, "an ID"),
        member(obj, "lineage", path, g.is_id, "an ID"),
        member(obj, "materialization", path, g.is_id, "an ID"),
        int(member(obj, "steps", path, lambda v: g.is_int(v) and v >= 1, "an INT >= 1")),
        member(obj, "completeness", path, _one_of("complete", "partial"), "complete or partial"),
        int(member(obj, "verified_prefix", path, g.is_int, "an INT")),
    )
    member(obj, "digest", path, is_str, "a string")
    return Trace(*fields, integrity_of(obj))


def build_evidence(value: Any, path: Path) -> Evidence:
    obj = _object(value, path)
    fields = (
        member(obj, "id", path, g.is_id, "an ID"),
        member(obj, "trace", path, g.is_id, "an ID"),
        int(member(obj, "step", path, g.is_int, "an INT")),
        member(obj, "signal", path, lambda v: type(v) is str and v in SIGNAL_WEIGHTS, "a signal"),
        member(obj, "observed_at", path, g.is_timestamp, "a TIMESTAMP"),
        member(obj, "path", path, lambda v: v is None or g.is_path(v), "a PATH or null"),
    )
    member(obj, "summary", path, _text(0, 1000), "a string of 0-1000 bytes")
    member(obj, "digest", path, is_str, "a string")
    return Evidence(*fields, integrity_of(obj))


# --- lessons --------------------------------------------------------------------------


def _unique_ids(v: Any) -> bool:
    return type(v) is list and len(v) >= 1 and all(g.is_id(x) for x in v)


def build_lesson(value: Any, path: Path) -> Lesson:
    obj = _object(value, path)
    lesson_id = member(obj, "id", path, g.is_id, "an ID")
    text = member(obj, "text", path, _text(1, 2000), "a string of 1-2000 bytes")
    cited = member(obj, "evidence", path, _unique_ids, "a non-empty array of IDs")
    if len(set(cited)) != len(cited):
        fail(path + ("evidence",), "evidence IDs must be unique")
    member(obj, "digest", path, is_str, "a string")
    return Lesson(lesson_id, text, tuple(cited), integrity_of(obj, len(obj) == _MEMBERS["lessons"]))


# --- a chunk of traces or evidence at once ----------------------------------------
#
# A chunk of a few thousand well-formed traces or evidence items is checked a
# member at a time across the chunk: one regular-expression match over all its
# IDs, one over all its timestamps, and so on. Each check is the item check's
# condition for every item at once, so a chunk that passes them all builds
# what the item builders would; any doubt sends the chunk to them, item by item.

# What a PATH may not hold, "\n" aside (it joins them): a control character, or an empty, "." or ".." segment.
_NOT_PATHS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]|(?:\A|/|\n)\.{0,2}(?:/|\n|\Z)")
_SIGNALS = frozenset(SIGNAL_WEIGHTS)
_SIGNAL_NAMES = {name: name for name in SIGNAL_WEIGHTS}  # each signal's name held once, not once per item
_COMPLETENESS = frozenset({"complete", "partial"})
#: A chunk's models from its columns, ``tuple.__new__(Model, fields)``: the named tuple's
#: own ``__new__`` is a Python function, this is not.
_new = tuple.__new__


def _all_ints(values: list[Any], lo: int) -> bool:
    return all(type(v) is int for v in values) and lo <= min(values) and max(values) <= g.MAX_INT


def _all_paths(values: list[Any]) -> bool:
    """Every value is null or a PATH."""
    paths = [v for v in values if v is not None]
    if not paths:
        return True
    if not all(type(v) is str for v in paths):
        return False
    joined = "\n".join(paths)
    if joined.count("\n") != len(paths) - 1 or _NOT_PATHS.search(joined):
        return False
    return max(map(len, paths)) <= 100 or all(1 <= g.utf8_len(v) <= 400 for v in paths)


def _traces(items: list[Any]) -> list[Trace] | None:
    try:
        ids, lineages = [x["id"] for x in items], [x["lineage"] for x in items]
        mats, steps = [x["materialization"] for x in items], [x["steps"] for x in items]
        completeness, prefixes = [x["completeness"] for x in items], [x["verified_prefix"] for x in items]
        digests = [x["digest"] for x in items]
        known_completeness = _COMPLETENESS.issuperset(completeness)
    except (KeyError, TypeError):
        return None
    if not (
        g.are_ids(ids)
        and g.are_ids(lineages)
        and g.are_ids(mats)
        and _all_ints(steps, 1)
        and _all_ints(prefixes, 0)
        and known_completeness
        and all(type(v) is str for v in digests)
    ):
        return None
    integrity = [integrity_of(x, len(x) == _MEMBERS["traces"]) for x in items]
    return list(
        map(_new, repeat(Trace), zip(ids, lineages, mats, steps, completeness, prefixes, integrity, strict=True))
    )


def _evidence(items: list[Any]) -> list[Evidence] | None:
    try:
        ids, traces = [x["id"] for x in items], [x["trace"] for x in items]
        steps, signals = [x["step"] for x in items], [x["signal"] for x in items]
        observed, paths = [x["observed_at"] for x in items], [x["path"] for x in items]
        summaries, digests = [x["summary"] for x in items], [x["digest"] for x in items]
        known_signals = _SIGNALS.issuperset(signals)
    except (KeyError, TypeError):
        return None
    if not (
        g.are_ids(ids)
        and g.are_ids(traces)
        and _all_ints(steps, 0)
        and known_signals
        and g.are_timestamp_shaped(observed)
        and all(g.is_timestamp(t) for t in observed if t[8:10] > "28" or t[:4] == "0000")
        and _all_paths(paths)
        and all(type(v) is str for v in summaries)
        and (max(map(len, summaries)) <= 250 or all(g.utf8_len(v) <= 1000 for v in summaries))
        and all(type(v) is str for v in digests)
    ):
        return None
    integrity = [integrity_of(x, len(x) == _MEMBERS["evidence"]) for x in items]
    signals = list(map(_SIGNAL_NAMES.__getitem__, signals))
    return list(map(_new, repeat(Evidence), zip(ids, traces, steps, signals, observed, paths, integrity, strict=True)))


def _lessons(items: list[Any]) -> list[Lesson] | None:
    try:
        ids, texts = [x["id"] for x in items], [x["text"] for x in items]
        cited, digests = [x["evidence"] for x in items], [x["digest"] for x in items]
    except (KeyError, TypeError):
        return None
    if not (
        g.are_ids(ids)
        and all(type(v) is str and v for v in texts)
        and (max(map(len, texts)) <= 500 or all(g.utf8_len(v) <= 2000 for v in texts))
        and all(type(v) is list and v for v in cited)
        and g.are_ids([e for v in cited for e in v])
        and all(len(set(v)) == len(v) for v in cited)
        and all(type(v) is str for v in digests)
    ):
        return None
    integrity = [integrity_of(x, len(x) == _MEMBERS["lessons"]) for x in items]
    return list(map(_new, repeat(Lesson), zip(ids, texts, map(tuple, cited), integrity, strict=True)))


_IN_BULK: dict[str, Callable[[list[Any]], list[Any] | None]] = {
    "traces": _traces,
    "evidence": _evidence,
    "lessons": _lessons,
}


def build_chunk(name: str, items: list[Any], first: int) -> list[Any]:
    """The artifacts of list ``name`` in ``items``, the first of which is at index ``first``."""
    bulk = _IN_BULK.get(name)
    built = bulk(items) if bulk is not None and items else None
    if built is not None:
        return built
    build = BUILDERS[name]
    return [build(item, (name, first + k)) for k, item in enumerate(items)]


#: Whether a *built* artifact is plain: no member but the known ones, every INT
#: written as an integer (``7``, not ``7.0``). Its members are then strings,
#: integers up to 2^53 - 1, null, and lists or scopes of strings, under ASCII
#: names: what orjson writes exactly as RFC 8785 does.
PLAIN: dict[str, Callable[[dict[str, Any]], bool]] = {
    "instructions": lambda x: len(x) == _MEMBERS["instructions"],
    "materializations": lambda x: len(x) == _MEMBERS["materializations"],
    "traces": lambda x: len(x) == _MEMBERS["traces"] and type(x["steps"]) is int and type(x["verified_prefix"]) is int,
    "evidence": lambda x: len(x) == _MEMBERS["evidence"] and type(x["step"]) is int,
    "lessons": lambda x: len(x) == _MEMBERS["lessons"],
}

#: The top-level artifact lists, in the order SPEC §1 lists them, and how each item is built.
BUILDERS: dict[str, Callable[[Any, Path], Any]] = {
    "instructions": build_instruction,
    "materializations": build_materialization,
    "traces": build_trace,
    "evidence": build_evidence,
    "lessons": build_lesson,
}
