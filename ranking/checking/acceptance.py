"""Acceptance: the one procedure that decides whether a ranking report, or a signed bundle,
may be believed.

Whatever a caller holds (a report, the bundle it claims to come from, a trust file with
a signature, a pinned policy, the base branch's memory), it hands it to :func:`accept`,
and gets back an :class:`Accepted` report, or the first refusal. Every reader of
reports goes through it: ``verify``, ``gate``, ``apply``, ``explain``, ``render``,
``sign``, the ledger and the agentdescent integration; the views take an
:class:`Accepted` and never check anything themselves. (python-tuf's trusted
metadata set: one method per role, its steps numbered after the specification.)

:func:`accept` checks, in this order, stopping at the first refusal:

0. The reader's own choices are read first: the pinned config (``config.invalid``,
   exit 2) and the trust file (``trust.invalid``, exit 2); and the bundle, when
   given as bytes, loads (SPEC §1, ``input.*``, exit 3).
1. The report is a ranking report: I-JSON (``input.malformed_json``), an object
   whose ``schema`` is ``evidence-ranking-v1`` (``input.schema``, exit 3; a bundle
   given for a report is a mistake, not tampering).
2. Provenance, with a trust file: the bundle, or without a bundle the report, is
   signed by a key the trust file lists (``signature.*``, exit 4). A report's
   signature is over its seal, so its seal is checked first (``invariant.sealed``).
3. Integrity. Without the bundle: every SPEC §7 invariant the report alone can show
   (``invariant.<name>``, exit 4). With the bundle: the replay (SPEC §7, §8), the
   report byte for byte the one the bundle produces with the report's own config
   (``report.tampered``, exit 4), which implies every invariant. A forged report is
   refused here, before its policy or its base is discussed.
4. The pinned policy: the report was ranked with exactly ``config``
   (``policy.config_mismatch``, exit 1).
5. The base: the bundle's ``memory`` is exactly the base branch's memory, as
   canonical JSON (``policy.base_mismatch``, exit 1), so an old signed bundle cannot
   roll memory back.

Steps 4 and 5 are the reader's pins; both are checked before either refuses, and
:class:`NotPinned` carries every difference, so a gate can list them all.

:func:`accept_bundle` is steps 0 and 2 for a bundle about to be scored,
:func:`accept_validation` holds an earlier validation report to the bundle it is scored
with (``score --validation``), and :func:`accept_batch` accepts a batch folder's summary
with every report it names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

from curator_io.bundle import load_bundle
from curator_io.canonical import canon, is_sealed
from curator_io.catalogue import BUNDLE_SCHEMA, REPORT_SCHEMA, SUMMARY_SCHEMA, VALIDATION_SCHEMA
from curator_io.config import Config, load_config, parse_config
from curator_io.errors import (
    ConfigError,
    EvidenceRankError,
    InputError,
    InvariantError,
    PolicyError,
    SignatureError,
    TamperError,
    pointer_of,
)
from curator_io.grammar import shown
from curator_io.jsonio import parse_json
from curator_io.memory import MemoryFile
from curator_io.models import Bundle
from curator_io.report_model import RankingReport, ranking_report_of
from ranking.checking.policy import BaseMismatch, ConfigMismatch, base_mismatch, config_mismatches, describe_mismatches
from ranking.checking.verification import check_report, check_validation, replay
from ranking.pipeline import Result
from validator import Validation

if TYPE_CHECKING:
    from ranking.signing.signers import Signer
    from ranking.signing.trust import TrustList

__all__ = [
    "Sources",
    "NAMELESS",
    "Accepted",
    "Replayed",
    "SignedBundle",
    "NotPinned",
    "accept",
    "accept_bundle",
    "AcceptedValidation",
    "accept_validation",
    "AcceptedBatch",
    "accept_batch",
    "report_document",
]


@dataclass(frozen=True, slots=True)
class Sources:
    """Where each input came from (a path as given), for the file an error names; None for one
    that came from no file (bytes or a document handed over in memory)."""

    report: str | None = None
    bundle: str | None = None
    signature: str | None = None
    """Where the signature was looked for; with no signature bytes, the message names it."""
    trust: str | None = None
    config: str | None = None
    base: str | None = None
    memory_after: str | None = None
    """Not an input of acceptance: the gate's, named here with the others."""
    validation: str | None = None
    """An earlier validation report (``score --validation``)."""


NAMELESS = Sources()
"""Inputs handed over in memory, from no file."""


