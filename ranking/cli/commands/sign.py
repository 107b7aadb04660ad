"""``evidence-rank sign PATH --key KEY [--out SIG]``: sign a bundle or a report (docs/provenance.md).

The signature file is a DSSE envelope of an in-toto Statement whose subject is
the document's seal (``ranking.signing.envelope``), written canonically and
atomically beside the document (``PATH.intoto.json``) unless ``--out`` says
elsewhere. A document is signed only if it holds: a bundle must load (its
seal and every artifact's checked, SPEC §1), a report must hold the SPEC §7
invariants it can show alone.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import ranking
from curator_io.catalogue import BUNDLE_SCHEMA, REPORT_SCHEMA
from curator_io.errors import ConfigError, InputError
from curator_io.jsonio import parse_json
from ranking.checking.acceptance import Sources, accept, accept_bundle
from ranking.checking.transcript_replay import replay_transcripts
from ranking.cli.collector import collector_off
from ranking.cli.output import emit
from ranking.cli.signed import SUFFIX
from ranking.cli.targets import refuse_input_as_output
from ranking.running.inputs import read_input, read_transcript_file
from ranking.running.outputs import write_file
from ranking.signing.envelope import make_envelope, make_statement
from ranking.signing.keys import KeyFormatError
from ranking.signing.private_keys import load_private_key

__all__ = ["register", "run", "load_key"]

_KIND_OF_SCHEMA = {BUNDLE_SCHEMA: "bundle", REPORT_SCHEMA: "report"}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sign",
        description="Sign a curator-bundle-v1 bundle or an evidence-ranking-v1 report with KEY: write a DSSE "
        f"envelope of an in-toto Statement over its seal to PATH{SUFFIX} (or --out). KEY is a PEM (PKCS#8 or "
        "SEC 1) or unencrypted OpenSSH private key, Ed25519 or ECDSA P-256. Exit 0 when signed, 2 for a key or "
        "file that cannot be read or written, 3 for a document that is neither, 4 for a report that does not hold.",
    )
    p.add_argument("path", metavar="PATH", help="the bundle or the ranking report to sign")
    p.add_argument("--key", required=True, metavar="KEY", help="the private key file (a CI secret)")
    p.add_argument("--out", metavar="SIG", help=f"where to write the signature (default: PATH{SUFFIX})")
    p.add_argument(
        "--transcript",
        action="append",
        default=[],
        metavar="FILE",
        help="an agent's log the bundle's evidence was read from (docs/transcripts.md), listed in the statement "
        "as a material with its digest once every evidence item from a log replays against the files given",
    )
    p.set_defaults(run=run)


def load_key(path: str) -> Any:
    """The signing key in ``path``; ``key.invalid`` (exit 2) naming the file when it is not one."""
    try:
        return load_private_key(read_input(path))
    except KeyFormatError as e:
        raise ConfigError("key.invalid", str(e), source=path) from e


def _tool() -> str:
    """The statement's tool: this version of evidence-rank, as ``ranking.__version__`` reads it."""
    version: str = ranking.__version__
    return "evidence-rank" if version == "unknown" else f"evidence-rank {version}"  # "unknown": never installed


def _subject(path: str) -> tuple[str, str]:
    """The document's kind and seal, once it is known to hold: a bundle loads, a report is accepted."""
    raw = read_input(path)
    try:
        doc = parse_json(raw)
        found = doc.get("schema") if type(doc) is dict else None
        kind = _KIND_OF_SCHEMA.get(found) if type(found) is str else None
        if kind is None:
            detail = "sign takes a curator-bundle-v1 bundle or an evidence-ranking-v1 report"
            raise InputError("input.schema", detail, pointer="/schema" if type(doc) is dict else "")
    except InputError as e:
        raise e.in_file(path) from e
    if kind == "bundle":
        return kind, accept_bundle(raw, sources=Sources(bundle=path)).bundle.input_digest
    return kind, accept(doc, sources=Sources(report=path)).report.digest


def _materials(path: str, files: list[str]) -> tuple[tuple[str, str], ...]:
    """Each log's name and digest, once the bundle's evidence replays against them (docs/transcripts.md,
    "Replay"): a statement lists as materials only files its evidence is as they give it."""
    logs = [read_transcript_file(file) for file in files]
    replay = replay_transcripts(read_input(path), logs)
    if not replay.ok:
        first, more = replay.findings[0], len(replay.findings) - 1
        detail = (
            f"--transcript: the bundle's evidence is not as these logs give it: {first.evidence}: {first.code}: "
            f"{first.detail}{f' (and {more} more)' if more else ''}; evidence-rank transcript check lists them"
        )
        raise ConfigError("usage.invalid_option", detail)
    named = {log.digest: os.path.basename(file) for file, log in zip(files, logs, strict=True)}
    return tuple((name, found) for found, name in named.items())


@collector_off
def run(args: argparse.Namespace) -> int:
    out = args.out or args.path + SUFFIX
    # Before anything is read: a signature written over the document or the key destroys it.
    refuse_input_as_output(out, [("PATH", args.path), ("--key", args.key)])
    kind, digest = _subject(args.path)
    materials = _materials(args.path, args.transcript) if args.transcript else ()
    if materials and kind != "bundle":
        raise ConfigError("usage.invalid_option", "--transcript: only a bundle's evidence is read from agents' logs")
    key = load_key(args.key)
    statement = make_statement(kind, os.path.basename(args.path), digest, _tool(), materials)
    write_file(out, make_envelope(statement, key.public.keyid, key.sign))
    emit(f"{out}: signed the {kind} {digest} with key {key.public.keyid}")
    return 0
