"""The CI gate (SPEC §8): accept the report against the bundle, the pinned policy, the
trust file and the base, then compare the memory a Writer produced with the memory the
selection permits, and say what the selection does not account for.

Pure: the CLI reads the files and the environment; :func:`gate` takes their bytes and
decides. How the findings are shown (text, canonical JSON, GitHub workflow commands, a
Markdown summary) is :mod:`ranking.views.gate`.

1. The report is accepted (:func:`ranking.checking.acceptance.accept`): provenance, then
   the replay from the bundle, so a forged report is refused (exit 4) before anything
   else is said of it.
2. The pins: a bundle whose ``memory`` is not exactly the base's is one ``base_mismatch``
   finding naming both versions and digests; each member of the report's config that is
   not the pinned policy's is a ``config_mismatch`` finding pointing into the report.
   After either, memory-after is not compared: the selection it would be compared with
   was made for another memory, or under a policy the gate does not accept, so findings
   against it would only mislead.
3. Every key of the bundle's memory (``base``), of the permitted memory and of
   memory-after is classified once:

   1. memory-after has exactly the permitted instruction: nothing to say;
   2. the selection does not touch the key, yet memory-after differs: the write is
      *not accounted for* (``unexpected_addition``, ``unexpected_change``,
      ``unexpected_removal``);
   3. the selection edits the key and memory-after still has the bundle's
      instruction: the selected edit is *missing* (``missing_edit``);
   4. the selection edits the key and memory-after has something else again:
      ``unexpected_change`` or ``unexpected_removal``, naming the selected edit.

Instructions are compared by key, as canonical JSON (RFC 8785); their order in
memory-after does not matter, nor whether it is indented.

4. A Markdown memory (docs/markdown-memory.md) holds prose around its managed section, which
   an agent reads as instructions too: each run of prose lines that differs from the base's
   (:mod:`ranking.checking.prose`; a JSON base has none) is a ``prose_changed`` finding, or,
   with ``allow_prose_changes``, a change the result lists and says it did not check.
   Every finding in a Markdown memory-after knows its line (:attr:`Finding.at`).
5. Advice beside the verdict: each instruction memory-after adds or changes the text of
   that resembles another instruction it keeps (or an applicable one) under another key is
   a ``lookalike`` warning (:mod:`ranking.advice.lookalikes`). A warning fails the gate only
   when the caller asks (``fail_on_lookalikes``): keys are SPEC's identity, and a look-alike
   is a reviewer's question, not a rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from curator_io import grammar as g
from curator_io.canonical import canon
from curator_io.config import Config
from curator_io.errors import ConfigError, InputError, pointer_of
from curator_io.jsonio import parse_json
from curator_io.memory import MemoryDocument, MemoryFile
from curator_io.models import Bundle
from ranking.advice.lookalikes import Lookalike, find_lookalikes
from ranking.checking.acceptance import NAMELESS, NotPinned, Replayed, Sources, accept
from ranking.checking.apply import apply_selection
from ranking.checking.policy import BaseMismatch, ConfigMismatch, check_memory_object
from ranking.checking.prose import prose_changes
from validator import proposals_of

if TYPE_CHECKING:
    from ranking.signing.signers import Signer
    from ranking.signing.trust import TrustList

__all__ = [
    "KINDS",
    "UNCHECKED",
    "Finding",
    "LookalikeWarning",
    "GateResult",
    "gate",
    "compare_memory",
    "lookalike_warnings",
    "selected_edits",
]

#: Every kind of finding, in the order findings are reported.
KINDS = (
    "base_mismatch",
    "config_mismatch",
    "version_mismatch",
    "unexpected_member",
    "duplicate_key",
    "unexpected_addition",
    "unexpected_change",
    "unexpected_removal",
    "missing_edit",
    "prose_changed",
)

#: What a gate can be told not to check, in the order it says so: who signed the bundle
#: (no trust file), which memory the bundle was curated against (no base), and the prose
#: around a Markdown memory's section (``--allow-prose-changes``, or no base to compare it with).
UNCHECKED = ("signature", "base", "prose")

_Instructions = dict[str, tuple[int, Mapping[str, Any]]]
"""key -> (index in its ``instructions`` array, the instruction object)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One write the selection does not account for, one selected edit that is missing,
    one member of the report's config that is not the pinned policy's, or a bundle
    curated against another memory than the base."""

    kind: str
    key: str | None
    """The instruction key; null for the version, other memory members and config members."""
    pointer: str
    """A JSON Pointer into :attr:`document` (where the instruction is, or where it should be)."""
    message: str
    members: tuple[str, ...] = ()
    """For ``unexpected_change``: the members of the instruction that differ;
    for ``config_mismatch``: the config member."""
    mismatch: ConfigMismatch | BaseMismatch | None = None
    """For ``config_mismatch``: the pinned value and the report's; for ``base_mismatch``,
    the versions and digests of both memories."""
    at: tuple[int, int] | None = None
    """The 1-based line and column in :attr:`document` when it is a Markdown memory (a prose
    change, an instruction's item, the section's start marker); None for JSON, where
    :attr:`pointer` is found in the text (:mod:`ranking.views.positions`)."""

    @property
    def document(self) -> str:
        """The file :attr:`pointer` points into: ``report``, ``memory-before`` or ``memory-after``."""
        if isinstance(self.mismatch, ConfigMismatch):
            return "report"
        return "memory-before" if isinstance(self.mismatch, BaseMismatch) else "memory-after"

    def to_json(self) -> dict[str, Any]:
        out = {
            "kind": self.kind,
            "key": self.key,
            "document": self.document,
            "pointer": self.pointer,
            "message": self.message,
            "members": list(self.members),
        }
        if isinstance(self.mismatch, ConfigMismatch):
            values = self.mismatch.to_json()
            out |= {"pinned": values["pinned"], "report": values["report"]}
        elif isinstance(self.mismatch, BaseMismatch):
            out |= self.mismatch.to_json()
        return out


@dataclass(frozen=True, slots=True)
class LookalikeWarning:
    """An instruction memory-after adds or changes that resembles another instruction it keeps
    (or an applicable one) under another key: advice, a failure only with ``fail_on_lookalikes``."""

    lookalike: Lookalike
    pointer: str
    """Where the instruction is in memory-after (``/instructions/<index>``)."""
    at: tuple[int, int] | None = None
    """Its line and column when memory-after is a Markdown memory (its item); None for JSON."""

    kind = "lookalike"
    document = "memory-after"

    @property
    def key(self) -> str:
        return self.lookalike.subject.key

    @property
    def message(self) -> str:
        found = self.lookalike
        return (
            f"instruction {self.key!r} resembles {found.other.describe()} (score {found.score:g}; shared words: "
            f"{', '.join(found.words)}): {found.advice()}"
        )

    def to_json(self) -> dict[str, Any]:
        found = self.lookalike
        return {
            "kind": self.kind,
            "key": self.key,
            "document": self.document,
            "pointer": self.pointer,
            "message": self.message,
            "resembles": {"where": found.other.where, "key": found.other.key},
            "score": found.score,
            "words": list(found.words),
        }


@dataclass(frozen=True, slots=True)
class GateResult:
    findings: tuple[Finding, ...]
    version: Any
    """The ``version`` the selection permits; null when memory-after was not compared."""
    instructions: int | None
    """How many instructions the permitted memory holds; null when memory-after was not compared."""
    signer: Signer | None = None
    """Who signed the bundle, when the gate was given a trust file (docs/provenance.md)."""
    unchecked: tuple[str, ...] = ()
    """What the gate was told not to check, from :data:`UNCHECKED`: a pass says nothing of these."""
    prose_changes: tuple[Finding, ...] = ()
    """With ``allow_prose_changes``: each ``prose_changed`` the gate accepted, listed so that none
    passes silently."""
    warnings: tuple[LookalikeWarning, ...] = ()
    """Look-alikes the write adds or changes, in memory-after's key order; none when it was not compared."""
    fail_on_lookalikes: bool = False
    """Whether a warning fails the gate (``gate --fail-on-lookalikes``)."""

    @property
    def passed(self) -> bool:
        return not self.findings and not (self.fail_on_lookalikes and self.warnings)

    @property
    def places(self) -> tuple[tuple[str, str], ...]:
        """(document, pointer) of each finding and warning: where an annotation belongs."""
        findings = tuple((f.document, f.pointer) for f in self.findings)
        return findings + tuple((w.document, w.pointer) for w in self.warnings)

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "version": self.version,
            "instructions": self.instructions,
            "findings": [f.to_json() for f in self.findings],
            "warnings": [w.to_json() for w in self.warnings],
            "signer": None if self.signer is None else self.signer.to_json(),
            "unchecked": list(self.unchecked),
            "prose_changes": [f.to_json() for f in self.prose_changes],
        }


