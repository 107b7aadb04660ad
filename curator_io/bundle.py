"""Loading a ``curator-bundle-v1`` (SPEC §1) into a frozen :class:`Bundle`.

The checks run in the order of the spec's input-error table, each over the
whole document before the next begins, so the error reported is always the
first in that order (3-5, and the head's part of 2, are :mod:`curator_io.freezing`):

1. ``input.malformed_json`` (parsing, :mod:`curator_io.jsonio`);
2. ``input.schema``;
3. ``input.duplicate_id``;
4. ``input.inconsistent_trace``;
5. ``input.frozen_digest_mismatch``.

:func:`load_bundle` parses a document whole, :func:`bundle_from_document`, up to
:data:`CHUNKED_ABOVE` bytes. A larger one it reads a chunk at a time
(:mod:`curator_io._fast.chunked`), so a large bundle is never held parsed whole:
each chunk of artifacts is checked, built and hashed, then dropped. A document
that passes 1 and 2 that way is the same bundle the whole parse would give.
Any doubt (malformed JSON, a schema error, an unusual layout) sends the
document to the whole parse, :func:`bundle_from_document`, which decides
exactly and names the first error.
"""

from __future__ import annotations

from typing import Any

from curator_io.artifacts import build_chunk, fail
from curator_io.canonical import digest
from curator_io.catalogue import BUNDLE_SCHEMA
from curator_io.freezing import check_frozen, check_head, freeze, top_member
from curator_io.jsonio import parse_json
from curator_io.kinds import ARTIFACTS
from curator_io.models import Bundle
from curator_io.reference import off

__all__ = ["load_bundle", "bundle_from_document", "SCHEMA", "CHUNKED_ABOVE"]

SCHEMA = BUNDLE_SCHEMA

#: The size from which reading in chunks pays: below it the whole parse is faster on every
#: layout users write, above it chunks are faster and hold less (bench/RESULTS.md, issue 34).
CHUNKED_ABOVE = 800_000


def bundle_from_document(doc: Any) -> Bundle:
    """Check a parsed document against SPEC §1 and freeze it."""
    # 2. input.schema, over the whole document, in the order SPEC §1 lists it.
    if type(doc) is not dict:
        fail((), "expected an object")
    head = check_head(doc)
    lists = {name: build_chunk(name, top_member(doc, name), 0) for name in ARTIFACTS}
    proposals = top_member(doc, "proposals")
    frozen_digest = check_frozen(doc)
    body_digest = digest({k: v for k, v in doc.items() if k != "frozen"})
    return freeze(head, lists, proposals, frozen_digest, body_digest)  # 3-5.


def load_bundle(raw: bytes) -> Bundle:
    """Parse (strict I-JSON) and check one bundle document; above :data:`CHUNKED_ABOVE` bytes,
    a chunk at a time where it can."""
    if off("chunked") or len(raw) <= CHUNKED_ABOVE:
        return bundle_from_document(parse_json(raw))
    from curator_io._fast.chunked import Unsure, read_in_chunks

    try:
        return read_in_chunks(raw)
    except Unsure:
        return bundle_from_document(parse_json(raw))
