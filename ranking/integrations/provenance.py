"""The ``trust=`` and ``signature=`` of the integrations: who signed the document a policy rests on.

What ``--trust`` and ``--signature`` are on the command line (docs/provenance.md),
for a library caller that passes paths, bytes or parsed documents. A trust
file is a path or its bytes (or a parsed ``ranking.signing.trust.TrustList``); a
signature is a path or its bytes, by default the document's path with
``.intoto.json`` added. A document given as bytes or a mapping has no path,
so its signature must be passed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from curator_io.errors import SignatureError
from ranking.signing.trust import Signer, TrustList, check_signature, parse_trust

__all__ = ["Trust", "SignatureSource", "read_trust", "signer_of"]

Trust = str | os.PathLike[str] | bytes | TrustList
"""A trust file: its path, its bytes, or the list it holds."""
SignatureSource = str | os.PathLike[str] | bytes
"""A signature file: its path or its bytes."""

_SUFFIX = ".intoto.json"


def read_trust(trust: Trust) -> TrustList:
    if isinstance(trust, TrustList):
        return trust
    if isinstance(trust, bytes):
        return parse_trust(trust, "<trust bytes>")
    return parse_trust(Path(trust).read_bytes(), os.fspath(trust))


def signer_of(
    trust: TrustList,
    signature: SignatureSource | None,
    document: str | os.PathLike[str] | bytes | Mapping[str, Any],
    *,
    kind: str,
    digest: str,
) -> Signer:
    """Who of ``trust`` signed ``document`` (a ``bundle`` or a ``report`` with seal ``digest``);
    :class:`~curator_io.errors.SignatureError` when nobody listed did."""
    if signature is None and isinstance(document, (str, os.PathLike)):
        signature = os.fspath(document) + _SUFFIX
    if signature is None:
        detail = f"the {kind} was given without a path, so its signature must be passed (signature=)"
        raise SignatureError("signature.unsigned", detail)
    if isinstance(signature, bytes):
        return check_signature(signature, trust, kind=kind, digest=digest)
    try:
        raw = Path(signature).read_bytes()
    except FileNotFoundError:
        detail = (
            f"the {kind} is not signed: there is no signature file {os.fspath(signature)!r}, and the trust "
            f"file {trust.source!r} requires one by a key it lists"
        )
        raise SignatureError("signature.unsigned", detail) from None
    try:
        return check_signature(raw, trust, kind=kind, digest=digest)
    except SignatureError as e:
        raise e.in_file(os.fspath(signature)) from e