_SKIP: Any = object()


def gate(
    report: bytes | Mapping[str, Any],
    bundle: Bundle | bytes,
    memory_after: bytes | Any,
    *,
    config: Config | Mapping[str, Any] | bytes,
    base: Any = _SKIP,
    trust: TrustList | bytes | None = None,
    signature: bytes | None = None,
    sources: Sources = NAMELESS,
    allow_prose_changes: bool = False,
    fail_on_lookalikes: bool = False,
) -> GateResult:
    """The gate's verdict on memory-after (bytes of JSON, the parsed object, or a
    :class:`~curator_io.memory.MemoryFile`, JSON or Markdown), by the steps in this module's
    docstring. ``config`` is the pinned policy; ``base`` the base branch's memory, in the same
    forms (not given: the base is not checked, and the result says so); ``trust`` and
    ``signature`` as :func:`~ranking.checking.acceptance.accept` takes them (no trust file: the
    signature is not checked, and the result says so); ``fail_on_lookalikes``: a look-alike
    warning fails the gate too. Raises the acceptance's refusals, and ``input.*`` for a
    memory-after that is not a memory object."""
    if config is None:  # a library door fails closed: no pinned policy would trust the report's own
        raise ConfigError(
            "usage.invalid_option",
            "gate needs the pinned policy: config= a Config, a config object or its bytes "
            "(curator_io.config.DEFAULT_CONFIG for SPEC §2's defaults); None would believe the report's own",
        )
    skipped = {"signature": trust is None, "base": base is _SKIP, "prose": False}
    pins = {} if base is _SKIP else {"base": base}
    try:  # 1.
        accepted = accept(
            report, bundle=bundle, config=config, trust=trust, signature=signature, sources=sources, **pins
        )
    except NotPinned as e:  # 2.
        findings = _pin_findings(e, base if isinstance(base, MemoryFile) else None)
        return GateResult(findings, None, None, e.signer, _unchecked(skipped), fail_on_lookalikes=fail_on_lookalikes)
    permitted = apply_selection(accepted)  # 3.
    try:
        after = _document(memory_after)
        result = compare_memory(permitted, after.memory, accepted.bundle.memory, selected_edits(accepted))
    except InputError as e:
        raise (e.in_file(sources.memory_after) if sources.memory_after is not None and e.source is None else e) from e
    findings = tuple(replace(f, at=after.position(f.pointer)) for f in result.findings)
    prose = _prose_findings(after, base) if _has_prose(after, base) else ()  # 4.
    skipped["prose"] = _has_prose(after, base) and (base is _SKIP or allow_prose_changes)
    if not allow_prose_changes:
        findings, prose = findings + prose, ()
    warnings = tuple(  # 5.
        replace(w, at=after.position(w.pointer)) for w in lookalike_warnings(accepted.bundle, after.memory)
    )
    return GateResult(
        findings,
        result.version,
        result.instructions,
        accepted.signer,
        _unchecked(skipped),
        prose_changes=prose,
        warnings=warnings,
        fail_on_lookalikes=fail_on_lookalikes,
    )


