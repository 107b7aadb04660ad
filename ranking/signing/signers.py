"""Who signed a document, as a trust file names them: the :class:`Signer` that ``gate`` shows
and the ledger records, and the form every signer has (:func:`signer_fault`).

Apart from :mod:`ranking.signing.trust` so that the ledger, which stores and shows signers, does
not import the envelope and key modules on every command that opens one.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from curator_io import grammar as g

__all__ = ["KEYID", "MAX_NAME_CHARS", "Signer", "signer_fault"]

KEYID = g.DIGEST_PATTERN
"""A key id: the DIGEST of the key (:attr:`ranking.signing.keys.PublicKey.keyid`)."""
MAX_NAME_CHARS = 200
"""The longest NAME a trust file may give a key: it is shown on one line (gate, ledger)."""


class Signer(NamedTuple):
    """Who signed a document: a key of the trust file, and the name it has there."""

    keyid: str
    name: str | None

    @property
    def shown(self) -> str:
        """``NAME (KEYID)``, or the key id alone (a name holds printable characters only: :func:`signer_fault`)."""
        return f"{self.name} ({self.keyid})" if self.name else self.keyid

    def to_json(self) -> dict[str, Any]:
        return {"keyid": self.keyid, "name": self.name}


def signer_fault(keyid: object, name: object) -> str | None:
    """Why ``(keyid, name)`` is not a signer a trust file can name, or None: a key id
    ``sha256:<64 hex digits>`` and a name that is None or 1 to :data:`MAX_NAME_CHARS`
    printable characters. The form only: the ledger checks a stored signer with it."""
    if type(keyid) is not str or KEYID.fullmatch(keyid) is None:
        return "the key id is not sha256:<64 hex digits>"
    if name is None:
        return None
    if type(name) is not str or not name:
        return "the name is not text, or null"
    if len(name) > MAX_NAME_CHARS:
        return f"the name is {len(name)} characters long, more than {MAX_NAME_CHARS}"
    if not name.isprintable():
        return f"the name {name!r} holds a character a terminal would act on"
    return None
