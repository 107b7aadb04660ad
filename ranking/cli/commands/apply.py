"""``evidence-rank apply BUNDLE REPORT``: the memory the selection permits (SPEC §8)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any

import structlog

from curator_io.bundle import load_bundle
from curator_io.canonical import canon
from curator_io.errors import InputError, TamperError
from curator_io.files import read_bytes, write_atomic
from curator_io.models import Bundle
from ranking.apply import apply_selection
from ranking.cli.common import read_report

__all__ = ["register", "run", "read_bundle", "read_report_object", "write_stdout"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "apply",
        help="print the memory the report's selection permits the Writer to produce",
        description="Apply the report's selection to the bundle's memory (SPEC §8) and print it as canonical "
        "RFC 8785 bytes. The report must be this bundle's, byte for byte: any other is refused with "
        "report.tampered (exit 4).",
    )
    p.add_argument("bundle", metavar="BUNDLE", help="the curator-bundle-v1 JSON file the report was computed from")
    p.add_argument("report", metavar="REPORT", help="the evidence-ranking-v1 report (report.json)")
    p.add_argument("--out", metavar="FILE", help="write the memory to FILE (atomically) instead of stdout")
    p.set_defaults(run=run)


def read_bundle(path: str) -> Bundle:
    """Load a bundle; an input error names the file."""
    try:
        return load_bundle(read_bytes(path))
    except InputError as e:
        raise InputError(e.code, f"{path}: {e.detail}", pointer=e.pointer) from e


def read_report_object(path: str) -> Mapping[str, Any]:
    """A report document: strict JSON (``input.malformed_json``, exit 3), and an object.

    Whether it is the bundle's report is :func:`ranking.apply.recompute_for`'s to say.
    """
    try:
        doc = read_report(path)
    except InputError as e:
        raise InputError(e.code, f"{path}: {e.detail}", pointer=e.pointer) from e
    if type(doc) is not dict:
        raise TamperError("report.tampered", f"{path}: a ranking report is a JSON object", pointer="")
    return doc


def write_stdout(data: bytes) -> None:
    """Exact bytes on stdout, whatever its text encoding."""
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def run(args: argparse.Namespace) -> int:
    bundle = read_bundle(args.bundle)
    report = read_report_object(args.report)
    memory = apply_selection(bundle, report)
    data = canon(memory)
    if args.out:
        write_atomic(args.out, data)
    else:
        write_stdout(data)
    structlog.get_logger("evidence_rank").info(
        "applied", bundle=args.bundle, selected=list(report["selected"]), version=memory["version"]
    )
    return 0
