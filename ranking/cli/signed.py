"""``--trust`` and ``--signature``, shared by ``score``, ``verify`` and ``gate`` (docs/provenance.md).

Without ``--trust`` nothing here imports more than argparse needs: the trust
file's parser, and PyCA ``cryptography`` with it, load only when one is given.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from curator_io.errors import ConfigError, SignatureError
from ranking.running.inputs import read_if_present, read_input

if TYPE_CHECKING:
    from ranking.signing.trust import Signer, TrustList

__all__ = ["SUFFIX", "add_trust_options", "read_trust", "signature_path", "check_signed"]

#: A signature file's name is its document's with this added: ``bundle.json.intoto.json``.
SUFFIX = ".intoto.json"


def add_trust_options(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--trust",
        metavar="FILE",
        help=f"a trust file (docs/provenance.md): refuse (exit 4) unless {what} is signed by a key it lists. "
        "Keep it where the change being gated cannot edit it unnoticed, like --config",
    )
    p.add_argument(
        "--signature",
        metavar="SIG",
        help=f"with --trust: the signature file of {what} (default: its path with {SUFFIX} added)",
    )


def read_trust(args: argparse.Namespace) -> TrustList | None:
    """The trust file of ``--trust``, read before any input so a usage error comes first."""
    if args.trust is None:
        if args.signature is not None:
            raise ConfigError("usage.invalid_option", "--signature names the signature to check with --trust: add it")
        return None
    from ranking.signing.trust import parse_trust

    return parse_trust(read_input(args.trust), args.trust)


def signature_path(args: argparse.Namespace, path: str) -> str:
    if args.signature is not None:
        return str(args.signature)
    if path == "-":
        raise ConfigError("usage.invalid_option", "a document read from standard input needs --signature with --trust")
    return path + SUFFIX


def check_signed(
    trust: TrustList | None, args: argparse.Namespace, *, path: str, kind: str, digest: str
) -> Signer | None:
    """Who signed the document at ``path`` (``kind`` ``bundle`` or ``report``, seal ``digest``);
    ``None`` without ``--trust``. A missing or failing signature is a :class:`SignatureError`
    that names the file it was found in."""
    if trust is None:
        return None
    from curator_io import grammar as g
    from ranking.signing.trust import check_signature

    where = signature_path(args, path)
    raw = read_if_present(where)
    if raw is None:
        detail = (
            f"the {kind} is not signed: there is no signature file {g.printable(where)!r}, and the trust file "
            f"{g.printable(trust.source)!r} requires one by a key it lists"
        )
        raise SignatureError("signature.unsigned", detail, source=path)
    try:
        return check_signature(raw, trust, kind=kind, digest=digest)
    except SignatureError as e:
        raise e.in_file(where) from e
