"""The library targets: each runs real entry points on one case and holds them to ``fuzz.prop``.

A target returns normally, raises :class:`~fuzz.prop.Violation`, or lets
another exception escape (a crash). Where the library produced something, the
target also checks it is what the library itself accepts: a report it ranked
holds every SPEC §7 invariant and replays; the two JSON parsers and the two
bundle loaders agree.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from curator_io.bundle import bundle_from_document, load_bundle
from curator_io.canonical import canon
from curator_io.config import DEFAULT_CONFIG, Config, parse_config
from curator_io.errors import EvidenceRankError
from curator_io.jsonio import _parse_strict, parse_json
from curator_io.memory import MemoryFile
from curator_io.models import Bundle
from fuzz.prop import Violation, check_error
from fuzz.seeds import FIXTURES, Case, fuzz_trust
from ranking.checking.acceptance import accept
from ranking.checking.apply import apply_selection
from ranking.checking.explain import explain
from ranking.checking.gate import gate
from ranking.checking.verification import check_report, replay_report
from ranking.pipeline import rank
from ranking.views.gate import render_github, render_json, render_step_summary, render_text
from validator import proposals_of

__all__ = ["Target", "LIBRARY_TARGETS"]


@dataclass(frozen=True)
class Target:
    slots: tuple[str, ...]
    run: Callable[[Case], None]


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types all the way down (``1 == 1.0 == True`` is not enough)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if type(x) is dict:
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif type(x) is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif type(x) is float:
            if x != y or math.copysign(1, x) != math.copysign(1, y):
                return False
        elif x != y:
            return False
    return True


def _expect(error: EvidenceRankError, raw: bytes | None, *families: str) -> None:
    check_error(error, raw)
    if error.code.partition(".")[0] not in families:
        raise Violation(f"{error.code} where only {', '.join(families)} errors belong")


def _config(case: Case) -> Config:
    try:
        return parse_config(parse_json(case["config"])) if "config" in case else DEFAULT_CONFIG
    except EvidenceRankError:
        return DEFAULT_CONFIG  # the config target fuzzes configs; here a refused one is the default


def _bundle(case: Case) -> Bundle | None:
    try:
        return load_bundle(case.get("bundle", b""))
    except EvidenceRankError:
        return None


def _report(raw: bytes | None) -> dict[str, Any] | None:
    """A report document as ``read_report`` gives the commands one: an object, or nothing."""
    try:
        doc = parse_json(raw if raw is not None else b"")
    except EvidenceRankError as e:
        _expect(e, raw, "input")
        return None
    return doc if type(doc) is dict else None


# --- parse_json -------------------------------------------------------------------


def run_json(case: Case) -> None:
    """parse_json: a value, or input.malformed_json; its fast path returns what the strict parser does."""
    raw = case.get("bundle", b"")
    try:
        value = parse_json(raw)
    except EvidenceRankError as e:
        _expect(e, raw, "input")
        if e.code != "input.malformed_json":
            raise Violation(f"parse_json raised {e.code}") from None
        return
    strict = _parse_strict(raw)
    if not _same(value, strict):
        raise Violation("parse_json's fast path and the strict parser disagree")
    canon(value)


# --- load_bundle, and what the library makes of a bundle it accepts ---------------------


def run_bundle(case: Case) -> None:
    raw = case.get("bundle", b"")
    try:
        bundle = load_bundle(raw)
    except EvidenceRankError as e:
        _expect(e, raw, "input")
        try:
            bundle_from_document(parse_json(raw))
        except EvidenceRankError as whole:
            if whole.code != e.code:
                raise Violation(f"load_bundle refuses {e.code}, the whole parse {whole.code}") from None
            return
        raise Violation(f"load_bundle refuses {e.code}, the whole parse accepts") from None
    whole = bundle_from_document(parse_json(raw))
    if whole.input_digest != bundle.input_digest:
        raise Violation("load_bundle and the whole parse give different digests")
    _holds(bundle, _config(case))


def _holds(bundle: Bundle, config: Config) -> None:
    """What the pipeline makes of a loaded bundle is accepted by its own checks."""
    result = rank(bundle, config)
    if not _same(parse_json(result.canonical), result.report):
        raise Violation("the report's canonical bytes do not parse back to the report")
    try:
        check_report(result.report, proposals=proposals_of(bundle))
        accepted = accept(result.report, bundle=bundle, config=config)
        memory = apply_selection(accepted)
    except EvidenceRankError as e:
        raise Violation(f"the pipeline's own report is refused: {e.line}") from None
    after, base = MemoryFile(canon(memory), markdown=False), MemoryFile(canon(bundle.memory), markdown=False)
    verdict = gate(result.report, bundle, after, config=config, base=base)
    if not verdict.passed:
        raise Violation("the gate fails the memory apply_selection permits")


# --- parse_config ---------------------------------------------------------------------

_EXAMPLE: list[Bundle] = []


def run_config(case: Case) -> None:
    raw = case.get("config", b"")
    try:
        config = parse_config(parse_json(raw))
    except EvidenceRankError as e:
        _expect(e, raw, "input", "config")
        return
    if parse_config(parse_json(canon(config.to_json()))) != config:
        raise Violation("a config does not survive its own report's config member")
    if not _EXAMPLE:
        _EXAMPLE.append(load_bundle((FIXTURES / "example.json").read_bytes()))
    _holds(_EXAMPLE[0], config)


# --- Reports: check_report, replay_report, explain, apply_selection -----------------------


def _proposal_ids(report: dict[str, Any]) -> list[str]:
    entries = report.get("proposals")
    ids = [e.get("id") for e in entries if type(e) is dict] if type(entries) is list else []
    return [i for i in ids if type(i) is str][:1] + ["no-such-proposal"]


def _refused_or_holds(call: Callable[[], Any], raw: bytes | None) -> None:
    try:
        call()
    except EvidenceRankError as e:
        _expect(e, raw, "invariant", "report", "usage")


def run_report(case: Case) -> None:
    raw = case.get("report")
    report = _report(raw)
    if report is None:
        return
    _refused_or_holds(lambda: check_report(report), raw)
    for pid in _proposal_ids(report):
        _refused_or_holds(lambda pid=pid: explain(accept(report), pid).render(), raw)
    bundle = _bundle(case)
    if bundle is None:
        return
    _refused_or_holds(lambda: check_report(report, proposals=proposals_of(bundle)), raw)
    _refused_or_holds(lambda: replay_report(bundle, report), raw)
    _refused_or_holds(lambda: replay_report(bundle, report, config=_config(case)), raw)
    _refused_or_holds(lambda: accept(report, bundle=bundle, config=_config(case)), raw)
    _refused_or_holds(lambda: apply_selection(accept(report, bundle=bundle)), raw)
    for pid in _proposal_ids(report)[:1]:
        _refused_or_holds(lambda pid=pid: explain(accept(report, bundle=bundle), pid).render(), raw)


# --- The gate: compare_memory -------------------------------------------------------


def run_gate(case: Case) -> None:
    bundle = _bundle(case)
    report = _report(case.get("report"))
    if bundle is None or report is None:
        return
    try:
        accept(report, bundle=bundle)
    except EvidenceRankError as e:
        _expect(e, case.get("report"), "report", "invariant", "input")
        return
    raw = case.get("memory", b"")
    config = parse_config(report["config"])  # Cannot fail: accept() checked the report's config.
    written = MemoryFile(raw, markdown=False)
    results = []
    for base in (MemoryFile(canon(bundle.memory), markdown=False), written):  # a base_mismatch, or the comparison
        try:
            results.append(gate(report, bundle, written, config=config, base=base))
        except EvidenceRankError as e:
            _expect(e, raw, "input")
            return
    for result in results:
        render_text(result), render_json(result), render_github(result, file="memory.json")
        render_step_summary(result)


# --- Signatures: check_signature over the case's bundle -----------------------------------------

_NO_BUNDLE = "sha256:" + "0" * 64


def run_envelope(case: Case) -> None:
    """A signature is refused with a signature.* code pointing into the envelope, or it names the
    campaign's key, and then the envelope, read with the standard library alone, says it signed
    this bundle's seal."""
    from ranking.signing.trust import check_signature

    raw = case.get("signature", b"")
    bundle = _bundle(case)
    seal = bundle.input_digest if bundle is not None else _NO_BUNDLE
    try:
        signer = check_signature(raw, fuzz_trust(), kind="bundle", digest=seal)
    except EvidenceRankError as e:
        _expect(e, raw, "signature")
        return
    envelope = json.loads(raw)
    statement = json.loads(base64.b64decode(envelope["payload"]))
    if signer.name != "fuzz" or envelope["payloadType"] != "application/vnd.in-toto+json":
        raise Violation(f"accepted an envelope of type {envelope['payloadType']!r} signed by {signer}")
    if [s["digest"] for s in statement["subject"]] != [{"sha256": seal.removeprefix("sha256:")}]:
        raise Violation(f"accepted a signature over {statement['subject']!r} for the bundle {seal}")


LIBRARY_TARGETS = {
    "json": Target(("bundle",), run_json),
    "bundle": Target(("bundle", "config"), run_bundle),
    "config": Target(("config",), run_config),
    "report": Target(("report", "bundle", "config"), run_report),
    "gate": Target(("memory", "bundle", "report"), run_gate),
    "envelope": Target(("signature", "bundle"), run_envelope),
}
