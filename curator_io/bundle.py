"""Loading a ``curator-bundle-v1`` (SPEC §1) into a frozen :class:`Bundle`.

The checks run in the order of the spec's input-error table, each over the
whole document before the next begins, so the error reported is always the
first in that order:

1. ``input.malformed_json`` (parsing, :mod:`curator_io.jsonio`);
2. ``input.schema``;
3. ``input.duplicate_id``;
4. ``input.inconsistent_trace``;
5. ``input.frozen_digest_mismatch``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from curator_io import grammar as g
from curator_io.canonical import digest
from curator_io.errors import InputError, pointer_of
from curator_io.jsonio import parse_json
from curator_io.models import (
    SIGNAL_WEIGHTS,
    Bundle,
    Evidence,
    Instruction,
    Lesson,
    Materialization,
    Scope,
    Trace,
)

__all__ = ["load_bundle", "bundle_from_document", "parse_scope", "SCHEMA"]

SCHEMA = "curator-bundle-v1"

T = TypeVar("T")
Path = tuple[str | int, ...]


def _fail(path: Path, detail: str) -> NoReturn:
    raise InputError("input.schema", detail, pointer=pointer_of(*path))


def _object(value: Any, path: Path) -> dict[str, Any]:
    if type(value) is not dict:
        _fail(path, "expected an object")
    return value


def _array(value: Any, path: Path) -> list[Any]:
    if type(value) is not list:
        _fail(path, "expected an array")
    return value


def _member(obj: dict[str, Any], name: str, path: Path, check: Callable[[Any], bool], what: str) -> Any:
    if name not in obj:
        _fail(path + (name,), f"missing required member {name!r}")
    value = obj[name]
    if not check(value):
        _fail(path + (name,), f"expected {what}")
    return value


def _text(lo: int, hi: int) -> Callable[[Any], bool]:
    return lambda v: type(v) is str and lo <= g.utf8_len(v) <= hi


def _one_of(*choices: str) -> Callable[[Any], bool]:
    return lambda v: type(v) is str and v in choices


def _is_str(v: Any) -> bool:
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


def _instruction(value: Any, path: Path) -> Instruction:
    obj = _object(value, path)
    key = _member(obj, "key", path, g.is_id, "a KEY")
    text = _member(obj, "text", path, _text(1, 4000), "a string of 1-4000 bytes")
    scope = parse_scope(_member(obj, "scope", path, lambda v: True, "a scope"))
    if scope is None:
        _fail(path + ("scope",), "expected a scope with exactly the members of its level")
    origin = _member(obj, "origin", path, _one_of("user", "curated", "repository"), "user, curated or repository")
    dig = _member(obj, "digest", path, _is_str, "a string")
    return Instruction(key, text, scope, origin, dig, obj)


def _materialization(value: Any, path: Path) -> Materialization:
    obj = _object(value, path)
    return Materialization(
        _member(obj, "id", path, g.is_id, "an ID"),
        _member(obj, "repository", path, g.is_repo, "a REPO"),
        _member(obj, "source_revision", path, _text(1, 100), "a string of 1-100 bytes"),
        _member(obj, "status", path, _one_of("compatible", "incompatible", "invalid"), "a status"),
        _member(obj, "digest", path, _is_str, "a string"),
        obj,
    )


def _trace(value: Any, path: Path) -> Trace:
    fast = _trace_fast(value)
    if fast is not None:
        return fast
    # The slow path names the first offending member.
    obj = _object(value, path)
    return Trace(
        _member(obj, "id", path, g.is_id, "an ID"),
        _member(obj, "lineage", path, g.is_id, "an ID"),
        _member(obj, "materialization", path, g.is_id, "an ID"),
        int(_member(obj, "steps", path, lambda v: g.is_int(v) and v >= 1, "an INT >= 1")),
        _member(obj, "completeness", path, _one_of("complete", "partial"), "complete or partial"),
        int(_member(obj, "verified_prefix", path, g.is_int, "an INT")),
        _member(obj, "digest", path, _is_str, "a string"),
        obj,
    )


def _evidence(value: Any, path: Path) -> Evidence:
    fast = _evidence_fast(value)
    if fast is not None:
        return fast
    # The slow path names the first offending member.
    obj = _object(value, path)
    return Evidence(
        _member(obj, "id", path, g.is_id, "an ID"),
        _member(obj, "trace", path, g.is_id, "an ID"),
        int(_member(obj, "step", path, g.is_int, "an INT")),
        _member(obj, "signal", path, lambda v: type(v) is str and v in SIGNAL_WEIGHTS, "a signal"),
        _member(obj, "observed_at", path, g.is_timestamp, "a TIMESTAMP"),
        _member(obj, "path", path, lambda v: v is None or g.is_path(v), "a PATH or null"),
        _member(obj, "summary", path, _text(0, 1000), "a string of 0-1000 bytes"),
        _member(obj, "digest", path, _is_str, "a string"),
        obj,
    )


# Traces and evidence are most of a bundle: each is checked in one straight
# expression first, and only a failure goes member by member to name the place.
_is_id = g.is_id


def _trace_fast(obj: Any) -> Trace | None:
    if type(obj) is not dict:
        return None
    get = obj.get
    tid, lineage, mat, steps = get("id"), get("lineage"), get("materialization"), get("steps")
    completeness, prefix, dig = get("completeness"), get("verified_prefix"), get("digest")
    if (
        _is_id(tid)
        and _is_id(lineage)
        and _is_id(mat)
        and type(steps) is int
        and 1 <= steps <= g.MAX_INT
        and (completeness == "complete" or completeness == "partial")
        and type(prefix) is int
        and 0 <= prefix <= g.MAX_INT
        and type(dig) is str
    ):
        return Trace(tid, lineage, mat, steps, completeness, prefix, dig, obj)
    return None


def _evidence_fast(obj: Any) -> Evidence | None:
    if type(obj) is not dict or "path" not in obj:
        return None
    get = obj.get
    eid, trace, step, signal, observed = get("id"), get("trace"), get("step"), get("signal"), get("observed_at")
    where, summary, dig = obj["path"], get("summary"), get("digest")
    if (
        _is_id(eid)
        and _is_id(trace)
        and type(step) is int
        and 0 <= step <= g.MAX_INT
        and type(signal) is str
        and signal in SIGNAL_WEIGHTS
        and g.is_timestamp(observed)
        and (where is None or g.is_path(where))
        and type(summary) is str
        and g.utf8_len(summary) <= 1000
        and type(dig) is str
    ):
        return Evidence(eid, trace, step, signal, observed, where, summary, dig, obj)
    return None


def _unique_ids(v: Any) -> bool:
    return type(v) is list and len(v) >= 1 and all(g.is_id(x) for x in v)


def _lesson(value: Any, path: Path) -> Lesson:
    obj = _object(value, path)
    lesson_id = _member(obj, "id", path, g.is_id, "an ID")
    text = _member(obj, "text", path, _text(1, 2000), "a string of 1-2000 bytes")
    cited = _member(obj, "evidence", path, _unique_ids, "a non-empty array of IDs")
    if len(set(cited)) != len(cited):
        _fail(path + ("evidence",), "evidence IDs must be unique")
    dig = _member(obj, "digest", path, _is_str, "a string")
    return Lesson(lesson_id, text, tuple(cited), dig, obj)


def _each(doc: dict[str, Any], name: str, build: Callable[[Any, Path], T], base: Path = ()) -> list[T]:
    items = _array(_member(doc, name, base, lambda v: True, "an array"), base + (name,))
    return [build(item, base + (name, i)) for i, item in enumerate(items)]


def _index(items: list[T], ident: Callable[[T], str], name: str) -> dict[str, T]:
    out: dict[str, T] = {}
    for i, item in enumerate(items):
        key = ident(item)
        if key in out:
            raise InputError(
                "input.duplicate_id", f"{name} id {key!r} appears twice", pointer=pointer_of(name, i, "id")
            )
        out[key] = item
    return out


def bundle_from_document(doc: Any) -> Bundle:
    """Check a parsed document against SPEC §1 and freeze it."""
    # 2. input.schema, over the whole document.
    doc = _object(doc, ())
    if doc.get("schema") != SCHEMA:
        _fail(("schema",), f"expected {SCHEMA!r}")
    run = _object(_member(doc, "run", (), lambda v: True, "an object"), ("run",))
    run_id = _member(run, "id", ("run",), g.is_id, "an ID")
    _member(run, "curator", ("run",), _is_str, "a string")
    _member(run, "frozen_at", ("run",), g.is_timestamp, "a TIMESTAMP")
    memory = _object(_member(doc, "memory", (), lambda v: True, "an object"), ("memory",))
    version = int(_member(memory, "version", ("memory",), g.is_int, "an INT"))
    memory_instructions = _each(memory, "instructions", _instruction, ("memory",))
    applicable = _each(doc, "instructions", _instruction)
    materializations = _each(doc, "materializations", _materialization)
    traces = _each(doc, "traces", _trace)
    evidence = _each(doc, "evidence", _evidence)
    lessons = _each(doc, "lessons", _lesson)
    proposals = _array(_member(doc, "proposals", (), lambda v: True, "an array"), ("proposals",))
    frozen = _object(_member(doc, "frozen", (), lambda v: True, "an object"), ("frozen",))
    frozen_digest = _member(frozen, "digest", ("frozen",), g.is_digest, "a DIGEST")

    # 3. input.duplicate_id.
    by_key = _index(memory_instructions, lambda x: x.key, "memory/instructions")
    keys = set(by_key)
    for i, inst in enumerate(applicable):
        if inst.key in keys:
            raise InputError(
                "input.duplicate_id",
                f"instruction key {inst.key!r} appears twice",
                pointer=pointer_of("instructions", i, "key"),
            )
        keys.add(inst.key)
    mats = _index(materializations, lambda x: x.id, "materializations")
    trace_index = _index(traces, lambda x: x.id, "traces")
    evidence_index = _index(evidence, lambda x: x.id, "evidence")
    lesson_index = _index(lessons, lambda x: x.id, "lessons")
    proposal_ids: set[str] = set()
    for i, proposal in enumerate(proposals):
        pid = proposal.get("id") if type(proposal) is dict else None
        if g.is_id(pid):
            if pid in proposal_ids:
                raise InputError(
                    "input.duplicate_id", f"proposal id {pid!r} appears twice", pointer=pointer_of("proposals", i, "id")
                )
            proposal_ids.add(pid)

    # 4. input.inconsistent_trace.
    for i, t in enumerate(traces):
        if t.verified_prefix > t.steps or (t.completeness == "complete" and t.verified_prefix != t.steps):
            raise InputError(
                "input.inconsistent_trace",
                f"trace {t.id!r}: verified_prefix {t.verified_prefix} does not fit "
                f"{t.completeness} with {t.steps} steps",
                pointer=pointer_of("traces", i, "verified_prefix"),
            )

    # 5. input.frozen_digest_mismatch.
    actual = digest({k: v for k, v in doc.items() if k != "frozen"})
    if actual != frozen_digest:
        raise InputError(
            "input.frozen_digest_mismatch",
            f"frozen.digest is {frozen_digest}, the content digests to {actual}",
            pointer="/frozen/digest",
        )

    return Bundle(
        run_id=run_id,
        input_digest=frozen_digest,
        memory_version=version,
        memory=memory,
        memory_instructions=by_key,
        applicable=tuple(applicable),
        materializations=mats,
        traces=trace_index,
        evidence=evidence_index,
        lessons=lesson_index,
        proposals=tuple(proposals),
    )


def load_bundle(raw: bytes) -> Bundle:
    """Parse (strict I-JSON) and check one bundle document."""
    return bundle_from_document(parse_json(raw))
