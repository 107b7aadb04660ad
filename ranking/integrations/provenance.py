"""The ``trust=`` and ``signature=`` of the integrations, read: who signed is decided by
acceptance (:mod:`ranking.checking.acceptance`), as for ``--trust`` and ``--signature``.

A trust file is a path or its bytes (or a parsed ``ranking.signing.trust.TrustList``);
a signature is a path or its bytes, by default the signed document's path with
``.intoto.json`` added. A document given as bytes or a mapping has no path, so its
signature must be passed. Paths are read by the reader (:mod:`ranking.running.inputs`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ranking.running.inputs import read_if_present, read_input
from ranking.signing.trust import TrustList

__all__ = ["Trust", "SignatureSource", "read_trust", "signature_path", "read_signature"]

Trust = str | os.PathLike[str] | bytes | TrustList
"""A trust file: its path, its bytes, or the list it holds."""
SignatureSource = str | os.PathLike[str] | bytes
"""A signature file: its path or its bytes."""

_SUFFIX = ".intoto.json"


def read_trust(trust: Trust | None) -> TrustList | bytes | None:
    """The trust file as acceptance takes it: parsed, or its bytes."""
    if trust is None or isinstance(trust, (TrustList, bytes)):
        return trust
    return read_input(trust)


def signature_path(
    signature: SignatureSource | None, document: str | os.PathLike[str] | bytes | Mapping[str, Any]
) -> str | None:
    """Where the signature of ``document`` is looked for: ``signature`` when it is a path, else
    the document's path with ``.intoto.json`` added; None when neither is a path."""
    if isinstance(signature, (str, os.PathLike)):
        return os.fspath(signature)
    if signature is None and isinstance(document, (str, os.PathLike)):
        return os.fspath(document) + _SUFFIX
    return None


def read_signature(signature: SignatureSource | None, where: str | None) -> bytes | None:
    """The signature's bytes: given, or read from ``where``; None when there is none."""
    if isinstance(signature, bytes):
        return signature
    return None if where is None else read_if_present(where)
