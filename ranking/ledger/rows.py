"""A row read from a ledger file, checked before anything uses it. Pure: tuples in,
:class:`DecisionRow` / :class:`Outcome` out, or the reason the row is refused.

A ledger is an input like any other: someone else's file, merged in, or a file
edited by hand. SQLite columns hold whatever was stored in them (a ``REAL``
column takes the text ``'high'``), so every value is checked for its type and
range here, once, on every read: what leaves this module is what
:mod:`ranking.ledger.records` would have written. A row that is not is a
:class:`RowError` naming its table and key; :mod:`ranking.ledger.store` turns it
into ``ledger.damaged`` (exit 4) naming the file.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from curator_io.grammar import MAX_INT, is_digest, is_id
from ranking.ledger.pool import WHY, Memory
from ranking.ledger.records import DecisionRow, Outcome
from ranking.signing.signers import Signer, signer_fault
from validator.proposal import edit_fault

__all__ = [
    "RowError",
    "decision_row",
    "outcome_row",
    "report_row",
    "signer_row",
    "edit_row",
    "memory_row",
    "pool_row",
    "dropped_row",
]


class RowError(ValueError):
    """A stored row whose values are not what the ledger writes."""

    def __init__(self, table: str, key: object, detail: str, *, report: object = None) -> None:
        self.table = table
        self.key = key
        self.detail = detail
        # A pool row or a tombstone is keyed by (report, fingerprint): named by its fingerprint, in its report.
        within = "" if report is None else f" (report {_shown(report)})"
        super().__init__(f"{table} row {_shown(key)}{within}: {detail}")


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def _text(value: object) -> str | None:
    return None if type(value) is str else "text"


def _text_or_null(value: object) -> str | None:
    return None if value is None or type(value) is str else "text or null"


def _natural(value: object) -> str | None:
    return None if type(value) is int and value >= 0 else "an integer >= 0"


def _version(value: object) -> str | None:
    # An artifact version; within I-JSON's exact integers (RFC 7493), as the outcome's key is a digest of it.
    if value is None or (type(value) is int and 0 <= value <= MAX_INT):
        return None
    return "an integer from 0 to 2^53 - 1, or null"


def _score(value: object) -> str | None:
    # SPEC §4: a final score is 0-100, exact to two decimals; stored as NUMERIC (an int or a float).
    if value is None or (isinstance(value, int | float) and type(value) is not bool and _within(value, 0, 100)):
        return None
    return "a number from 0 to 100, or null"


def _within(value: float, low: float, high: float) -> bool:
    return math.isfinite(value) and low <= value <= high


def _between(low: float, high: float) -> Callable[[object], str | None]:
    def check(value: object) -> str | None:
        if value is None or (type(value) is float and _within(value, low, high)):
            return None
        return f"a finite number from {low:g} to {high:g}, or null"

    return check


def _reasons(value: object) -> str | None:
    """The entry's ``reasons`` as JSON text: an array of {code, subject} (SPEC §6)."""
    wanted = "JSON text of an array of {code, subject} objects"
    if type(value) is not str:
        return wanted
    try:
        reasons = orjson.loads(value)
    except orjson.JSONDecodeError:
        return wanted
    if type(reasons) is not list:
        return wanted
    for r in reasons:
        if type(r) is not dict or type(r.get("code")) is not str or _text_or_null(r.get("subject", 0)) is not None:
            return wanted
    return None


_DECISION_CHECKS: tuple[Callable[[object], str | None], ...] = (
    _text,  # report
    _natural,  # position
    _text,  # run
    _text,  # proposal
    _text_or_null,  # fingerprint
    _text_or_null,  # lesson
    _text,  # validation
    _text,  # disposition
    _reasons,  # reasons
    _score,  # score
    _text_or_null,  # superseded_by
    _text,  # rationale
)
_OUTCOME_CHECKS: tuple[Callable[[object], str | None], ...] = (
    _text,  # report
    _text,  # proposal
    _text_or_null,  # fingerprint
    _text,  # diff
    _version,  # version
    _text,  # category
    _between(0.0, 1.0),  # p_improve: a probability
    _between(-1.0, 1.0),  # observed_delta: a change in a success rate
)
assert len(_DECISION_CHECKS) == len(DecisionRow._fields) and len(_OUTCOME_CHECKS) == len(Outcome._fields)


def _checked(
    table: str,
    key: object,
    names: Sequence[str],
    checks: Sequence[Any],
    values: Sequence[object],
    *,
    report: object = None,
) -> None:
    for name, check, value in zip(names, checks, values, strict=True):
        wanted = check(value)
        if wanted is not None:
            raise RowError(table, key, f"{name} is {_kind(value)}, not {wanted}", report=report)


def _kind(value: object) -> str:
    if isinstance(value, bytes):
        return f"a BLOB of {len(value)} bytes"
    if isinstance(value, str):
        return f"the text {_shown(repr(value))}"
    return "null" if value is None else _shown(value)


