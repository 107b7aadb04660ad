"""Signature files (DSSE + in-toto), trust files and keys: ranking.signing.envelope, .trust, .keys, .private_keys."""

from __future__ import annotations

import base64
import binascii
import copy
import re
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import given
from hypothesis import strategies as st

from curator_io.errors import ConfigError, SignatureError
from ranking.signing.envelope import PAYLOAD_TYPE, pae, parse_envelope
from ranking.signing.keys import KeyFormatError, b64decode, b64encode
from ranking.signing.private_keys import generate_private_key, load_private_key
from ranking.signing.trust import Signer, check_signature, parse_trust
from tests.conftest import set_at
from tests.signing import (
    edited,
    envelope,
    key_pem,
    payload_of,
    private_key,
    resigned,
    signing_key,
    trust_file,
    trust_line,
    with_payload,
)

DIGEST = "sha256:" + "ab" * 32
OTHER = "sha256:" + "cd" * 32
CURATOR = signing_key("curator")
TRUST = parse_trust(trust_file((CURATOR, "Curator CI")), "trusted-signers")
SIGNED = envelope(CURATOR, "bundle", DIGEST)


def _refused(raw: bytes, code: str, pointer: str, *, kind: str = "bundle", digest: str = DIGEST) -> SignatureError:
    with pytest.raises(SignatureError) as caught:
        check_signature(raw, TRUST, kind=kind, digest=digest)
    assert (caught.value.code, caught.value.pointer, caught.value.exit_code) == (code, pointer, 4)
    return caught.value


# -- keys ------------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["ed25519", "p256"])
def test_a_key_id_is_the_sha256_of_the_der_subject_public_key_info_cryptography_writes(algorithm: str) -> None:
    key = signing_key("curator", algorithm)
    public = private_key("curator", algorithm).public_key()
    spki = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    ssh = public.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)

    assert key.public.spki == spki
    assert key.public.openssh == ssh.decode()
    import hashlib

    assert key.public.keyid == "sha256:" + hashlib.sha256(spki).hexdigest()


@pytest.mark.parametrize(
    ("algorithm", "form"),
    [("ed25519", "pkcs8"), ("ed25519", "openssh"), ("p256", "pkcs8"), ("p256", "sec1"), ("p256", "openssh")],
)
def test_pem_and_openssh_private_keys_sign_what_their_public_key_verifies(algorithm: str, form: str) -> None:
    key = load_private_key(key_pem("curator", algorithm, form))

    assert key.public == signing_key("curator", algorithm).public
    assert key.public.verifies(key.sign(b"message"), b"message")
    assert not key.public.verifies(key.sign(b"message"), b"other message")


@pytest.mark.parametrize("algorithm", ["ed25519", "p256"])
def test_signing_the_same_bytes_twice_gives_the_same_signature(algorithm: str) -> None:
    key = signing_key("curator", algorithm)

    assert key.sign(b"bundle") == key.sign(b"bundle")


@pytest.mark.parametrize("algorithm", ["ed25519", "p256"])
def test_a_generated_key_loads_back_as_its_type(algorithm: str) -> None:
    assert load_private_key(generate_private_key(algorithm)).public.algorithm == algorithm


def test_an_rsa_key_an_encrypted_key_and_a_non_key_are_refused_saying_why() -> None:
    rsa_pem = rsa.generate_private_key(public_exponent=65537, key_size=1024).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    encrypted = private_key("curator").private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.BestAvailableEncryption(b"pw")
    )
    with pytest.raises(KeyFormatError, match="RSAPrivateKey key: use an Ed25519 or ECDSA P-256 key"):
        load_private_key(rsa_pem)
    with pytest.raises(KeyFormatError, match="encrypted"):
        load_private_key(encrypted)
    with pytest.raises(KeyFormatError, match="not a PEM or OpenSSH private key"):
        load_private_key(b"not a key")


# -- the envelope as written ---------------------------------------------------------------


def test_a_signature_file_is_a_dsse_envelope_of_an_in_toto_statement_over_the_seal() -> None:
    doc = parse_envelope(SIGNED)
    statement = payload_of(SIGNED)

    assert doc.keyid == CURATOR.public.keyid
    assert doc.signed_bytes == b"DSSEv1 28 application/vnd.in-toto+json %d %s" % (len(doc.payload), doc.payload)
    assert doc.signed_bytes == pae(PAYLOAD_TYPE, doc.payload)
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["subject"] == [{"name": "bundle.json", "digest": {"sha256": "ab" * 32}}]
    assert statement["predicateType"] == "https://evidence-rank.dev/bundle/v1"
    assert statement["predicate"] == {"kind": "bundle", "tool": "evidence-rank test"}


