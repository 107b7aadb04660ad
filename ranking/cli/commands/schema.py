"""``evidence-rank schema bundle|validation|report``: the published JSON Schema."""

from __future__ import annotations

import argparse
import json

from curator_io.reports import SCHEMA_MODELS, published_schema


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "schema",
        help="print a published JSON Schema (Draft 2020-12)",
        description="Print the JSON Schema of a curator bundle, a validation report or a ranking report.",
    )
    p.add_argument("name", choices=tuple(SCHEMA_MODELS), help="which document")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    print(json.dumps(published_schema(args.name), indent=2, sort_keys=True, ensure_ascii=False))
    return 0
