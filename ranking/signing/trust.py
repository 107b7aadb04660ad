"""The trust file (``--trust``) and the check a signed document must pass (docs/provenance.md).

A trust file lists the keys whose signatures are accepted, one per line, as
git's ``allowed_signers`` does (``git help config``, ``gpg.ssh.allowedSignersFile``)::

    # comments and blank lines are ignored
    KEYID PUBLIC-KEY [NAME]

``KEYID`` is the key's id (:attr:`ranking.signing.keys.PublicKey.keyid`), the one
error messages and gate outputs show; it must be the id of the key on its
line, so a pasted wrong key is caught when the file is read. ``PUBLIC-KEY``
is written as OpenSSH writes it (``ssh-ed25519 AAAA...``,
``ecdsa-sha2-nistp256 AAAA...``) or as the base64 of its DER
SubjectPublicKeyInfo. ``NAME``, the rest of the line, is who the key belongs
to; it names the signer in ``gate``'s outputs.

A trust file that cannot be read this way is a usage error (``trust.invalid``,
exit 2): it is the gate owner's configuration, not the input being gated.

:func:`check_signature` is the check, in order:

1. the envelope has the shape evidence-rank writes (``signature.malformed``);
2. its key id is in the trust file (``signature.unknown_key``);
3. the signature verifies with that key over the payload (``signature.invalid``);
4. the payload is a statement of the kind asked for (``signature.malformed``)
5. whose subject is the document's seal (``signature.subject_mismatch``).

The payload is read only after its signature verifies.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

from curator_io import grammar as g
from curator_io.errors import ConfigError, SignatureError
from ranking.signing.envelope import parse_envelope, parse_statement
from ranking.signing.keys import KeyFormatError, PublicKey, public_key_from_openssh, public_key_from_spki
from ranking.signing.signers import KEYID, MAX_NAME_CHARS, Signer, signer_fault

__all__ = ["MAX_NAME_CHARS", "Signer", "TrustList", "parse_trust", "check_signature", "signer_fault"]

_BLANKS = re.compile(r"[ \t]+")


class TrustList(NamedTuple):
    """The keys of one trust file."""

    source: str
    """The file's name, for messages."""
    keys: Mapping[str, tuple[PublicKey, str | None]]
    """key id -> (the key, its name)."""


def parse_trust(raw: bytes, source: str) -> TrustList:
    """The trust file's keys; ``trust.invalid`` (exit 2) naming the line of the first fault."""

    def fault(detail: str, line: int | None = None) -> ConfigError:
        where = f"line {line}: " if line is not None else ""
        return ConfigError("trust.invalid", where + detail, source=source)

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise fault("not UTF-8 text") from e
    keys: dict[str, tuple[PublicKey, str | None]] = {}
    # Lines end at LF (or CRLF) and words at spaces and tabs, nowhere else: str.splitlines() and
    # str.split() also break at U+2028, NEL or a form feed, which in a NAME must be refused instead.
    for number, line in enumerate(text.split("\n"), 1):
        words = [word for word in _BLANKS.split(line.removesuffix("\r")) if word]
        if not words or words[0].startswith("#"):
            continue
        try:
            keyid, key, name = _entry(words)
        except (KeyFormatError, ValueError) as e:
            raise fault(str(e), number) from e
        if keyid in keys:
            raise fault(f"key {keyid} is listed twice", number)
        keys[keyid] = (key, name)
    if not keys:
        raise fault("lists no key: a gate that trusts no key refuses every document")
    return TrustList(source, keys)


def _entry(words: list[str]) -> tuple[str, PublicKey, str | None]:
    if len(words) < 2 or KEYID.fullmatch(words[0]) is None:
        raise ValueError(f"expected KEYID PUBLIC-KEY [NAME], KEYID sha256:<64 hex digits>; found {g.shown(words[0])}")
    if "-" in words[1]:  # an OpenSSH key type: base64 has no "-"
        if len(words) < 3:
            raise ValueError(f"{words[1]} without the key's base64")
        key, rest = public_key_from_openssh(words[1], words[2]), words[3:]
    else:
        key, rest = public_key_from_spki(words[1]), words[2:]
    if key.keyid != words[0]:
        raise ValueError(f"the key id {words[0]} is not the id of the key on the line, {key.keyid}")
    name = " ".join(rest) or None
    fault = signer_fault(words[0], name)
    if fault is not None:
        raise ValueError(fault)
    return words[0], key, name


def check_signature(envelope: bytes, trust: TrustList, *, kind: str, digest: str) -> Signer:
    """Who signed the document of ``kind`` whose seal is ``digest``, if a key of ``trust`` did;
    else :class:`~curator_io.errors.SignatureError` with a pointer into the envelope."""
    listed = f"the trust file {trust.source!r}"
    try:
        parsed = parse_envelope(envelope)  # 1.
    except SignatureError as e:
        raise SignatureError(e.code, f"{e.detail} (checked against {listed})", pointer=e.pointer) from e
    entry = trust.keys.get(parsed.keyid)
    if entry is None:  # 2.
        detail = f"signed by key {parsed.keyid}, which {listed} does not list"
        raise SignatureError("signature.unknown_key", detail, pointer="/signatures/0/keyid")
    key, name = entry
    signer = Signer(parsed.keyid, name)
    if not key.verifies(parsed.sig, parsed.signed_bytes):  # 3.
        detail = f"the signature does not verify with key {signer.shown} of {listed}: the envelope was changed"
        raise SignatureError("signature.invalid", detail, pointer="/signatures/0/sig")
    try:
        statement = parse_statement(parsed.payload)  # 4.
    except SignatureError as e:
        raise SignatureError(e.code, f"{e.detail} (signed by key {signer.shown})", pointer=e.pointer) from e
    if statement.kind != kind or statement.digest != digest:  # 5.
        detail = (
            f"key {signer.shown} of {listed} signed the {statement.kind} {statement.digest} "
            f"({statement.name!r}), not this {kind}, {digest}"
        )
        raise SignatureError("signature.subject_mismatch", detail, pointer="/payload")
    return signer
