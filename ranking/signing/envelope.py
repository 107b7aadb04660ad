"""Signature files: a DSSE envelope around an in-toto Statement (docs/provenance.md).

A signature file is the canonical JSON (RFC 8785) of a DSSE envelope
(github.com/secure-systems-lab/dsse, ``envelope.md``, ``protocol.md``)::

    {"payload": BASE64, "payloadType": "application/vnd.in-toto+json",
     "signatures": [{"keyid": "sha256:...", "sig": BASE64}]}

Its payload is the canonical JSON of an in-toto Statement v1
(github.com/in-toto/attestation, ``spec/v1/statement.md``) whose one subject
is the signed document, named by its file name and its *seal*: a bundle's
``frozen.digest``, a report's ``digest``. A seal covers the canonical bytes,
so re-indenting the file keeps the signature and any edit of its content
breaks it. The signature is over DSSE's pre-authentication encoding (PAE) of
the payload type and the payload bytes.

evidence-rank writes exactly one signature per envelope and reads nothing
else: an envelope with none, two, or a member this module does not write is
``signature.malformed``. Pure: bytes in, values out; no keys, no files.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from curator_io import grammar as g
from curator_io.canonical import canon
from curator_io.catalogue import DIGEST_PREFIX
from curator_io.errors import EvidenceRankError, SignatureError, pointer_of
from curator_io.jsonio import parse_json
from ranking.signing.keys import b64decode, b64encode

__all__ = [
    "PAYLOAD_TYPE",
    "STATEMENT_TYPE",
    "PREDICATE_TYPES",
    "Envelope",
    "Statement",
    "pae",
    "make_statement",
    "make_envelope",
    "parse_envelope",
    "parse_statement",
]

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
#: What a statement says it is about, by the kind of document signed. Names under the project's
#: own namespace: they identify evidence-rank's predicate, and resolve to nothing.
PREDICATE_TYPES = {
    "bundle": "https://evidence-rank.dev/bundle/v1",
    "report": "https://evidence-rank.dev/report/v1",
}
_KIND_OF = {v: k for k, v in PREDICATE_TYPES.items()}
_ENVELOPE_MEMBERS = {"payload", "payloadType", "signatures"}
_STATEMENT_MEMBERS = {"_type", "subject", "predicateType", "predicate"}
# fullmatch, not match + $: "$" would accept a trailing newline.


class Envelope(NamedTuple):
    """A signature file that has the shape evidence-rank writes; nothing verified yet."""

    payload: bytes
    keyid: str
    """The key id the signer gave: which trusted key to verify with."""
    sig: bytes

    @property
    def signed_bytes(self) -> bytes:
        return pae(PAYLOAD_TYPE, self.payload)


class Statement(NamedTuple):
    """What a verified payload says was signed."""

    kind: str
    """``bundle`` or ``report``."""
    name: str
    """The file name the signer gave the document: shown, never checked (files are renamed)."""
    digest: str
    """``sha256:HEX``: the document's seal."""
    materials: tuple[tuple[str, str], ...] = ()
    """A bundle's agents' logs, as (file name, ``sha256:HEX`` of its bytes): the files its evidence
    was read from (docs/transcripts.md), listed by the signer; empty for any other document."""


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding: ``DSSEv1 SP LEN(type) SP type SP LEN(body) SP body``."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def make_statement(
    kind: str, name: str, digest: str, tool: str, materials: tuple[tuple[str, str], ...] = ()
) -> dict[str, Any]:
    """The in-toto Statement over one document of ``kind`` (``bundle`` or ``report``) with seal
    ``digest``; a bundle's ``materials`` (its agents' logs, as name and digest) in its predicate."""
    predicate: dict[str, Any] = {"kind": kind, "tool": tool}
    if materials:
        predicate["materials"] = [_descriptor(n, d) for n, d in materials]
    return {
        "_type": STATEMENT_TYPE,
        "subject": [_descriptor(name, digest)],
        "predicateType": PREDICATE_TYPES[kind],
        "predicate": predicate,
    }


def _descriptor(name: str, digest: str) -> dict[str, Any]:
    """An in-toto ResourceDescriptor: a name and a sha256 digest."""
    return {"name": _as_text(name), "digest": {"sha256": digest.removeprefix(DIGEST_PREFIX)}}


def make_envelope(statement: dict[str, Any], keyid: str, sign: Callable[[bytes], bytes]) -> bytes:
    """The signature file's bytes: ``statement`` signed by ``sign`` with the key ``keyid``."""
    payload = canon(statement)
    sig = sign(pae(PAYLOAD_TYPE, payload))
    signature = {"keyid": keyid, "sig": b64encode(sig)}
    return canon({"payload": b64encode(payload), "payloadType": PAYLOAD_TYPE, "signatures": [signature]})


def _malformed(detail: str, *tokens: str | int) -> SignatureError:
    return SignatureError("signature.malformed", detail, pointer=pointer_of(*tokens))