def lookalike_warnings(bundle: Bundle, actual: Mapping[str, Any]) -> tuple[LookalikeWarning, ...]:
    """Step 5: a warning for each look-alike of an instruction memory-after (already compared,
    so a memory object) adds or changes, pointing at the instruction's first place in it."""
    first: dict[str, int] = {}
    for i, inst in enumerate(actual["instructions"]):
        first.setdefault(inst["key"], i)
    return tuple(
        LookalikeWarning(found, pointer_of("instructions", first[found.subject.key]))
        for found in find_lookalikes(bundle, written=actual)
    )


def _unchecked(skipped: Mapping[str, bool]) -> tuple[str, ...]:
    return tuple(name for name in UNCHECKED if skipped[name])


def _document(memory: Any) -> MemoryDocument:
    """Memory-after as the one door reads it: a MemoryFile's document, JSON bytes parsed, an object as it is."""
    if isinstance(memory, MemoryFile):
        return memory.document
    return MemoryDocument(parse_json(memory) if isinstance(memory, bytes) else memory)


def _has_prose(after: MemoryDocument, base: Any) -> bool:
    """Whether memory-after or the base is a Markdown memory, so there is prose to hold."""
    return after.markdown is not None or (isinstance(base, MemoryFile) and base.document.markdown is not None)


