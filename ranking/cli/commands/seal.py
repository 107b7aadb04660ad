"""``evidence-rank seal BUNDLE [--check]``: compute every artifact digest and the
frozen digest, for curator authors and fixture writers."""

from __future__ import annotations

import argparse

import orjson

from curator_io.errors import InputError
from curator_io.files import read_bytes, write_atomic
from curator_io.jsonio import parse_json
from curator_io.sealing import seal_bundle, unsealed_places


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "seal",
        help="seal every artifact and the bundle, in place (or --check)",
        description="Compute every artifact's digest and the bundle's frozen.digest and rewrite BUNDLE in place, "
        "atomically, indented for reading. With --check, change nothing: list what is unsealed and exit 1 if "
        "anything is.",
    )
    p.add_argument("bundle", metavar="BUNDLE")
    p.add_argument("--check", action="store_true", help="only report unsealed places (exit 1 when there are any)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    doc = parse_json(read_bytes(args.bundle))
    if not isinstance(doc, dict):
        raise InputError("input.schema", "a bundle is a JSON object", pointer="")
    places = unsealed_places(doc)
    if args.check:
        for place in places:
            print(f"unsealed: {place}")
        print(f"{args.bundle}: {'sealed' if not places else f'{len(places)} unsealed'}")
        return 1 if places else 0
    if places:
        write_atomic(args.bundle, orjson.dumps(seal_bundle(doc), option=orjson.OPT_INDENT_2) + b"\n")
    print(f"{args.bundle}: {'already sealed' if not places else f'sealed {len(places)} places'}")
    return 0
