"""The CI gate (SPEC §8): compare the memory a Writer produced with the memory
the selection permits, and say what the selection does not account for.

Pure: the CLI reads the files and the environment; this module only compares
JSON values. How the findings are shown (text, canonical JSON, GitHub workflow
commands, a Markdown summary) is :mod:`ranking.views.gate`.

First the base (SPEC §8 starts from the bundle's ``memory``): the bundle must have been
curated against the memory the change is applied to, the base branch's. An old signed
bundle replayed against a newer base would otherwise roll memory back; a bundle whose
``memory`` is not exactly the base (as canonical JSON) is one ``base_mismatch`` finding
naming both versions and digests, and memory-after is then not compared.

Then the report's policy: replay proves a report is the bundle's under the
config the report carries, which whoever commits the report chooses. The gate
pins the config (``ranking.checking.policy``); each member that differs is a
``config_mismatch`` finding pointing into the report, and memory-after is then
not compared at all: the selection it would be compared with was made under a
policy the gate does not accept, so findings against it would only mislead.

Every key of the bundle's memory (``base``), of the permitted memory and of
the memory-after is classified once:

1. memory-after has exactly the permitted instruction: nothing to say;
2. the selection does not touch the key, yet memory-after differs: the write is
   *not accounted for* (``unexpected_addition``, ``unexpected_change``,
   ``unexpected_removal``);
3. the selection edits the key and memory-after still has the bundle's
   instruction: the selected edit is *missing* (``missing_edit``);
4. the selection edits the key and memory-after has something else again:
   ``unexpected_change`` or ``unexpected_removal``, naming the selected edit.

Instructions are compared by key, as canonical JSON (RFC 8785); their order in
memory-after does not matter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from curator_io import grammar as g
from curator_io.canonical import canon, sha256_digest
from curator_io.errors import InputError, pointer_of
from curator_io.models import Bundle
from curator_io.report_model import RankingReport
from ranking.checking.policy import ConfigMismatch
from validator import proposals_of

if TYPE_CHECKING:
    from ranking.signing.trust import Signer

__all__ = [
    "KINDS",
    "UNCHECKED",
    "BaseMismatch",
    "Finding",
    "GateResult",
    "base_mismatch",
    "check_memory_object",
    "compare_memory",
    "policy_result",
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
)

#: What a gate can be told not to check, in the order it says so: who signed the bundle
#: (no trust file) and which memory the bundle was curated against (no base).
UNCHECKED = ("signature", "base")

_Instructions = dict[str, tuple[int, Mapping[str, Any]]]
"""key -> (index in its ``instructions`` array, the instruction object)."""


@dataclass(frozen=True, slots=True)
class BaseMismatch:
    """The bundle's ``memory`` and the base branch's memory, when they differ."""

    bundle_version: Any
    bundle_digest: str
    base_version: Any
    base_digest: str

    def to_json(self) -> dict[str, Any]:
        return {
            "bundle": {"version": self.bundle_version, "digest": self.bundle_digest},
            "base": {"version": self.base_version, "digest": self.base_digest},
        }


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

    @property
    def passed(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "version": self.version,
            "instructions": self.instructions,
            "findings": [f.to_json() for f in self.findings],
            "signer": None if self.signer is None else self.signer.to_json(),
            "unchecked": list(self.unchecked),
        }


def selected_edits(bundle: Bundle, report: RankingReport) -> dict[str, tuple[str, ...]]:
    """key -> the selected proposals (in rank order) that edit it.

    The report must already be this bundle's (``ranking.checking.verification.replay_report``).
    """
    by_id = proposals_of(bundle)
    edits: dict[str, list[str]] = {}
    for pid in report.selected:
        for op in by_id[pid].operations:  # Cannot fail: only complete proposals are selected.
            edits.setdefault(op.key, []).append(pid)
    return {key: tuple(ids) for key, ids in edits.items()}


def base_mismatch(bundle_memory: Mapping[str, Any], base: Any) -> Finding | None:
    """``base_mismatch`` unless the bundle's ``memory`` is exactly ``base``, the memory on the
    base branch, as canonical JSON (RFC 8785): member order and ``8`` vs ``8.0`` do not count.

    Raises ``input.schema`` when ``base`` is not a memory object (:func:`check_memory_object`).
    """
    check_memory_object(base, "memory-before")
    ours, theirs = canon(bundle_memory), canon(base)
    if ours == theirs:
        return None
    mismatch = BaseMismatch(
        bundle_memory.get("version"), sha256_digest(ours), base.get("version"), sha256_digest(theirs)
    )
    message = (
        f"the bundle was curated against memory version {_show(mismatch.bundle_version)} ({mismatch.bundle_digest}), "
        f"but the base is version {_show(mismatch.base_version)} ({mismatch.base_digest}): applying an old or "
        "replayed bundle would roll memory back; curate a new bundle against the base"
    )
    return Finding("base_mismatch", None, "", message, mismatch=mismatch)


def policy_result(mismatches: tuple[ConfigMismatch, ...], base: Finding | None = None) -> GateResult:
    """The gate's result when memory-after is not compared: the ``base_mismatch`` (:func:`base_mismatch`),
    if any, then one ``config_mismatch`` per member (``ranking.checking.policy.config_mismatches``)."""
    findings = (() if base is None else (base,)) + tuple(
        Finding(
            "config_mismatch",
            None,
            m.pointer,
            f"config member {m.member!r} is {m.found_text} in the report; the pinned policy has {m.pinned_text}",
            (m.member,),
            m,
        )
        for m in mismatches
    )
    return GateResult(findings, None, None)


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


def check_memory_object(value: Any, role: str) -> None:
    """``input.schema`` unless ``value`` is an object that is not a whole document (``role``
    names the file in the message: ``memory-after``, ``memory-before``)."""
    if type(value) is not dict:
        raise InputError("input.schema", f"{role} must be a memory object {{version, instructions}}", pointer="")
    if "schema" in value and "memory" in value:
        # A whole bundle has an ``instructions`` array too (the ones in force): never compare that by mistake.
        raise InputError(
            "input.schema",
            f'{role} is a whole document; pass its memory object (the "memory" member)',
            pointer="/memory",
        )


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