def test_a_signature_by_a_listed_key_over_the_seal_names_its_signer() -> None:
    assert check_signature(SIGNED, TRUST, kind="bundle", digest=DIGEST) == Signer(CURATOR.public.keyid, "Curator CI")
    assert check_signature(SIGNED, TRUST, kind="bundle", digest=DIGEST).shown == f"Curator CI ({CURATOR.public.keyid})"


def test_a_p256_signature_verifies_and_a_spki_trust_line_is_the_same_key() -> None:
    key = signing_key("curator", "p256")
    trust = parse_trust(trust_line(key, "P-256 runner", spki=True).encode(), "t")

    assert check_signature(envelope(key, "report", DIGEST), trust, kind="report", digest=DIGEST).name == "P-256 runner"


# -- a tampered envelope, each field in turn ------------------------------------------------------


def _statement_with(*path: Any, value: Any) -> dict[str, Any]:
    statement = copy.deepcopy(payload_of(SIGNED))
    set_at(path, value)(statement)
    return statement


OTHER_KEY = signing_key("other")
BOTH = parse_trust(trust_file((CURATOR, "Curator CI"), (OTHER_KEY, "Other")), "both")
MAL, INV, SIG = "signature.malformed", "signature.invalid", "/signatures/0/sig"
TAMPERED = {
    "payloadType": (edited(SIGNED, set_at(("payloadType",), "application/json")), MAL, "/payloadType"),
    "payload": (edited(SIGNED, set_at(("payload",), base64.b64encode(b"{}").decode())), INV, SIG),
    "_type": (with_payload(SIGNED, _statement_with("_type", value="https://in-toto.io/Statement/v0.1")), INV, SIG),
    "subject digest": (
        with_payload(SIGNED, _statement_with("subject", 0, "digest", "sha256", value="cd" * 32)),
        INV,
        SIG,
    ),
    "subject name": (with_payload(SIGNED, _statement_with("subject", 0, "name", value="other.json")), INV, SIG),
    "predicateType": (
        with_payload(SIGNED, _statement_with("predicateType", value="https://evidence-rank.dev/report/v1")),
        INV,
        SIG,
    ),
    "predicate": (with_payload(SIGNED, _statement_with("predicate", "kind", value="report")), INV, SIG),
    "keyid, unknown": (
        edited(SIGNED, set_at(("signatures", 0, "keyid"), "sha256:" + "0" * 64)),
        "signature.unknown_key",
        "/signatures/0/keyid",
    ),
    "sig": (edited(SIGNED, set_at(("signatures", 0, "sig"), base64.b64encode(b"\0" * 64).decode())), INV, SIG),
    "sig, not base64": (edited(SIGNED, set_at(("signatures", 0, "sig"), "not base64!")), MAL, "/signatures/0/sig"),
    "extra member": (edited(SIGNED, set_at(("note",), "trust me")), MAL, "/note"),
    "extra signature member": (edited(SIGNED, set_at(("signatures", 0, "cert"), "x")), MAL, "/signatures/0/cert"),
    "duplicated signature": (edited(SIGNED, lambda d: d["signatures"].append(d["signatures"][0])), MAL, "/signatures"),
    "no signature": (edited(SIGNED, set_at(("signatures",), [])), MAL, "/signatures"),
    "not JSON": (SIGNED[:-1], "signature.malformed", ""),
}


@pytest.mark.parametrize("field", sorted(TAMPERED))
def test_an_envelope_with_any_field_tampered_is_refused(field: str) -> None:
    raw, code, pointer = TAMPERED[field]

    error = _refused(raw, code, pointer)

    assert "'trusted-signers'" in error.message


def test_an_envelope_whose_keyid_names_another_trusted_key_does_not_verify_with_it() -> None:
    raw = edited(SIGNED, set_at(("signatures", 0, "keyid"), OTHER_KEY.public.keyid))

    with pytest.raises(SignatureError, match=r"signature\.invalid .*does not verify with key Other \(sha256:"):
        check_signature(raw, BOTH, kind="bundle", digest=DIGEST)


# -- a statement signed by a trusted key but not the one asked for --------------------------------


def test_a_genuine_signature_over_another_document_is_a_subject_mismatch_naming_both_digests() -> None:
    error = _refused(SIGNED, "signature.subject_mismatch", "/payload", digest=OTHER)

    assert f"Curator CI ({CURATOR.public.keyid})" in error.detail
    assert f"signed the bundle {DIGEST}" in error.detail and f"not this bundle, {OTHER}" in error.detail


def test_a_bundle_signature_does_not_sign_a_report_with_the_same_digest() -> None:
    _refused(SIGNED, "signature.subject_mismatch", "/payload", kind="report")


