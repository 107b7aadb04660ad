"""Public keys: Ed25519 and ECDSA P-256, their key ids, and the two ways a trust file writes them.

A key id is ``sha256:`` and the hex SHA-256 of the key's SubjectPublicKeyInfo
(RFC 5280 §4.1.2.7) in DER: the same for a key however it was written down.
The DER and the OpenSSH wire format (RFC 4253 §6.6, RFC 5656 §3.1) of these
two key types are fixed byte strings around the key, so they are built and
read here, not with ``cryptography.hazmat.primitives.serialization``: on the
verifying path that module would load the SSH and PKCS#12 machinery for
nothing (bench/RESULTS.md, "Signatures"). PyCA ``cryptography`` is imported
only to verify, and only then.
"""

from __future__ import annotations

import binascii
from typing import NamedTuple

from curator_io.canonical import sha256_digest

__all__ = [
    "ALGORITHMS",
    "PublicKey",
    "KeyFormatError",
    "public_key_from_spki",
    "public_key_from_openssh",
    "b64encode",
    "b64decode",
]

#: The SubjectPublicKeyInfo DER of each key type up to the key's bytes (RFC 8410 §4, RFC 5480 §2).
_SPKI_PREFIX = {
    "ed25519": bytes.fromhex("302a300506032b6570032100"),
    "p256": bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d030107034200"),
}
#: How many bytes the key itself has: an Ed25519 key, an uncompressed SEC 1 point (0x04 || X || Y).
_RAW_SIZE = {"ed25519": 32, "p256": 65}
#: The OpenSSH key type names (RFC 8709 §4, RFC 5656 §6.2).
_SSH_TYPE = {"ed25519": "ssh-ed25519", "p256": "ecdsa-sha2-nistp256"}

ALGORITHMS = tuple(_SPKI_PREFIX)


class KeyFormatError(ValueError):
    """Bytes that are not a public key of a supported type; the caller says where they were."""