def _exact(obj: Any, members: set[str], what: str, *at: str | int) -> dict[str, Any]:
    if type(obj) is not dict:
        raise _malformed(f"{what} is {g.shown(obj)}, not an object", *at)
    for name in sorted(members - obj.keys()):
        raise _malformed(f"{what} has no {name!r} member", *at, name)
    for name in sorted(obj.keys() - members):
        raise _malformed(f"{what} has a member evidence-rank does not write: {g.shown(name)}", *at, name)
    return obj


def _base64(value: Any, *at: str | int) -> bytes:
    if type(value) is str:
        try:
            return b64decode(value)
        except ValueError:
            pass
    raise _malformed(f"expected standard base64 with padding, found {g.shown(value)}", *at)


def parse_envelope(raw: bytes) -> Envelope:
    """An envelope of the shape :func:`make_envelope` writes, or ``signature.malformed`` pointing at the fault."""
    try:
        doc = parse_json(raw)
    except EvidenceRankError as e:
        raise _malformed(f"not JSON a DSSE envelope can be: {e.detail}") from e
    doc = _exact(doc, _ENVELOPE_MEMBERS, "the envelope")
    if doc["payloadType"] != PAYLOAD_TYPE:
        raise _malformed(f"payloadType is {g.shown(doc['payloadType'])}, not {PAYLOAD_TYPE!r}", "payloadType")
    payload = _base64(doc["payload"], "payload")
    signatures = doc["signatures"]
    if type(signatures) is not list or len(signatures) != 1:
        count = f"{len(signatures)} signatures" if type(signatures) is list else g.shown(signatures)
        raise _malformed(f"expected exactly one signature, found {count}", "signatures")
    signature = _exact(signatures[0], {"keyid", "sig"}, "the signature", "signatures", 0)
    keyid = signature["keyid"]
    if type(keyid) is not str or g.DIGEST_PATTERN.fullmatch(keyid) is None:
        raise _malformed(f"keyid is {g.shown(keyid)}, not sha256:<64 hex digits>", "signatures", 0, "keyid")
    return Envelope(payload, keyid, _base64(signature["sig"], "signatures", 0, "sig"))


def parse_statement(payload: bytes) -> Statement:
    """The statement of a payload whose signature verified; ``signature.malformed`` at ``/payload``
    otherwise, its detail saying where in the statement."""
    try:
        return _statement(parse_json(payload))
    except EvidenceRankError as e:
        where = f" (at {e.pointer!r} in the statement)" if e.pointer else ""
        raise _malformed(f"the payload's statement: {e.detail}{where}", "payload") from e


def _statement(doc: Any) -> Statement:
    """The statement as evidence-rank writes it; ``signature.malformed`` pointing into the statement."""
    doc = _exact(doc, _STATEMENT_MEMBERS, "the statement")
    if doc["_type"] != STATEMENT_TYPE:
        raise _malformed(f"_type is {g.shown(doc['_type'])}, not {STATEMENT_TYPE!r}", "_type")
    subjects = doc["subject"]
    if type(subjects) is not list or len(subjects) != 1:
        raise _malformed(f"expected exactly one subject, found {g.shown(subjects)}", "subject")
    name, digest = _described(subjects[0], "the subject", "subject", 0)
    kind = _KIND_OF.get(doc["predicateType"]) if type(doc["predicateType"]) is str else None
    if kind is None:
        raise _malformed(f"predicateType is {g.shown(doc['predicateType'])}", "predicateType")
    members = (
        {"kind", "tool", "materials"}
        if type(doc["predicate"]) is dict and "materials" in doc["predicate"]
        else {"kind", "tool"}
    )
    predicate = _exact(doc["predicate"], members, "the predicate", "predicate")
    if predicate["kind"] != kind or type(predicate["tool"]) is not str:
        raise _malformed(
            f"the predicate {g.shown(predicate)} is not of a {doc['predicateType']} statement", "predicate"
        )
    found = predicate.get("materials", [])
    if type(found) is not list or (kind != "bundle" and found):
        raise _malformed(
            f"the predicate's materials are {g.shown(found)}, not a bundle's list", "predicate", "materials"
        )
    materials = tuple(_described(m, "a material", "predicate", "materials", i) for i, m in enumerate(found))
    return Statement(kind, name, digest, materials)


def _described(descriptor: Any, what: str, *at: str | int) -> tuple[str, str]:
    """A ResourceDescriptor as evidence-rank writes it: its name and its ``sha256:HEX``."""
    found = _exact(descriptor, {"name", "digest"}, what, *at)
    if type(found["name"]) is not str:
        raise _malformed(f"{what}'s name is {g.shown(found['name'])}, not a string", *at, "name")
    digest = _exact(found["digest"], {"sha256"}, f"{what}'s digest", *at, "digest")["sha256"]
    if type(digest) is not str or g.DIGEST_PATTERN.fullmatch(DIGEST_PREFIX + digest) is None:
        detail = f"{what}'s sha256 is {g.shown(digest)}, not 64 lowercase hex digits"
        raise _malformed(detail, *at, "digest", "sha256")
    return found["name"], DIGEST_PREFIX + digest


def _as_text(name: str) -> str:
    """A file name as a statement can hold it: bytes that were not UTF-8 (surrogate escapes, which
    JSON cannot carry) are written ``\\xNN``."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