def _prose_findings(after: MemoryDocument, base: Any) -> tuple[Finding, ...]:
    """A ``prose_changed`` finding for each run of prose that is not the base's (step 4); none
    without a base, which the result says it did not check."""
    if base is _SKIP:
        return ()
    theirs = base.document.markdown if isinstance(base, MemoryFile) else None
    return tuple(
        Finding("prose_changed", None, "", change.describe(), at=None if change.at is None else (change.at, 1))
        for change in prose_changes(after.markdown, theirs)
    )


def selected_edits(accepted: Replayed) -> dict[str, tuple[str, ...]]:
    """key -> the selected proposals (in rank order) that edit it."""
    by_id = proposals_of(accepted.bundle)
    edits: dict[str, list[str]] = {}
    for pid in accepted.report.selected:
        for op in by_id[pid].operations:  # Cannot fail: only complete proposals are selected.
            edits.setdefault(op.key, []).append(pid)
    return {key: tuple(ids) for key, ids in edits.items()}


def _pin_findings(refusal: NotPinned, base_file: MemoryFile | None) -> tuple[Finding, ...]:
    """The ``base_mismatch``, if any (on a Markdown base's start marker), then one ``config_mismatch`` per member."""
    at = None if base_file is None else base_file.document.position("")
    base = (
        ()
        if refusal.base is None
        else (Finding("base_mismatch", None, "", refusal.base.describe(), mismatch=refusal.base, at=at),)
    )
    return base + tuple(
        Finding(
            "config_mismatch",
            None,
            m.pointer,
            f"config member {m.member!r} is {m.found_text} in the report; the pinned policy has {m.pinned_text}",
            (m.member,),
            m,
        )
        for m in refusal.mismatches
    )


def compare_memory(
    permitted: Mapping[str, Any],
    actual: Any,
    base: Mapping[str, Any] | None = None,
    edits: Mapping[str, tuple[str, ...]] | None = None,
) -> GateResult:
    """Every difference between ``actual`` (memory-after) and ``permitted`` (SPEC §8).

    ``base`` is the bundle's memory: with it, a difference is told apart as a
    write the selection does not account for or a selected edit that is
    missing. Without it every difference counts as not accounted for.
    ``edits`` (from :func:`selected_edits`) only names proposals in messages.

    Raises ``input.schema`` when ``actual`` is not a memory object
    (``{"version": INT, "instructions": [{"key": ...}, ...]}``).
    """
    after, findings = _index_actual(actual)
    expected = _index(permitted)
    before = _index(base) if base is not None else expected
    edits = edits or {}
    findings[:0] = _member_findings(permitted, actual)
    for key in sorted(expected.keys() | after.keys() | before.keys()):
        finding = _classify(key, before.get(key), expected.get(key), after.get(key), edits.get(key, ()))
        if finding is not None:
            findings.append(finding)
    order = {kind: i for i, kind in enumerate(KINDS)}
    ordered = sorted(findings, key=lambda f: (order[f.kind], f.key or "", f.pointer))
    return GateResult(tuple(ordered), permitted.get("version"), len(expected))


def _index(memory: Mapping[str, Any]) -> _Instructions:
    # Cannot fail: permitted and base memories come from a loaded bundle.
    return {inst["key"]: (i, inst) for i, inst in enumerate(memory["instructions"])}


