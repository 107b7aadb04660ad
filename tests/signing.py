"""Keys made from fixed seeds, trust lines and envelopes, for the signature tests.

Each key is derived from a name, so every run signs with the same keys and the
same (deterministic: Ed25519, RFC 6979 ECDSA) signatures.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from curator_io.canonical import canon
from ranking.signing.envelope import make_envelope, make_statement
from ranking.signing.private_keys import SigningKey, load_private_key

TOOL = "evidence-rank test"


def private_key(name: str, algorithm: str = "ed25519") -> Any:
    seed = hashlib.sha256(name.encode()).digest()
    if algorithm == "ed25519":
        return ed25519.Ed25519PrivateKey.from_private_bytes(seed)
    return ec.derive_private_key(int.from_bytes(seed, "big"), ec.SECP256R1())


def key_pem(name: str, algorithm: str = "ed25519", form: str = "pkcs8") -> bytes:
    """The key as a file holds it: ``pkcs8`` PEM, ``openssh``, or ``sec1`` (P-256 only)."""
    fmt = {
        "pkcs8": serialization.PrivateFormat.PKCS8,
        "openssh": serialization.PrivateFormat.OpenSSH,
        "sec1": serialization.PrivateFormat.TraditionalOpenSSL,
    }[form]
    return private_key(name, algorithm).private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption())


def signing_key(name: str, algorithm: str = "ed25519") -> SigningKey:
    return load_private_key(key_pem(name, algorithm))


def trust_line(key: SigningKey, name: str | None = None, *, spki: bool = False) -> str:
    public = base64.b64encode(key.public.spki).decode() if spki else key.public.openssh
    return " ".join(x for x in (key.public.keyid, public, name) if x)


def trust_file(*entries: tuple[SigningKey, str | None]) -> bytes:
    return ("# who may sign\n" + "\n".join(trust_line(k, n) for k, n in entries) + "\n").encode()


def envelope(key: SigningKey, kind: str, digest: str, name: str = "bundle.json") -> bytes:
    return make_envelope(make_statement(kind, name, digest, TOOL), key.public.keyid, key.sign)


def resigned(statement: Any, key: SigningKey) -> bytes:
    """An envelope over any statement value, signed: what a holder of a trusted key could write."""
    return make_envelope(statement, key.public.keyid, key.sign)


def edited(raw: bytes, edit: Any) -> bytes:
    """The envelope with ``edit(doc)`` applied and not signed again."""
    doc = json.loads(raw)
    edit(doc)
    return canon(doc)


def payload_of(raw: bytes) -> dict[str, Any]:
    return json.loads(base64.b64decode(json.loads(raw)["payload"]))  # type: ignore[no-any-return]


def with_payload(raw: bytes, statement: dict[str, Any]) -> bytes:
    """The envelope with another statement in its payload, the signature kept."""

    def put(doc: dict[str, Any]) -> None:
        doc["payload"] = base64.b64encode(canon(statement)).decode()

    return edited(raw, put)
