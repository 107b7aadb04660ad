"""Canonical JSON (RFC 8785, JCS), digests and sealing (SPEC §0).

:func:`canon` is ``rfc8785.dumps``, written faster: it lets orjson do the
writing wherever orjson already writes JCS (:mod:`curator_io._fast.jcs`, which
says how, and the test that holds it to ``rfc8785.dumps``).

Public: :func:`canon` and :func:`seal_canonical`, each checking its own input,
and :func:`digest`, :func:`seal`, :func:`is_sealed` (SPEC §0's ``digest`` and
"sealed", used across the packages and by tests), and :func:`seal_verdict` (SPEC §3.3's
verdict on an artifact's seal, from canonical bytes however they were written).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from curator_io.catalogue import DIGEST_PREFIX
from curator_io.grammar import is_digest
from curator_io.models import SealVerdict
from curator_io.reference import off

canon: Callable[[Any], bytes]
"""RFC 8785 bytes of a JSON value (SPEC §0 ``canon``)."""
if off("jcs"):
    from rfc8785 import dumps as canon
else:
    from curator_io._fast.jcs import dumps as canon

__all__ = ["canon", "seal_canonical", "digest", "sha256_digest", "seal", "is_sealed", "seal_verdict"]


def digest(value: Any) -> str:
    """``"sha256:" + hex(sha256(canon(value)))``."""
    return sha256_digest(canon(value))


def sha256_digest(data: bytes) -> str:
    """The DIGEST of ``data`` (SPEC §0): ``"sha256:"`` and its SHA-256 in lowercase hex."""
    return DIGEST_PREFIX + hashlib.sha256(data).hexdigest()


def _unsealed(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``obj`` without its ``digest`` member."""
    return {name: value for name, value in obj.items() if name != "digest"}


def seal(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``obj`` whose ``digest`` member seals the rest."""
    body = _unsealed(obj)
    return {**body, "digest": digest(body)}


_DIGEST_NAME = "digest".encode("utf-16-be")


def seal_canonical(obj: Mapping[str, Any]) -> tuple[dict[str, Any], bytes]:
    """``seal(obj)`` and ``canon`` of it, the body canonicalized once.

    A report is sealed, then written: its canonical bytes are those of the body
    with the ``digest`` member set in among the others, in RFC 8785 order.
    """
    if off("jcs"):
        sealed = seal(obj)
        return sealed, canon(sealed)
    body = _unsealed(obj)
    try:
        names = sorted(body, key=lambda name: name.encode("utf-16-be"))
    except (AttributeError, UnicodeEncodeError):
        # A name that is not a string, or holds a lone surrogate: rfc8785 refuses it with its own error.
        sealed = seal(obj)
        return sealed, canon(sealed)
    members = [orjson.dumps(name) + b":" + canon(body[name]) for name in names]
    sealed_digest = sha256_digest(b"{" + b",".join(members) + b"}")
    at = sum(1 for name in names if name.encode("utf-16-be") < _DIGEST_NAME)
    members.insert(at, b'"digest":' + orjson.dumps(sealed_digest))
    return {**body, "digest": sealed_digest}, b"{" + b",".join(members) + b"}"


def is_sealed(obj: Mapping[str, Any]) -> bool:
    """True when ``obj["digest"] == digest(obj without its digest member)``."""
    return obj.get("digest") == digest(_unsealed(obj))


_INVALID: SealVerdict = "artifact.invalid_digest"
_MISMATCH: SealVerdict = "artifact.digest_mismatch"


def seal_verdict(claimed: Any, canonical_body: bytes) -> SealVerdict:
    """SPEC §3.3 from the ``digest`` member and the canonical bytes of the rest: None when
    ``claimed`` seals them."""
    if claimed == sha256_digest(canonical_body):
        return None
    return _MISMATCH if is_digest(claimed) else _INVALID