def _index_actual(actual: Any) -> tuple[_Instructions, list[Finding]]:
    check_memory_object(actual, "memory-after")
    if "version" in actual and not g.is_int(actual["version"]):
        # A version of the wrong type is not a memory object (SPEC §1: memory.version is an INT):
        # the file is refused, not compared.
        detail = f"expected {g.INT.expected}, got {g.shown(actual['version'])}"
        raise InputError("input.schema", detail, pointer="/version")
    items = actual.get("instructions")
    if type(items) is not list:
        raise InputError("input.schema", "expected an array of instructions", pointer="/instructions")
    out: _Instructions = {}
    findings: list[Finding] = []
    for i, inst in enumerate(items):
        if type(inst) is not dict:
            raise InputError("input.schema", "expected an instruction object", pointer=pointer_of("instructions", i))
        key = inst.get("key")
        if type(key) is not str:
            raise InputError("input.schema", "expected a string key", pointer=pointer_of("instructions", i, "key"))
        if key in out:
            first = pointer_of("instructions", out[key][0])
            message = f"instruction key {key!r} appears more than once (first at {first}); memory keys are unique"
            findings.append(Finding("duplicate_key", key, pointer_of("instructions", i, "key"), message))
            continue
        out[key] = (i, inst)
    return out, findings


def _member_findings(permitted: Mapping[str, Any], actual: Mapping[str, Any]) -> list[Finding]:
    """SPEC §8: ``version`` becomes ``memory.version + 1`` (unchanged on ``no_op``); other members are kept."""
    findings = []
    version = permitted.get("version")
    if "version" not in actual:
        findings.append(
            Finding(
                "version_mismatch", None, "/version", f"memory-after has no version; the selection permits {version}"
            )
        )
    elif not _same(actual["version"], version):
        message = f"memory-after has version {_show(actual['version'])}; the selection permits {version}"
        findings.append(Finding("version_mismatch", None, "/version", message))
    for name in sorted((permitted.keys() | actual.keys()) - {"version", "instructions"}):
        if name not in actual:
            what = "was removed"
        elif name not in permitted:
            what = "was added"
        elif not _same(actual[name], permitted[name]):
            what = "was changed"
        else:
            continue
        message = f"memory member {name!r} {what}; only version and instructions may change"
        findings.append(Finding("unexpected_member", None, pointer_of(name), message))
    return findings


def _classify(
    key: str,
    before: tuple[int, Mapping[str, Any]] | None,
    expected: tuple[int, Mapping[str, Any]] | None,
    after: tuple[int, Mapping[str, Any]] | None,
    proposals: tuple[str, ...],
) -> Finding | None:
    b, p, a = (None if x is None else x[1] for x in (before, expected, after))
    if _same(a, p):
        return None
    here = pointer_of("instructions", after[0]) if after is not None else "/instructions"
    if _same(p, b):
        # The selection leaves this key alone: whatever memory-after did to it is not accounted for.
        if b is None:
            return Finding(
                "unexpected_addition", key, here, f"instruction {key!r} was added, but no selected proposal adds it"
            )
        if a is None:
            return Finding(
                "unexpected_removal", key, here, f"instruction {key!r} was removed, but no selected proposal removes it"
            )
        members = _differing_members(b, a)
        message = f"instruction {key!r} was changed ({', '.join(members)}), but no selected proposal changes it"
        return Finding("unexpected_change", key, here, message, members)
    action = "add" if b is None else "remove" if p is None else "replace"
    edit = f"the selected {action} of {key!r}" + (f" ({', '.join(proposals)})" if proposals else "")
    if _same(a, b):
        still = "memory-after does not have it" if a is None else "memory-after still has the bundle's instruction"
        return Finding("missing_edit", key, here, f"{edit} is missing: {still}")
    if a is None:
        return Finding("unexpected_removal", key, here, f"instruction {key!r} was removed, but {edit} keeps it")
    members = _differing_members(p if p is not None else b, a)  # type: ignore[arg-type]  # p and b are not both None
    if p is None:
        message = f"instruction {key!r} was changed ({', '.join(members)}), but {edit} removes it"
    else:
        message = f"instruction {key!r} differs from {edit} in {', '.join(members)}"
    return Finding("unexpected_change", key, here, message, members)


def _same(x: Any, y: Any) -> bool:
    """Equal as canonical JSON (so ``8`` and ``8.0`` are the same version, as JCS writes both ``8``)."""
    if x is None or y is None:
        return x is y
    return canon(x) == canon(y)


def _differing_members(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> tuple[str, ...]:
    names = expected.keys() | actual.keys()
    return tuple(sorted(n for n in names if n not in expected or n not in actual or not _same(expected[n], actual[n])))


def _show(value: Any) -> str:
    return canon(value).decode("utf-8")
