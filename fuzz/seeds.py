"""The seed corpus: the shipped fixtures and the parity cases, as one case per seed.

A case is the set of files a target may read, by slot name (``bundle``,
``config``, ``report``, ``validation``, ``memory``). A parity case gives its
expected reports and applied memory; a fixture gets them from the library, so
every seed starts from a bundle that reaches ranking.
"""

from __future__ import annotations

from pathlib import Path

from curator_io.bundle import load_bundle
from curator_io.canonical import canon
from curator_io.config import DEFAULT_CONFIG, parse_config
from curator_io.errors import EvidenceRankError
from curator_io.jsonio import parse_json
from ranking.apply import apply_selection
from ranking.pipeline import rank

__all__ = ["Case", "SLOTS", "seed_cases", "derive", "json_pieces"]

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
PARITY = REPO / "tests" / "parity" / "cases"

#: Every file a target may read. A case maps some of them to bytes; a missing slot is a file not given.
SLOTS = ("bundle", "config", "report", "validation", "memory")

Case = dict[str, bytes]


def derive(case: Case) -> Case:
    """Fill ``report``, ``validation`` and ``memory`` from the case's bundle and config, as the library
    computes them; a bundle or config the library refuses leaves the case as it is."""
    try:
        config = parse_config(parse_json(case["config"])) if "config" in case else DEFAULT_CONFIG
        bundle = load_bundle(case["bundle"])
    except EvidenceRankError:
        return dict(case)
    result = rank(bundle, config)
    memory = apply_selection(bundle, result.report)
    return {**case, "report": result.canonical, "validation": result.validation.canonical, "memory": canon(memory)}


def _parity_case(folder: Path) -> Case:
    case: Case = {"bundle": (folder / "bundle.json").read_bytes()}
    for slot, name in (
        ("config", "config.json"),
        ("report", "expected.report.json"),
        ("validation", "expected.validation.json"),
        ("memory", "expected.apply.json"),
    ):
        path = folder / name
        if path.is_file():
            case[slot] = path.read_bytes()
    return case


def seed_cases() -> list[tuple[str, Case]]:
    """``(name, case)`` for every fixture and parity case, in a fixed order."""
    cases = [(f"fixtures/{p.name}", derive({"bundle": p.read_bytes()})) for p in sorted(FIXTURES.glob("*.json"))]
    if not PARITY.is_dir():
        raise RuntimeError(f"parity corpus not found at {PARITY}")
    for folder in sorted(p for p in PARITY.iterdir() if p.is_dir()):
        cases.append((f"parity/{folder.name}", _parity_case(folder)))
    return cases


def json_pieces() -> list[bytes]:
    """Small documents for the parser: every artifact, proposal and config of the seeds, one each,
    written compactly, and the edges of SPEC §0 (nesting 512 and 513, a lone surrogate, a number
    beyond binary64, a duplicate member, a byte-order mark)."""
    pieces = {
        b"[]", b"{}", b"[" * 512 + b"]" * 512, b"[" * 513 + b"]" * 513, b'"\\ud800"', b"1e400", b"-0",
        b'{"a":1,"a":2}', b"\xef\xbb\xbf{}", b"9007199254740993", b'"\\u003a"', b"1" * 4400,
    }  # fmt: skip
    for _, case in seed_cases():
        for slot in ("bundle", "config"):
            try:
                doc = parse_json(case.get(slot, b"x"))
            except EvidenceRankError:
                continue
            items = [doc] if slot == "config" else []
            if type(doc) is dict:
                items += [v for k, v in doc.items() if type(v) is not list] + [doc.get("memory", {})]
                items += [x for v in doc.values() if type(v) is list for x in v]
            pieces.update(canon(x) for x in items)
    return sorted(pieces)
