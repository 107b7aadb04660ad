"""Private keys, for ``evidence-rank sign`` and ``keygen``: read, generate, sign.

Accepted (docs/provenance.md, "Keys"): PEM private keys, PKCS#8
(``BEGIN PRIVATE KEY``) or SEC 1 (``BEGIN EC PRIVATE KEY``), Ed25519 or ECDSA
P-256; and unencrypted OpenSSH private keys (``BEGIN OPENSSH PRIVATE KEY``),
so a team can sign with the key git already signs its commits with. An
encrypted key is refused: CI holds the key as a secret, and a passphrase
beside it in the same secret store would add nothing.

Only the signing commands import this module, and with it PyCA
``cryptography``'s serialization; verifying needs only :mod:`ranking.signing.keys`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from ranking.signing.keys import ALGORITHMS, KeyFormatError, PublicKey

__all__ = ["SigningKey", "load_private_key", "generate_private_key"]

_OPENSSH = b"-----BEGIN OPENSSH PRIVATE KEY-----"


@dataclass(frozen=True)
class SigningKey:
    """A private key that signs as :meth:`ranking.signing.keys.PublicKey.verifies` checks."""

    public: PublicKey
    _key: Any

    def sign(self, message: bytes) -> bytes:
        """Ed25519 (RFC 8032), or ECDSA P-256 over SHA-256, DER, with RFC 6979 nonces: the same
        message and key always give the same signature."""
        if self.public.algorithm == "ed25519":
            return self._key.sign(message)  # type: ignore[no-any-return]  # cryptography's key object
        return self._key.sign(message, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))  # type: ignore[no-any-return]


def load_private_key(raw: bytes) -> SigningKey:
    """The key in ``raw``; :class:`~ranking.signing.keys.KeyFormatError` for anything else."""
    key: Any
    try:
        if raw.lstrip().startswith(_OPENSSH):
            key = serialization.load_ssh_private_key(raw, password=None)
        else:
            key = serialization.load_pem_private_key(raw, password=None)
    except TypeError as e:  # cryptography: "Password was not given but private key is encrypted"
        raise KeyFormatError("the key is encrypted: sign with an unencrypted copy held as a CI secret") from e
    except (ValueError, UnsupportedAlgorithm) as e:
        raise KeyFormatError(f"not a PEM or OpenSSH private key cryptography can read: {e}") from e
    return SigningKey(_public_of(key), key)


def _public_of(key: Any) -> PublicKey:
    if isinstance(key, ed25519.Ed25519PrivateKey):
        raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return PublicKey("ed25519", raw)
    if isinstance(key, ec.EllipticCurvePrivateKey) and isinstance(key.curve, ec.SECP256R1):
        point = serialization.PublicFormat.UncompressedPoint
        return PublicKey("p256", key.public_key().public_bytes(serialization.Encoding.X962, point))
    raise KeyFormatError(f"a {type(key).__name__.removeprefix('_')} key: use an Ed25519 or ECDSA P-256 key")


def generate_private_key(algorithm: str) -> bytes:
    """A new key of ``algorithm`` (``ed25519`` or ``p256``), as unencrypted PKCS#8 PEM."""
    if algorithm not in ALGORITHMS:
        raise KeyFormatError(f"no key type {algorithm!r}: choose one of {', '.join(ALGORITHMS)}")
    key = ed25519.Ed25519PrivateKey.generate() if algorithm == "ed25519" else ec.generate_private_key(ec.SECP256R1())
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
