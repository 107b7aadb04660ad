"""Mutations of a case, at byte level and at structure level, re-sealing what they change.

A fuzz input is a case (``fuzz.seeds``) encoded as its slots' bytes joined by
:data:`SEP`, in the order a target names them; a part that is exactly
:data:`ABSENT` is a file not given. libFuzzer's byte mutations may break the
framing: then the parts are what the bytes say.

A structure mutation parses one part, changes one node (delete, duplicate,
swap, change its type, a boundary number, a huge number, deep nesting, a long
string, a Unicode edge case, a copy of another node), writes it back, and
re-seals it: every artifact and ``frozen.digest`` of a bundle
(``curator_io.sealing.seal_bundle``), the ``digest`` of a report
(``curator_io.canonical.seal``), so the mutation gets past the digest checks
and reaches validation, ranking and verification. Sometimes the reports and
the applied memory are then derived again from the mutated bundle, so that
``apply``, ``gate`` and ``explain --bundle`` get past the replay too.
"""

from __future__ import annotations

import base64
import binascii
import collections
import copy
import json
import random
from typing import Any

from curator_io.canonical import seal
from curator_io.catalogue import BUNDLE_SCHEMA, OUTCOMES, REPORT_SCHEMA, VALIDATION_SCHEMA
from curator_io.errors import EvidenceRankError
from curator_io.jsonio import parse_json
from curator_io.sealing import seal_bundle
from fuzz.seeds import Case, derive, signed_envelope

__all__ = ["SEP", "ABSENT", "encode", "decode", "mutate_bytes", "mutate_case"]

SEP = b"\n\x00\x1e\x00\n"
ABSENT = b"\x00-\x00"

_TOKENS = (
    b'"', b"{", b"}", b"[", b"]", b",", b":", b"\\", b"\\ud800", b"\\udc00", b"\\u0000", b"\\u003a", b"1e999",
    b"-0", b"\xef\xbb\xbf", b"\xff", b"\xc3", b"\xed\xa0\x80", b"9" * 20, b"9" * 4400, b"null", b"true", b"\n",
    b"\r\n", b'"a":1,', b"[" * 600, b"0.1e1", b"1E400", b"\x7f", b"\t",
)  # fmt: skip

_STRINGS = (
    "", "x", "a" * 128, "a" * 129, "é" * 200, "a" * 401, "a" * 1001, "a" * 2001, "a" * 4001, "a" * 70000,
    "\x00", "\x1f", "\x7f", "\u0085", "\u00a0", "\u2028", "\ufeff", "\uffff", "\U0001f600", "İ", "ß", "Σ",
    "e\u0301", "\u212b", " trailing. ", "..", ".", "/", "a//b", "/abs", "a/./b", "a/../b", "a\nb", "~0~1/",
    "sha256:" + "0" * 64, "sha256:" + "A" * 64, "sha256:", "2026-02-29T00:00:00Z", "2024-02-29T23:59:59.999999999Z",
    "0000-01-01T00:00:00Z", "9999-12-31T23:59:60Z", "2026-11-29T10:00:00Z\n", "global", "repository", "path",
    "add", "replace", "remove", "user", "deterministic", "complete", "partial", "incompatible", "@0", "p-a",
    BUNDLE_SCHEMA, REPORT_SCHEMA, VALIDATION_SCHEMA, *OUTCOMES, "-x", "--help",
)  # fmt: skip

_NUMBERS: tuple[Any, ...] = (
    0, 1, -1, 2, 5, 6, 7, 40, 100, 0.5, 1.0, 7.0, 40.125, 100.001, 1e-7, 0.0115, 2**53 - 1, 2**53, 2**53 + 2,
    2**64, -(2**63), 1e300, -0.0, 1e16, 3.3333333333333335,
)  # fmt: skip

#: Numbers written as text: beyond what Python can write (4,300 digits) or beyond binary64.
_RAW_NUMBERS = ("1" * 4400, "-" + "9" * 5000, "1e400", "-1e400", "1e-400", "0." + "0" * 400 + "1", "9007199254740993")
_RAW_STRINGS = ('"\\ud800"', '"\\udfff x"', '"\\ud83d\\ude00"', '"\\u0000"', '"a\\u003ab"')


