"""``evidence-rank seal BUNDLE [--check]``: compute every artifact digest and the
frozen digest, for curator authors and fixture writers."""

from __future__ import annotations

import argparse
import os
from typing import Any

import orjson

from curator_io.canonical import canon
from curator_io.errors import InputError
from curator_io.jsonio import parse_json
from curator_io.sealing import seal_bundle, unsealed_places
from ranking.cli.output import emit
from ranking.running.inputs import read_input
from ranking.running.outputs import write_file


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "seal",
        description="Compute every artifact's digest and the bundle's frozen.digest and rewrite BUNDLE in place, "
        "atomically, indented for reading. With --check, change nothing: list what is unsealed and exit 1 if "
        "anything is.",
    )
    p.add_argument("bundle", metavar="BUNDLE")
    p.add_argument("--check", action="store_true", help="only report unsealed places (exit 1 when there are any)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        doc = parse_json(read_input(args.bundle))
    except InputError as e:
        raise e.in_file(args.bundle) from e
    if not isinstance(doc, dict):
        raise InputError("input.schema", "a bundle is a JSON object", pointer="", source=args.bundle)
    places = unsealed_places(doc)
    if args.check:
        for place in places:
            emit(f"unsealed: {place}")
        emit(f"{args.bundle}: {'sealed' if not places else f'{len(places)} unsealed'}")
        return 1 if places else 0
    if places:
        # The file itself, where BUNDLE is a symlink: the link stays, its target is sealed.
        target = os.path.realpath(args.bundle)
        write_file(target, _readable(seal_bundle(doc)), keep_mode=True)
    n = len(places)
    emit(f"{args.bundle}: {'already sealed' if not n else f'sealed {n} place' + ('s' if n != 1 else '')}")
    return 0


def _readable(doc: dict[str, Any]) -> bytes:
    """Indented for reading; canonical where orjson cannot write it (nested past its
    255 levels, which SPEC §0's 512 allows)."""
    try:
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
    except orjson.JSONEncodeError:
        return canon(doc) + b"\n"
