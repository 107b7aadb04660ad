"""``score --trust`` and ``score --validation``: the bundle accepted through the one door
(:mod:`ranking.checking.acceptance`), a part of ``score`` in the command table that a plain
``score`` does not pay for."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from curator_io.config import Config
from ranking.checking.acceptance import Sources, accept_bundle, accept_validation
from ranking.cli.signed import Signed
from validator import Validation, validate

if TYPE_CHECKING:
    from curator_io.models import Bundle
    from ranking.signing.trust import Signer

__all__ = ["accepted_inputs"]


def accepted_inputs(
    args: argparse.Namespace, config: Config, signed: Signed, validation: bytes | None, raw: bytes
) -> tuple[Bundle, Signer | None, Validation]:
    """The bundle, who signed it, and its validation: ``validation`` checked against it when given."""
    sources = Sources(bundle=args.bundle, signature=signed.where, trust=args.trust, validation=args.validation)
    if validation is not None:
        # SPEC §7: scoring recomputes validation and refuses a tampered one.
        held = accept_validation(
            validation, raw, config=config, trust=signed.trust, signature=signed.signature, sources=sources
        )
        return held.bundle, held.signer, held.validation
    accepted = accept_bundle(raw, trust=signed.trust, signature=signed.signature, sources=sources)
    return accepted.bundle, accepted.signer, validate(accepted.bundle, config=config)
