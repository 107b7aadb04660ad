"""``--trust`` and ``--signature``, shared by ``score``, ``verify`` and ``gate`` (docs/provenance.md):
the options, and reading the files they name. Whether the signature holds is decided by
acceptance (:mod:`ranking.checking.acceptance`), not here.
"""

from __future__ import annotations

import argparse
from typing import NamedTuple

from curator_io.errors import ConfigError
from ranking.running.inputs import STDIN, read_if_present, read_input

__all__ = ["SUFFIX", "Signed", "add_trust_options", "check_trust_options", "read_signed"]

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


class Signed(NamedTuple):  # not a dataclass: every command that reads a bundle builds this class at start-up
    """What ``--trust`` and ``--signature`` name, read: all None without ``--trust``."""

    trust: bytes | None = None
    signature: bytes | None = None
    """None when there is no signature file (acceptance refuses ``signature.unsigned``)."""
    where: str | None = None
    """The signature file looked for."""


def check_trust_options(args: argparse.Namespace) -> None:
    """``--signature`` without ``--trust``: a usage error, before anything is read."""
    if args.trust is None and args.signature is not None:
        raise ConfigError("usage.invalid_option", "--signature names the signature to check with --trust: add it")


def read_signed(args: argparse.Namespace, path: str) -> Signed:
    """The trust file and the signature of the document at ``path`` (``--signature``, or ``path``
    with :data:`SUFFIX` added), each read once; nothing without ``--trust``."""
    check_trust_options(args)
    if args.trust is None:
        return Signed()
    where = _signature_path(args, path)
    return Signed(read_input(args.trust), read_if_present(where), where)


def _signature_path(args: argparse.Namespace, path: str) -> str:
    if args.signature is not None:
        return str(args.signature)
    if path == STDIN:
        raise ConfigError("usage.invalid_option", "a document read from standard input needs --signature with --trust")
    return path + SUFFIX