def decision_row(key: object, values: Sequence[object]) -> DecisionRow:
    """A ``decisions`` row (its columns in :class:`DecisionRow` order) checked; ``key`` names it."""
    _checked("decisions", key, DecisionRow._fields, _DECISION_CHECKS, values)
    return DecisionRow(*values)  # type: ignore[arg-type]  # checked column by column above


def outcome_row(key: object, values: Sequence[object]) -> Outcome:
    """An ``outcomes`` row (its columns in :class:`Outcome` order) checked; ``key`` names it."""
    _checked("outcomes", key, Outcome._fields, _OUTCOME_CHECKS, values)
    return Outcome(*values)  # type: ignore[arg-type]  # checked column by column above


def report_row(key: object, digest: object, body: object) -> tuple[str, bytes]:
    """A ``reports`` row's digest (text) and body (the report's bytes, a BLOB), checked."""
    if type(digest) is not str:
        raise RowError("reports", key, f"digest is {_kind(digest)}, not text")
    if type(body) is not bytes:
        raise RowError("reports", key, f"body is {_kind(body)}, not the report's bytes (a BLOB)")
    return digest, body


def signer_row(key: object, values: Sequence[object]) -> tuple[str, Signer]:
    """A ``signers`` row (report, keyid, name) checked for its form: the report's digest and
    who signed its bundle. Its truth is not checkable: a signer is an attestation."""
    report, keyid, name = values
    if type(report) is not str:
        raise RowError("signers", key, f"report is {_kind(report)}, not text")
    fault = signer_fault(keyid, name)
    if fault is not None:
        raise RowError("signers", key, f"{fault}: keyid is {_kind(keyid)}, name is {_kind(name)}")
    return report, Signer(keyid, name)  # type: ignore[arg-type]  # checked by signer_fault


def edit_row(fingerprint: object, edit: object) -> tuple[str, bytes]:
    """An ``edits`` row's fingerprint (text) and edit (JSON of an edit, a BLOB), checked for their
    form, so that no reader meets an edit of another shape (``[1]``); whether the edit is
    canonical and the fingerprint's is :func:`ranking.ledger.audit.edit_fault`'s."""
    if type(fingerprint) is not str:
        raise RowError("edits", fingerprint, f"fingerprint is {_kind(fingerprint)}, not text")
    if type(edit) is not bytes:
        raise RowError("edits", fingerprint, f"edit is {_kind(edit)}, not the edit's bytes (a BLOB)")
    try:
        value = orjson.loads(edit)
    except orjson.JSONDecodeError:
        raise RowError("edits", fingerprint, "edit is not JSON") from None
    fault = edit_fault(value)
    if fault is not None:
        raise RowError("edits", fingerprint, f"edit is not an edit: {fault}")
    return fingerprint, edit


def _digest(value: object) -> str | None:
    return None if type(value) is str and is_digest(value) else "a DIGEST (sha256: and 64 hex digits)"


def _run(value: object) -> str | None:
    return None if type(value) is str and is_id(value) else "an ID (a run id)"


def _blob_or_null(value: object) -> str | None:
    return None if value is None or type(value) is bytes else "a BLOB or null"


def _blob(value: object) -> str | None:
    return None if type(value) is bytes else "a BLOB"


def _why(value: object) -> str | None:
    return None if value in WHY else f"one of {', '.join(WHY)}"


def _run_or_null(value: object) -> str | None:
    return None if value is None else _run(value)


def memory_row(values: Sequence[object]) -> tuple[str, Memory]:
    """A ``memories`` row (report, version, digest, document) checked for its form; whether the
    document is the row's memory is :func:`ranking.ledger.pool.memory_fault`'s."""
    report = values[0]
    names = ("report", "version", "digest", "document")
    checks = (_digest, _version_int, _digest, _blob_or_null)
    _checked("memories", report, names, checks, values)
    return report, Memory(*values[1:])  # type: ignore[arg-type,return-value]  # checked column by column above


def _version_int(value: object) -> str | None:
    return None if type(value) is int and 0 <= value <= MAX_INT else "an integer from 0 to 2^53 - 1"


def pool_row(values: Sequence[object]) -> tuple[str, str, str, bytes]:
    """A ``pool`` row (report, fingerprint, run, closure) checked for its form; whether the closure
    is the row's is :func:`ranking.ledger.pool.closure_fault`'s."""
    _checked(
        "pool",
        values[1],
        ("report", "fingerprint", "run", "closure"),
        (_digest, _digest, _run, _blob),
        values,
        report=values[0],
    )
    return values  # type: ignore[return-value]  # checked column by column above


def dropped_row(values: Sequence[object]) -> tuple[str, str, str, str, str | None]:
    """A ``pool_dropped`` row (report, fingerprint, run, why, dropped_in) checked."""
    names = ("report", "fingerprint", "run", "why", "dropped_in")
    checks = (_digest, _digest, _run, _why, _run_or_null)
    _checked("pool_dropped", values[1], names, checks, values, report=values[0])
    return values  # type: ignore[return-value]  # checked column by column above
