"""The seed corpus: the shipped fixtures and the parity cases, as one case per seed.

A case is the set of files a target may read, by slot name (``bundle``,
``config``, ``report``, ``validation``, ``memory``, ``signature``). A parity
case gives its expected reports and applied memory; a fixture gets them from
the library, so every seed starts from a bundle that reaches ranking. Every
seed's bundle is signed by :func:`fuzz_key`, the one key :func:`fuzz_trust`
lists, so an envelope mutant starts from one that verifies (a parity case's
bundle is signed by :func:`signed_case`, for the targets that read signatures).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

from curator_io.bundle import load_bundle
from curator_io.canonical import canon
from curator_io.config import DEFAULT_CONFIG, parse_config
from curator_io.errors import EvidenceRankError
from curator_io.jsonio import parse_json
from ranking.checking.acceptance import accept
from ranking.checking.apply import apply_selection
from ranking.pipeline import rank

__all__ = [
    "Case",
    "SLOTS",
    "seed_cases",
    "derive",
    "json_pieces",
    "fuzz_key",
    "fuzz_trust",
    "signed_envelope",
    "signed_case",
]

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
PARITY = REPO / "tests" / "parity" / "cases"

#: Every file a target may read. A case maps some of them to bytes; a missing slot is a file not given.
SLOTS = ("bundle", "config", "report", "validation", "memory", "signature")

Case = dict[str, bytes]


def derive(case: Case) -> Case:
    """Fill ``report``, ``validation`` and ``memory`` from the case's bundle and config, as the library
    computes them; a bundle or config the library refuses leaves the case as it is."""
    try:
        config = parse_config(parse_json(case["config"])) if "config" in case else DEFAULT_CONFIG
        bundle = load_bundle(case["bundle"])
    except EvidenceRankError:
        return dict(case)
    result = rank(bundle, config)
    memory = apply_selection(accept(result.report, bundle=bundle))
    derived = {"report": result.canonical, "validation": result.validation.canonical, "memory": canon(memory)}
    return {**case, **derived, "signature": signed_envelope(make_statement_of(bundle.input_digest))}


@functools.cache
def fuzz_key() -> Any:
    """The campaign's signing key (a ``ranking.signing.private_keys.SigningKey``), the same on every run."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    from ranking.signing.private_keys import load_private_key

    key = ed25519.Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"evidence-rank fuzz").digest())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return load_private_key(pem)


@functools.cache
def fuzz_trust() -> Any:
    """The trust list of the envelope target: :func:`fuzz_key` alone."""
    from ranking.signing.trust import parse_trust

    public = fuzz_key().public
    return parse_trust(f"{public.keyid} {public.openssh} fuzz".encode(), "fuzz-trust")


def make_statement_of(digest: str) -> dict[str, Any]:
    from ranking.signing.envelope import make_statement

    return make_statement("bundle", "bundle.json", digest, "evidence-rank fuzz")


def signed_envelope(statement: Any) -> bytes:
    """An envelope over ``statement`` (any JSON value) signed by :func:`fuzz_key`."""
    from ranking.signing.envelope import make_envelope

    key = fuzz_key()
    return make_envelope(statement, key.public.keyid, key.sign)


def signed_case(case: Case) -> Case:
    """The case with its bundle's seal signed, if it has none (a bundle that does not load gets none)."""
    if "signature" in case:
        return case
    try:
        bundle = load_bundle(case["bundle"])
    except EvidenceRankError:
        return case
    return {**case, "signature": signed_envelope(make_statement_of(bundle.input_digest))}


def _parity_case(folder: Path) -> Case:
    case: Case = {"bundle": (folder / "bundle.json").read_bytes()}
    for slot, name in (
        ("config", "config.json"),
        ("report", "expected.report.json"),
        ("validation", "expected.validation.json"),
        ("memory", "expected.apply.json"),
    ):
        path = folder / name
        if path.is_file():
            case[slot] = path.read_bytes()
    return case


def seed_cases() -> list[tuple[str, Case]]:
    """``(name, case)`` for every fixture and parity case, in a fixed order."""
    cases = [(f"fixtures/{p.name}", derive({"bundle": p.read_bytes()})) for p in sorted(FIXTURES.glob("*.json"))]
    if not PARITY.is_dir():
        raise RuntimeError(f"parity corpus not found at {PARITY}")
    for folder in sorted(p for p in PARITY.iterdir() if p.is_dir()):
        cases.append((f"parity/{folder.name}", _parity_case(folder)))
    return cases


def json_pieces() -> list[bytes]:
    """Small documents for the parser: every artifact, proposal and config of the seeds, one each,
    written compactly, and the edges of SPEC §0 (nesting 512 and 513, a lone surrogate, a number
    beyond binary64, a duplicate member, a byte-order mark)."""
    pieces = {
        b"[]", b"{}", b"[" * 512 + b"]" * 512, b"[" * 513 + b"]" * 513, b'"\\ud800"', b"1e400", b"-0",
        b'{"a":1,"a":2}', b"\xef\xbb\xbf{}", b"9007199254740993", b'"\\u003a"', b"1" * 4400,
    }  # fmt: skip
    for _, case in seed_cases():
        for slot in ("bundle", "config"):
            try:
                doc = parse_json(case.get(slot, b"x"))
            except EvidenceRankError:
                continue
            items = [doc] if slot == "config" else []
            if type(doc) is dict:
                items += [v for k, v in doc.items() if type(v) is not list] + [doc.get("memory", {})]
                items += [x for v in doc.values() if type(v) is list for x in v]
            pieces.update(canon(x) for x in items)
    return sorted(pieces)