@dataclass(frozen=True, slots=True)
class Accepted:
    """A ranking report that passed every step :func:`accept` was asked to check.

    Made only by :func:`accept`: a view or a command that holds one shows it, and checks nothing."""

    document: Mapping[str, Any]
    """The report as parsed."""
    report: RankingReport
    """The report as its type."""
    signer: Signer | None
    """Who signed the bundle (without a bundle, the report); None without a trust file."""
    pinned: Config | None
    """The config the report was held to; None when none was pinned (the report's own was trusted)."""

    @property
    def canonical(self) -> bytes:
        """The report's canonical bytes (RFC 8785), as a ledger stores them."""
        return canon(self.document)

    @property
    def replayed(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class Replayed(Accepted):
    """An :class:`Accepted` report that the bundle replays byte for byte: the selection can be
    applied (SPEC §8), and the replay's validation explains every proposal's evidence."""

    bundle: Bundle
    result: Result
    """The replay: the validation and the report the pipeline produced from the bundle."""

    @property
    def replayed(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class SignedBundle:
    """A loaded bundle, and who signed it (None without a trust file)."""

    bundle: Bundle
    signer: Signer | None


class NotPinned(PolicyError):
    """Steps 4 and 5: a genuine report that does not pass the reader's pins. Exit 1, as a
    failed gate: every member of ``config`` that differs, and the base, when it differs."""

    def __init__(
        self,
        mismatches: tuple[ConfigMismatch, ...],
        base: BaseMismatch | None,
        signer: Signer | None,
        source: str | None,
    ) -> None:
        self.mismatches, self.base, self.signer = mismatches, base, signer
        if mismatches:
            detail = "the report was not ranked with the pinned policy: " + describe_mismatches(mismatches)
            super().__init__("policy.config_mismatch", detail, pointer=mismatches[0].pointer, source=source)
        else:
            assert base is not None  # Cannot fail: raised only when one of the two differs.
            super().__init__("policy.base_mismatch", base.describe(), pointer="", source=source)

    def diagnostics(self) -> str:
        if self.mismatches:
            return super().diagnostics()
        return "Curate a new bundle against the base branch's memory, then score and sign it."

    def __reduce__(self) -> tuple[Any, ...]:
        return NotPinned, (self.mismatches, self.base, self.signer, self.source)


@overload
def accept(
    report: bytes | Mapping[str, Any],
    *,
    bundle: Bundle | bytes,
    config: Config | Mapping[str, Any] | bytes | None = ...,
    trust: TrustList | bytes | None = ...,
    signature: bytes | None = ...,
    base: MemoryFile | None = ...,
    sources: Sources = ...,
) -> Replayed: ...


@overload
def accept(
    report: bytes | Mapping[str, Any],
    *,
    bundle: None = ...,
    config: Config | Mapping[str, Any] | bytes | None = ...,
    trust: TrustList | bytes | None = ...,
    signature: bytes | None = ...,
    base: MemoryFile | None = ...,
    sources: Sources = ...,
) -> Accepted: ...


def accept(
    report: bytes | Mapping[str, Any],
    *,
    bundle: Bundle | bytes | None = None,
    config: Config | Mapping[str, Any] | bytes | None = None,
    trust: TrustList | bytes | None = None,
    signature: bytes | None = None,
    base: MemoryFile | None = None,
    sources: Sources = NAMELESS,
) -> Accepted:
    """The report, accepted by the steps in this module's docstring; the first refusal raised.

    ``report`` is its bytes or the parsed document. ``bundle`` is the bundle it claims to
    come from (loaded, or its bytes). ``config`` is the pinned policy (a ``Config``, a
    config object, or a config file's bytes); None pins nothing. ``trust`` is a trust
    file (parsed, or its bytes) and ``signature`` the signature file's bytes (None: there
    is none). ``base`` is the base branch's memory file, as the reader makes it
    (``MemoryFile(raw, markdown=...)``: JSON or Markdown, read by the one door); None: the base
    is not checked. ``sources`` names the files, for errors.
    """
    # 0. The reader's own choices, then the bundle.
    pinned = _pinned(config, sources.config)
    trusted = _trusted(trust, sources.trust)
    loaded = _loaded(bundle, sources.bundle)
    with _in_file(sources.report):
        # 1. A ranking report.
        document = _report_document(report)
        # 2. Provenance (a report's signature is over its seal: the seal first; check_report's
        #    first invariant is the seal too, so without a trust file it is checked there once).
        if loaded is None and trusted is not None and not is_sealed(document):
            raise InvariantError("invariant.sealed", "the report's digest does not seal its content", pointer="/digest")
        signer = _signer(trusted, signature, loaded, document, sources)
        # 3. Integrity: the invariants, or with the bundle the replay that implies them.
        if loaded is None:
            model = check_report(document)
            replayed = None
        else:
            replayed = replay(loaded, document)
            # Cannot fail: the report is byte for byte the pipeline's own.
            model = ranking_report_of(document)
    # 4, 5. The pins, reported together.
    mismatches = config_mismatches(document, pinned) if pinned is not None else ()
    stale = None if base is None else _base_mismatch(loaded, base, sources.base)
    if mismatches or stale is not None:
        raise NotPinned(mismatches, stale, signer, sources.report if mismatches else sources.base)
    if replayed is None:
        return Accepted(document, model, signer, pinned)
    assert loaded is not None  # Cannot fail: replayed only with the bundle.
    return Replayed(document, model, signer, pinned, loaded, replayed)


def accept_bundle(
    bundle: Bundle | bytes,
    *,
    trust: TrustList | bytes | None = None,
    signature: bytes | None = None,
    sources: Sources = NAMELESS,
) -> SignedBundle:
    """Steps 0 and 2 for a bundle that is about to be scored: it loads (SPEC §1), and with a
    trust file it is signed by a key the file lists."""
    trusted = _trusted(trust, sources.trust)
    loaded = _loaded(bundle, sources.bundle)
    assert loaded is not None  # Cannot fail: a bundle was given.
    return SignedBundle(loaded, _signer(trusted, signature, loaded, None, sources))


@dataclass(frozen=True, slots=True)
class AcceptedValidation:
    """An earlier validation report that is exactly the one its bundle gives, and who signed the
    bundle (None without a trust file). Made only by :func:`accept_validation`."""

    validation: Validation
    """The validation recomputed from the bundle: what ranking goes on from."""
    signer: Signer | None
    bundle: Bundle
    """The bundle it was recomputed from."""


def accept_validation(
    validation: bytes | Mapping[str, Any],
    bundle: Bundle | bytes,
    *,
    config: Config,
    trust: TrustList | bytes | None = None,
    signature: bytes | None = None,
    sources: Sources = NAMELESS,
) -> AcceptedValidation:
    """An earlier validation report (``score --validation``; its bytes or the parsed document),
    held to ``bundle``, the bundle it is scored with:

    1. it is a validation report: I-JSON (``input.malformed_json``), an object whose ``schema``
       is ``evidence-validation-v1`` (``input.schema``, exit 3);
    2. the bundle loads, and with a trust file it is signed by a key the file lists
       (:func:`accept_bundle`: steps 0 and 2);
    3. SPEC §7, "scoring recomputes validation": the validation recomputed from the bundle with
       ``config`` is the report, sealed and identical (``validation.tampered``, exit 4).
    """
    with _in_file(sources.validation):  # 1.
        document = report_document(
            parse_json(validation) if isinstance(validation, bytes) else validation, VALIDATION_SCHEMA
        )
    signed = accept_bundle(bundle, trust=trust, signature=signature, sources=sources)  # 2.
    held = check_validation(signed.bundle, document, config=config)  # 3.
    return AcceptedValidation(held, signed.signer, signed.bundle)


@dataclass(frozen=True, slots=True)
class AcceptedBatch:
    """A batch folder's summary, sealed, and every report it names, each accepted and saying
    what the summary says of it. Made only by :func:`accept_batch`."""

    summary: Mapping[str, Any]
    reports: Mapping[int, Accepted]
    """Each scored bundle's report, by the bundle's ``index`` in the summary."""


def accept_batch(
    summary: Mapping[str, Any],
    reports: Mapping[int, bytes | Mapping[str, Any]],
    *,
    sources: Mapping[int, str] | None = None,
) -> AcceptedBatch:
    """A batch summary (its form already checked where it was read) and its reports, by index:

    1. the summary is a sealed ``evidence-rank-batch-v1`` summary (``summary.tampered``);
    2. each bundle it scored has its report, and :func:`accept` accepts it (``sources`` names
       each report's file, for errors);
    3. the report's run, outcome and selected are what the summary says (``summary.tampered``).
    """
    if not is_sealed(summary) or summary.get("schema") != SUMMARY_SCHEMA:  # 1.
        raise TamperError("summary.tampered", f"not a sealed {SUMMARY_SCHEMA} summary", pointer="/digest")
    names = sources or {}
    accepted: dict[int, Accepted] = {}
    for i, e in enumerate(summary["bundles"]):
        if e["outcome"] == "error":
            continue
        report = reports.get(e["index"])
        if report is None:  # 2.
            raise TamperError(
                "summary.tampered", f"no report for bundle {e['index']}", pointer=pointer_of("bundles", i)
            )
        one = accept(report, sources=Sources(report=names.get(e["index"])))
        said = (e["run"], e["outcome"], list(e["selected"]))
        if said != (one.report.run, one.report.outcome, list(one.report.selected)):  # 3.
            where = names.get(e["index"], f"bundle {e['index']}'s report")
            raise TamperError(
                "summary.tampered",
                f"bundle {e['index']}: the summary's run, outcome or selected differ from {where}",
                pointer=pointer_of("bundles", i),
            )
        accepted[e["index"]] = one
    return AcceptedBatch(summary, accepted)


# --- the steps ------------------------------------------------------------------------------


class _in_file:  # read as a function: the file an error found here is about
    """Name ``source`` in an error raised inside that names no file yet."""

    def __init__(self, source: str | None) -> None:
        self.source = source

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, tb: object) -> None:
        if isinstance(error, EvidenceRankError) and error.source is None and self.source is not None:
            raise error.in_file(self.source) from error


def _pinned(config: Config | Mapping[str, Any] | bytes | None, source: str | None) -> Config | None:
    if config is None or isinstance(config, Config):
        return config
    with _in_file(source):
        return load_config(config) if isinstance(config, bytes) else parse_config(config)


def _trusted(trust: TrustList | bytes | None, source: str | None) -> TrustList | None:
    if trust is None or not isinstance(trust, bytes):
        return trust
    from ranking.signing.trust import parse_trust  # only with a trust file: PyCA loads with it

    return parse_trust(trust, source or "<trust bytes>")


def _loaded(bundle: Bundle | bytes | None, source: str | None) -> Bundle | None:
    if bundle is None or isinstance(bundle, Bundle):
        return bundle
    with _in_file(source):
        return load_bundle(bundle)


#: What each document's ``schema`` member says it is, for telling a person what they passed.
_KINDS = {
    REPORT_SCHEMA: "a ranking report",
    VALIDATION_SCHEMA: "a validation report",
    BUNDLE_SCHEMA: "a curator bundle",
    SUMMARY_SCHEMA: "a batch summary",
}


def _report_document(report: bytes | Mapping[str, Any]) -> Mapping[str, Any]:
    doc = parse_json(report) if isinstance(report, bytes) else report
    return report_document(doc, REPORT_SCHEMA)


def report_document(doc: Any, schema: str) -> Mapping[str, Any]:
    """``doc`` when it is an object whose ``schema`` is ``schema``; else ``input.schema``, saying
    what it is instead."""
    wanted = _KINDS[schema]
    if not isinstance(doc, Mapping):
        raise InputError("input.schema", f"this is a JSON {_json_type(doc)}, not {wanted}", pointer="")
    found = doc.get("schema")
    if found == schema:
        return doc
    what = _KINDS.get(found) if type(found) is str else None
    detail = f"this is {what}, not {wanted}" if what else f"not {wanted}: its schema is {shown(found)}"
    if "schema" not in doc:
        detail = f"not {wanted}: it has no schema member"
    raise InputError("input.schema", f"{detail} (expected schema {schema!r})", pointer="/schema")


def _json_type(doc: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(doc), "number")


def _signer(
    trust: TrustList | None,
    signature: bytes | None,
    bundle: Bundle | None,
    report: Mapping[str, Any] | None,
    sources: Sources,
) -> Signer | None:
    """Step 2: who signed the bundle, or without one the report (its seal checked already)."""
    if trust is None:
        return None
    from ranking.signing.trust import check_signature

    kind, digest, document = (
        ("bundle", bundle.input_digest, sources.bundle)
        if bundle is not None
        else ("report", str(report["digest"]) if report is not None else "", sources.report)
    )
    if signature is None:
        where = sources.signature
        detail = (
            f"the {kind} is not signed: there is no signature file {where!r}, and the trust file "
            f"{trust.source!r} requires one by a key it lists"
            if where is not None
            else f"the {kind} was given without a signature, and the trust file {trust.source!r} requires one"
        )
        raise SignatureError("signature.unsigned", detail, source=document)
    with _in_file(sources.signature):
        return check_signature(signature, trust, kind=kind, digest=digest)


def _base_mismatch(bundle: Bundle | None, base: MemoryFile, source: str | None) -> BaseMismatch | None:
    """Step 5: the base branch's memory (JSON or Markdown, read by the one door) against the bundle's."""
    if bundle is None:
        raise ConfigError("usage.invalid_option", "the base is checked against a bundle: give the bundle too")
    with _in_file(source):
        return base_mismatch(bundle.memory, base.document.memory)