def encode(case: Case, slots: tuple[str, ...]) -> bytes:
    return SEP.join(case.get(slot, ABSENT) for slot in slots)


def decode(data: bytes, slots: tuple[str, ...]) -> Case:
    parts = data.split(SEP)
    return {slot: part for slot, part in zip(slots, parts, strict=False) if part != ABSENT}


# --- Byte level --------------------------------------------------------------------


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """One libFuzzer-like byte mutation (used where libFuzzer's own is not running)."""
    if not data:
        return rng.choice(_TOKENS)
    i = rng.randrange(len(data))
    j = min(len(data), i + rng.randrange(1, 64))
    op = rng.randrange(7)
    if op == 0:
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]
    if op == 1:
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1 :]
    if op == 2:
        return data[:i] + rng.choice(_TOKENS) + data[i:]
    if op == 3:
        return data[:i] + data[j:]
    if op == 4:
        return data[:i] + data[i:j] + data[i:]
    if op == 5:
        return data[:i]
    k = rng.randrange(len(data))
    return data[:i] + data[k : k + rng.randrange(1, 256)] + data[j:]


# --- Structure level ---------------------------------------------------------------


class _Raw:
    """Text written as is into the document (a number or string Python cannot write)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _nodes(doc: Any, limit: int = 4000) -> list[tuple[Any, Any]]:
    """``(container, key)`` for nodes of ``doc``, breadth first, at most ``limit``."""
    out: list[tuple[Any, Any]] = []
    queue = collections.deque([doc])
    while queue and len(out) < limit:
        node = queue.popleft()
        items = node.items() if type(node) is dict else enumerate(node) if type(node) is list else ()
        for key, value in items:
            out.append((node, key))
            if type(value) in (dict, list):
                queue.append(value)
    return out


def _value(rng: random.Random, doc: Any, current: Any) -> Any:
    kind = rng.randrange(20)
    if kind < 3:
        return rng.choice((None, True, False, [], {}, "", 0))
    if kind < 6:
        return rng.choice(_NUMBERS)
    if kind < 9:
        return rng.choice(_STRINGS)
    if kind < 11 and type(current) is str:
        return current + rng.choice(_STRINGS)
    if kind < 13 and type(current) in (int, float):
        return rng.choice((current + 1, current - 1, -current, current * 2, float(current), current / 3))
    if kind < 16:
        nodes = _nodes(doc, 500)
        if nodes:
            container, key = rng.choice(nodes)
            return copy.deepcopy(container[key])  # a copy of another node
    if kind == 16:
        return _Raw(rng.choice(_RAW_NUMBERS))
    if kind == 17:
        return _Raw(rng.choice(_RAW_STRINGS))
    if kind == 18:
        depth = rng.choice((254, 255, 256, 500, 509, 510, 511, 600))
        return _Raw("[" * depth + "]" * depth) if rng.random() < 0.5 else _Raw('{"a":' * depth + "1" + "}" * depth)
    return rng.choice((None, "x", 1, [current], {"x": current}))


def _mutate_doc(doc: Any, rng: random.Random) -> Any:
    """Change one node of ``doc`` in place (or return a new root)."""
    nodes = _nodes(doc)
    if not nodes:
        return _value(rng, doc, doc)
    container, key = rng.choice(nodes)
    op = rng.randrange(6)
    if op == 0:  # delete
        del container[key]
    elif op == 1 and type(container) is list:  # duplicate an item
        container.insert(key, copy.deepcopy(container[key]))
    elif op == 2 and type(container) is list and len(container) > 1:  # swap two items
        other = rng.randrange(len(container))
        container[key], container[other] = container[other], container[key]
    elif op == 3 and type(container) is dict:  # add a member (a typo, or a copy under another name)
        container[rng.choice(("contradicts", "extra", "digest", "key", "id", "scope", "~/x"))] = _value(
            rng, doc, container[key]
        )
    else:
        container[key] = _value(rng, doc, container[key])
    return doc


def _dump(doc: Any, rng: random.Random) -> bytes:
    raws: list[str] = []

    def default(o: Any) -> Any:
        if isinstance(o, _Raw):
            raws.append(o.text)
            return f"\x00raw{len(raws) - 1}\x00"
        raise TypeError(type(o).__name__)

    text = json.dumps(doc, default=default, ensure_ascii=rng.random() < 0.5, separators=(",", ":"))
    for i, raw in enumerate(raws):
        text = text.replace(json.dumps(f"\x00raw{i}\x00"), raw, 1)
    return text.encode("utf-8", "surrogatepass")


def _reseal(slot: str, data: bytes) -> bytes:
    """Seal a bundle's artifacts and frozen digest, or a report's digest; unparseable bytes stay as they are."""
    try:
        doc = parse_json(data)
    except EvidenceRankError:
        return data
    if type(doc) is not dict:
        return data
    if slot == "bundle":
        doc = seal_bundle(doc)
    elif slot in ("report", "validation"):
        doc = seal({k: v for k, v in doc.items() if k != "digest"})
    else:
        return data
    try:
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except (ValueError, RecursionError):
        return data  # nothing Python can write back: keep the mutation unsealed


def _mutate_statement(data: bytes, rng: random.Random) -> bytes | None:
    """The envelope's statement mutated and signed again; ``None`` when there is no statement to reach."""
    try:
        payload = parse_json(data)["payload"]
        statement = parse_json(base64.b64decode(payload, validate=True))
    except (EvidenceRankError, binascii.Error, KeyError, TypeError, ValueError):
        return None
    for _ in range(1 + (rng.random() < 0.3)):
        statement = _mutate_doc(statement, rng)
    try:
        return signed_envelope(parse_json(_dump(statement, rng)))
    except EvidenceRankError:
        return None  # a mutant no canonical JSON can write (a lone surrogate): nothing the signer would sign


