"""The property every target holds its entry point to (issue 13).

A run ends in a result, or in an ``EvidenceRankError`` whose code is one of
:data:`CODES`, whose class gives the exit code the catalogue lists for its code
(:data:`curator_io.catalogue.EXIT_OF_CODE`),
whose message is one line, and whose JSON Pointer resolves in the document it
was raised for (RFC 6901), or names a missing member of an object that
resolves (``tests.conftest.resolve_pointer``). Anything else is a
:class:`Violation`; any other exception escapes as it is.
"""

from __future__ import annotations

from typing import Any

from curator_io.catalogue import EXIT_OF_CODE
from curator_io.errors import EvidenceRankError
from curator_io.jsonio import parse_json
from tests.conftest import resolve_pointer

__all__ = ["CODES", "Violation", "check_error", "check_pointer", "exit_code_of"]

#: Every code an error may carry (the catalogue's table of codes and exit codes).
CODES = frozenset(EXIT_OF_CODE)


class Violation(AssertionError):
    """A run that broke the property: the fuzzer's finding."""


def exit_code_of(code: str) -> int:
    return EXIT_OF_CODE[code]


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
