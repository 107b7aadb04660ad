"""The form of a batch's ``summary.json`` (``evidence-rank-batch-v1``), checked before
anything reads it: a summary can come from anyone (a copied folder, an artifact a
pull request uploaded), and its seal is a digest anyone can recompute.

:func:`check_summary_form` refuses a document that is not JSON of that form with
``input.schema`` (exit 3) and a JSON Pointer to the first place that is wrong:
a member of the wrong type or missing, an ``index`` out of its place, an
``output`` that is not the bundle's own folder under ``reports/`` (so no summary
can make a reader open a file outside the batch folder). Whether the summary is
genuine is :mod:`ranking.views.html.batch`'s check, made after this one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from curator_io import grammar as g
from curator_io.catalogue import OUTCOMES as REPORT_OUTCOMES
from curator_io.catalogue import SUMMARY_SCHEMA
from curator_io.config import parse_config
from curator_io.errors import ConfigError, InputError, pointer_of
from ranking.running.outputs import BUNDLE_FOLDER, REPORTS

#: A batch summary's outcome of one bundle: the report's, or ``error`` when the bundle was refused.
BATCH_OUTCOMES = (*REPORT_OUTCOMES, "error")

__all__ = ["BATCH_OUTCOMES", "check_summary_form"]

_Check = Callable[[Any], bool]


def _is_str(v: Any) -> bool:
    return type(v) is str


def _is_str_or_null(v: Any) -> bool:
    return v is None or type(v) is str


def _is_count(v: Any) -> bool:
    return type(v) is int and 0 <= v <= g.MAX_INT


def _is_line(v: Any) -> bool:
    return v is None or (type(v) is int and 1 <= v <= g.MAX_INT)


def _member(doc: Mapping[str, Any], at: tuple[str | int, ...], name: str, ok: _Check, expected: str) -> Any:
    if name not in doc:
        raise InputError("input.schema", f"missing member {name!r} ({expected})", pointer=pointer_of(*at, name))
    value = doc[name]
    if not ok(value):
        detail = f"expected {expected}, got {g.shown(value)}"
        raise InputError("input.schema", detail, pointer=pointer_of(*at, name))
    return value


def check_summary_form(doc: Any) -> None:
    """Raise ``input.schema`` at the first place where ``doc`` is not a batch summary's form."""
    if type(doc) is not dict:
        raise InputError("input.schema", f"not a batch summary ({SUMMARY_SCHEMA}): not an object", pointer="")
    _member(doc, (), "schema", _is_str, "a string")
    _member(doc, (), "digest", _is_str, "a string")
    counts = _member(doc, (), "counts", lambda v: type(v) is dict, "an object")
    for name in ("bundles", *BATCH_OUTCOMES):
        _member(counts, ("counts",), name, _is_count, "a count")
    config = _member(doc, (), "config", lambda v: type(v) is dict, "an object")
    try:
        parse_config(config)
    except ConfigError as e:
        raise InputError("input.schema", e.detail, pointer="/config" + (e.pointer or "")) from e
    bundles = _member(doc, (), "bundles", lambda v: type(v) is list, "an array")
    for i, entry in enumerate(bundles):
        _check_entry(entry, ("bundles", i), i + 1)


def _check_entry(entry: Any, at: tuple[str | int, ...], index: int) -> None:
    if type(entry) is not dict:
        raise InputError("input.schema", f"expected a bundle entry, got {g.shown(entry)}", pointer=pointer_of(*at))
    _member(entry, at, "index", lambda v: type(v) is int and v == index, f"{index} (entries are in input order)")
    source = _member(entry, at, "source", lambda v: type(v) is dict, "an object")
    _member(source, (*at, "source"), "file", _is_str, "a string")
    _member(source, (*at, "source"), "line", _is_line, "a line number or null")
    _member(entry, at, "run", _is_str_or_null, "a string or null")
    outcome = _member(entry, at, "outcome", lambda v: v in BATCH_OUTCOMES, "one of " + ", ".join(BATCH_OUTCOMES))
    _member(entry, at, "selected", lambda v: type(v) is list and all(map(_is_str, v)), "an array of strings")
    error = _member(entry, at, "error", lambda v: v is None or type(v) is dict, "an object or null")
    if (error is None) == (outcome == "error"):
        detail = "an entry has an error exactly when its outcome is error"
        raise InputError("input.schema", detail, pointer=pointer_of(*at, "error"))
    if error is not None:
        _member(error, (*at, "error"), "code", _is_str, "a string")
        _member(error, (*at, "error"), "message", _is_str, "a string")
        _member(error, (*at, "error"), "pointer", _is_str_or_null, "a string or null")
    output = _member(entry, at, "output", _is_str, "a string")
    # ``ranking.running.outputs.bundle_folder``'s names only: never ``..``, never hidden.
    parent, _, name = output.partition("/")
    found = BUNDLE_FOLDER.fullmatch(name) if parent == REPORTS else None
    if found is None or int(found.group(1)) != index:
        detail = f"expected the bundle's folder, {REPORTS}/{index:06d}-NAME, got {g.shown(output)}"
        raise InputError("input.schema", detail, pointer=pointer_of(*at, "output"))