def _mutate_part(slot: str, data: bytes, rng: random.Random) -> bytes:
    if slot == "signature" and rng.random() < 0.5:
        resigned = _mutate_statement(data, rng)
        if resigned is not None:
            return resigned
    try:
        doc = parse_json(data)
    except EvidenceRankError:
        lines = data.split(b"\n")
        if len(lines) > 1:  # a JSONL stream, perhaps: mutate one line
            i = rng.randrange(len(lines))
            lines[i] = _mutate_part(slot, lines[i], rng)
            return b"\n".join(lines)
        return mutate_bytes(data, rng)
    for _ in range(1 + (rng.random() < 0.3) + (rng.random() < 0.1)):
        doc = _mutate_doc(doc, rng)
    out = _dump(doc, rng)
    return _reseal(slot, out) if rng.random() < 0.9 else out


def mutate_case(case: Case, slots: tuple[str, ...], rng: random.Random) -> Case:
    """One structure mutation of one slot; derived files follow a mutated bundle half of the time.

    A document nested too deeply for Python's recursion to copy or write is mutated at byte level.
    """
    try:
        return _mutate_case(case, slots, rng)
    except RecursionError:
        return decode(mutate_bytes(encode(case, slots), rng), slots)


def _mutate_case(case: Case, slots: tuple[str, ...], rng: random.Random) -> Case:
    present = [s for s in slots if s in case]
    if not present:
        return {slots[0]: rng.choice(_TOKENS)}
    slot = rng.choice(present)
    out = dict(case)
    out[slot] = _mutate_part(slot, case[slot], rng)
    if (
        slot in ("bundle", "config")
        and rng.random() < 0.5
        and any(s in slots for s in ("report", "memory", "signature"))
    ):
        derived = derive(out)
        out.update({s: derived[s] for s in slots if s in derived and s != "bundle"})
        later = [s for s in ("report", "validation", "memory") if s in slots and s in out]
        if later and rng.random() < 0.5:
            other = rng.choice(later)
            out[other] = _mutate_part(other, out[other], rng)
    return out
