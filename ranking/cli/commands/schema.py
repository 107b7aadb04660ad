"""``evidence-rank schema bundle|validation|report``: the published JSON Schema."""

from __future__ import annotations

import argparse
import json

from curator_io.published import published_schema
from ranking.cli.output import emit

NAMES = ("bundle", "validation", "report")
"""The keys of ``curator_io.published.SCHEMA_IDS``, spelled out so that building the
parser does not import the models (pydantic), a large share of every command's start-up."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "schema",
        description="Print the JSON Schema of a curator bundle, a validation report or a ranking report.",
    )
    p.add_argument("name", choices=NAMES, help="which document")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # The shipped files, read as they are: generating them (curator_io.schema_generator) needs pydantic,
    # printing them does not, and a test holds the files to what the generator writes.
    emit(json.dumps(published_schema(args.name), indent=2, sort_keys=True, ensure_ascii=False).splitlines())
    return 0