class PublicKey(NamedTuple):
    """An Ed25519 or ECDSA P-256 public key."""

    algorithm: str
    """``ed25519`` or ``p256``."""
    raw: bytes
    """The key: 32 bytes (Ed25519), or the 65-byte uncompressed point (P-256)."""

    @property
    def spki(self) -> bytes:
        """The SubjectPublicKeyInfo, DER."""
        return _SPKI_PREFIX[self.algorithm] + self.raw

    @property
    def keyid(self) -> str:
        return sha256_digest(self.spki)

    @property
    def openssh(self) -> str:
        """The key as an OpenSSH ``.pub`` file and git's ``allowed_signers`` write it: ``TYPE BASE64``."""
        name = _SSH_TYPE[self.algorithm]
        fields = [name.encode()]
        if self.algorithm == "p256":
            fields += [b"nistp256"]
        blob = b"".join(len(f).to_bytes(4, "big") + f for f in [*fields, self.raw])
        return f"{name} {b64encode(blob)}"

    def verifies(self, signature: bytes, message: bytes) -> bool:
        """Whether ``signature`` is this key's over ``message`` (ECDSA: DER-encoded, over SHA-256)."""
        from cryptography.exceptions import InvalidSignature

        try:
            if self.algorithm == "ed25519":
                from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

                Ed25519PublicKey.from_public_bytes(self.raw).verify(signature, message)
            else:
                from cryptography.hazmat.primitives import hashes
                from cryptography.hazmat.primitives.asymmetric import ec

                point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), self.raw)
                point.verify(signature, message, ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return False
        return True


def _checked(algorithm: str, raw: bytes) -> PublicKey:
    if len(raw) != _RAW_SIZE[algorithm] or (algorithm == "p256" and raw[0] != 0x04):
        raise KeyFormatError(f"not an {algorithm} public key: {len(raw)} bytes")
    weakness = _ed25519_weakness(raw) if algorithm == "ed25519" else _p256_weakness(raw)
    if weakness is not None:
        raise KeyFormatError(f"not a usable {algorithm} public key: {weakness}")
    return PublicKey(algorithm, raw)


# Curve constants: Ed25519 (RFC 8032 §5.1), P-256 (SEC 2 section 2.4.2, FIPS 186-4 D.1.2.3).
_ED_P = 2**255 - 19
_ED_D = -121665 * pow(121666, -1, _ED_P) % _ED_P
_P256_P = 2**256 - 2**224 + 2**192 + 2**96 - 1
_P256_B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B


def _ed25519_weakness(raw: bytes) -> str | None:
    """Why a 32-byte string is not a key whose signatures mean anything, or None.

    RFC 8032 §5.1.3 decoding, refusing what it would accept only loosely: a y of p or more,
    or x = 0 with the sign bit set, is a non-canonical encoding; a point whose order divides
    the cofactor 8 (the identity among them) lets a signature with R = that point and S = 0
    verify for every message, with no private key.
    """
    y = int.from_bytes(raw, "little") & (2**255 - 1)
    sign = raw[31] >> 7
    if y >= _ED_P:
        return "a non-canonical encoding (y is not below p)"
    x = _ed25519_x(y)
    if x is None:
        return "not a point of the curve"
    if x == 0 and sign:
        return "a non-canonical encoding (x = 0 with the sign bit set)"
    point = (x if x & 1 == sign else _ED_P - x, y, 1, x * y % _ED_P)
    for _ in range(3):
        point = _ed25519_double(point)
    if point[0] == 0 and point[1] == point[2]:  # [8]P is the identity: P has small order
        return "a point of small order, for which a signature can be made without a private key"
    return None


def _ed25519_x(y: int) -> int | None:
    """The x with x² = (y² − 1) / (d·y² + 1) (mod p), RFC 8032 §5.1.3 step 3; None if there is none."""
    p = _ED_P
    u, v = (y * y - 1) % p, (_ED_D * y * y + 1) % p
    x = u * pow(v, 3, p) * pow(u * pow(v, 7, p), (p - 5) // 8, p) % p
    if v * x * x % p == u:
        return x
    if v * x * x % p == -u % p:
        return x * pow(2, (p - 1) // 4, p) % p
    return None


def _ed25519_double(point: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """2P in extended coordinates (RFC 8032 §5.1.4, "dbl-2008-hwcd")."""
    p = _ED_P
    x1, y1, z1, _ = point
    a, b, c = x1 * x1 % p, y1 * y1 % p, 2 * z1 * z1 % p
    h = a + b
    e = h - (x1 + y1) ** 2
    g = a - b
    f = c + g
    return e * f % p, g * h % p, f * g % p, e * h % p


def _p256_weakness(raw: bytes) -> str | None:
    """Why an uncompressed SEC 1 point is not a P-256 public key (SEC 1 section 3.2.2.1), or None."""
    p = _P256_P
    x, y = int.from_bytes(raw[1:33], "big"), int.from_bytes(raw[33:], "big")
    if x >= p or y >= p:
        return "a coordinate is not below p"
    if (y * y - (x * x * x - 3 * x + _P256_B)) % p != 0:
        return "the point is not on the curve"
    return None  # P-256's cofactor is 1: every point on the curve but infinity has the group's order


def b64encode(data: bytes) -> str:
    """Standard base64 with padding (RFC 4648 §4). ``binascii``, not ``base64``: the verifying path
    would import ``base64`` (and ``struct``) for nothing else."""
    return binascii.b2a_base64(data, newline=False).decode("ascii")


def b64decode(text: str) -> bytes:
    """The bytes of ``text``, standard base64 as :func:`b64encode` writes it and nothing else
    (no other characters, no missing or extra padding); ``ValueError`` otherwise."""
    try:
        data = binascii.a2b_base64(text.encode("ascii"), strict_mode=True)
    except (binascii.Error, UnicodeEncodeError) as e:
        raise ValueError(f"not base64: {e}") from None
    if b64encode(data) != text:
        raise ValueError("not base64 as it is written canonically (padding, no other characters)")
    return data


def _b64(text: str) -> bytes:
    try:
        return b64decode(text)
    except ValueError as e:
        raise KeyFormatError(str(e)) from None


def public_key_from_spki(text: str) -> PublicKey:
    """A key from its SubjectPublicKeyInfo DER in base64 (a PEM public key's body on one line)."""
    der = _b64(text)
    for algorithm, prefix in _SPKI_PREFIX.items():
        if der.startswith(prefix):
            return _checked(algorithm, der[len(prefix) :])
    raise KeyFormatError("not the SubjectPublicKeyInfo of an Ed25519 or ECDSA P-256 key")


def public_key_from_openssh(key_type: str, text: str) -> PublicKey:
    """A key as OpenSSH writes it, ``ssh-ed25519 AAAA...`` or ``ecdsa-sha2-nistp256 AAAA...``."""
    algorithm = next((a for a, name in _SSH_TYPE.items() if name == key_type), None)
    if algorithm is None:
        raise KeyFormatError(f"key type {key_type!r} is neither ssh-ed25519 nor ecdsa-sha2-nistp256")
    fields = _ssh_fields(_b64(text))
    wanted = [key_type.encode()] + ([b"nistp256"] if algorithm == "p256" else [])
    if len(fields) != len(wanted) + 1 or fields[:-1] != wanted:
        raise KeyFormatError(f"the key's blob is not an {key_type} public key")
    return _checked(algorithm, fields[-1])


def _ssh_fields(blob: bytes) -> list[bytes]:
    """RFC 4251 §5 ``string`` fields: a 4-byte big-endian length, then that many bytes."""
    fields, at = [], 0
    while at < len(blob):
        size = int.from_bytes(blob[at : at + 4], "big")
        if at + 4 > len(blob) or at + 4 + size > len(blob):
            raise KeyFormatError("the key's blob ends inside a field")
        fields.append(blob[at + 4 : at + 4 + size])
        at += 4 + size
    return fields
