"""Canonical JSON (RFC 8785, JCS), digests and sealing (SPEC §0)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import rfc8785

__all__ = ["canon", "digest", "digest_of_bytes", "seal", "is_sealed", "unsealed"]


def canon(value: Any) -> bytes:
    """The RFC 8785 serialization of ``value``, UTF-8 encoded."""
    return rfc8785.dumps(value)


def digest_of_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def digest(value: Any) -> str:
    """``"sha256:" + hex(sha256(canon(value)))``."""
    return digest_of_bytes(canon(value))


def unsealed(obj: Mapping[str, Any], member: str = "digest") -> dict[str, Any]:
    """A copy of ``obj`` without its seal member."""
    return {k: v for k, v in obj.items() if k != member}


def seal(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``obj`` whose ``digest`` member seals the rest."""
    body = unsealed(obj)
    return {**body, "digest": digest(body)}


def is_sealed(obj: Mapping[str, Any]) -> bool:
    """True when ``obj["digest"] == digest(obj without its digest member)``."""
    return obj.get("digest") == digest(unsealed(obj))