@pytest.mark.parametrize(
    "statement",
    [
        _statement_with("_type", value="https://in-toto.io/Statement/v0.1"),
        _statement_with("subject", value=[]),
        _statement_with("subject", value=[payload_of(SIGNED)["subject"][0]] * 2),
        _statement_with("subject", 0, "digest", value={"sha256": "ab" * 32, "sha512": "00"}),
        _statement_with("subject", 0, "digest", "sha256", value="AB" * 32),
        _statement_with("subject", 0, "name", value=7),
        _statement_with("predicateType", value="https://example.com/x"),
        _statement_with("predicate", value={"kind": "report", "tool": "x"}),
        _statement_with("extra", value=1),
        [],
    ],
)
def test_a_signed_statement_not_of_the_shape_evidence_rank_writes_is_malformed(statement: Any) -> None:
    error = _refused(resigned(statement, CURATOR), MAL, "/payload")

    assert error.detail.startswith("the payload's statement: ")


# -- key rotation and the trust file ---------------------------------------------------------------


def test_during_a_rotation_both_listed_keys_are_trusted_and_a_removed_key_is_refused() -> None:
    old, new = signing_key("curator-2025"), signing_key("curator-2026")
    during = parse_trust(trust_file((old, "Curator 2025"), (new, "Curator 2026")), "rotating")
    after = parse_trust(trust_file((new, "Curator 2026")), "rotated")

    for key, name in ((old, "Curator 2025"), (new, "Curator 2026")):
        assert check_signature(envelope(key, "bundle", DIGEST), during, kind="bundle", digest=DIGEST).name == name
    assert check_signature(envelope(new, "bundle", DIGEST), after, kind="bundle", digest=DIGEST).name == "Curator 2026"
    with pytest.raises(SignatureError, match=rf"signed by key {old.public.keyid}, which the trust file 'rotated'"):
        check_signature(envelope(old, "bundle", DIGEST), after, kind="bundle", digest=DIGEST)


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        (f"{OTHER_KEY.public.keyid} {CURATOR.public.openssh} x", "line 1: the key id sha256:"),
        (f"{trust_line(CURATOR)}\n{trust_line(CURATOR, 'again')}", "line 2: key sha256:"),
        ("# nothing\n\n", "lists no key"),
        (f"{CURATOR.public.keyid} ssh-ed25519 AAA", "line 1: not base64"),
        (f"{CURATOR.public.keyid} ssh-ed25519 AAAA", "line 1: the key's blob ends inside a field"),
        (f"{CURATOR.public.keyid} ssh-rsa AAAA", "line 1: key type 'ssh-rsa' is neither ssh-ed25519 nor"),
        (f"{CURATOR.public.keyid}", "line 1: expected KEYID PUBLIC-KEY [NAME]"),
        (
            f"{trust_line(CURATOR)} bad\x1bname",
            "line 1: the name 'bad\\x1bname' holds a character a terminal would act on",
        ),
        ("md5:00 ssh-ed25519 AAAA", "line 1: expected KEYID PUBLIC-KEY"),
        (f"{trust_line(CURATOR)} {'n' * 201}", "line 1: the name is 201 characters long, more than 200"),
        # Only LF ends a line (CRLF too): a separator Python's splitlines() also splits at is in the name.
        (f"# keys\n{trust_line(CURATOR)} a\u2028b", "line 2: the name 'a\\u2028b' holds a character"),
        (f"{trust_line(CURATOR)} a\x85b\n", "line 1: the name 'a\\x85b' holds a character"),
        (f"{trust_line(CURATOR)} a\x0cb\r\n", "line 1: the name 'a\\x0cb' holds a character"),
    ],
)
def test_a_trust_file_that_cannot_be_read_is_a_usage_error_naming_the_line(text: str, detail: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(detail)) as caught:
        parse_trust(text.encode(), "trusted-signers")

    assert (caught.value.code, caught.value.exit_code, caught.value.source) == ("trust.invalid", 2, "trusted-signers")


def test_an_ecdsa_key_written_as_ssh_ed25519_is_refused() -> None:
    p256 = signing_key("curator", "p256")
    blob = p256.public.openssh.split()[1]

    with pytest.raises(ConfigError, match="not an ssh-ed25519 public key"):
        parse_trust(f"{p256.public.keyid} ssh-ed25519 {blob}".encode(), "t")


@given(st.binary(max_size=200))
def test_base64_without_the_base64_module_round_trips_as_the_standard_library_writes_it(data: bytes) -> None:
    text = b64encode(data)

    assert text == base64.b64encode(data).decode()
    assert b64decode(text) == data


@given(st.text(alphabet="ABCab01+/=\n -_", max_size=24))
def test_base64_is_read_only_as_the_standard_library_writes_it(text: str) -> None:
    try:
        data = base64.b64decode(text, validate=True)
    except binascii.Error:
        canonical = False
    else:
        canonical = base64.b64encode(data).decode() == text
    try:
        b64decode(text)
    except ValueError:
        assert not canonical
    else:
        assert canonical
