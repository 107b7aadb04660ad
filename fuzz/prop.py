"""The property every target holds its entry point to (issue 13).

A run ends in a result, or in an ``EvidenceRankError`` whose code is one of
:data:`CODES`, whose class gives the exit code its code's family documents,
whose message is one line, and whose JSON Pointer resolves in the document it
was raised for (RFC 6901), or names a missing member of an object that
resolves (``tests.conftest.resolve_pointer``). Anything else is a
:class:`Violation`; any other exception escapes as it is.
"""

from __future__ import annotations

from typing import Any

from curator_io.errors import EvidenceRankError
from curator_io.jsonio import parse_json
from ranking.verification import INVARIANTS
from tests.conftest import resolve_pointer

__all__ = ["CODES", "Violation", "check_error", "check_pointer", "exit_code_of"]

#: Every code an error may carry: SPEC §1's input errors, §2's config error, §7/§8's tamper and
#: invariant errors, a report ranked under another policy than the pinned one (exit 1), the
#: CLI's usage errors (README, "Exit codes"), and the trust file's, the key's and the signature's
#: (docs/provenance.md).
CODES = frozenset(
    {
        "input.malformed_json",
        "input.schema",
        "input.duplicate_id",
        "input.inconsistent_trace",
        "input.frozen_digest_mismatch",
        "config.invalid",
        "usage.unreadable",
        "usage.unwritable",
        "usage.invalid_option",
        "usage.missing_extra",
        "usage.scheduler_unreachable",
        "usage.unknown_proposal",
        "validation.tampered",
        "report.tampered",
        "policy.config_mismatch",
        "trust.invalid",
        "key.invalid",
        "signature.unsigned",
        "signature.malformed",
        "signature.unknown_key",
        "signature.invalid",
        "signature.subject_mismatch",
        *(f"invariant.{name}" for name in INVARIANTS),
        # The ledger (docs/ledger.md): a file that is not one, or of a newer schema (2); one whose
        # schema or rows are not what evidence-rank writes, or whose rows its reports do not vouch for (4).
        "ledger.not_a_ledger",
        "ledger.version",
        "ledger.damaged",
        "ledger.tampered",
    }
)

_EXIT_BY_FAMILY = {
    "input": 3, "config": 2, "usage": 2, "validation": 4, "report": 4, "invariant": 4, "policy": 1, "ledger": 4,
    "trust": 2, "key": 2, "signature": 4,
}  # fmt: skip
#: Codes that exit otherwise than their family: a ledger that is not one, or too new, is a usage error.
_EXIT_BY_CODE = {"ledger.not_a_ledger": 2, "ledger.version": 2}


class Violation(AssertionError):
    """A run that broke the property: the fuzzer's finding."""


def exit_code_of(code: str) -> int:
    return _EXIT_BY_CODE.get(code) or _EXIT_BY_FAMILY[code.partition(".")[0]]


def _parsed(raw: bytes | None) -> Any:
    if raw is None:
        return None
    try:
        return parse_json(raw)
    except EvidenceRankError:
        return _UNPARSED


_UNPARSED = object()


def check_pointer(pointer: str | None, code: str, raw: bytes | None) -> None:
    """``pointer`` names a place in the document ``raw`` (or, for a document that does not parse, the whole)."""
    if pointer is None:
        if not code.startswith("usage."):
            raise Violation(f"{code} without a pointer")
        return
    doc = _parsed(raw)
    if doc is None or doc is _UNPARSED:
        if pointer != "":
            raise Violation(
                f"{code} at {pointer!r} in a document that {'is not given' if doc is None else 'does not parse'}"
            )
        return
    try:
        resolve_pointer(doc, pointer)
    except AssertionError as e:
        raise Violation(f"{code}: the pointer names no place: {e}") from None


def check_error(error: EvidenceRankError, raw: bytes | None) -> None:
    """The property for an error raised for the document ``raw`` (None: raised for no document)."""
    if error.code not in CODES:
        raise Violation(f"unknown code {error.code!r}")
    if error.exit_code != exit_code_of(error.code):
        raise Violation(f"{error.code} exits {error.exit_code}, its family exits {exit_code_of(error.code)}")
    if "\n" in error.line or "\r" in error.line:
        raise Violation(f"{error.code}: a message of more than one line: {error.line[:200]!r}")
    check_pointer(error.pointer, error.code, raw)
