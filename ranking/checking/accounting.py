"""The CI gate's comparison (SPEC §8): every difference between the memory a Writer produced and
the memory the selection permits, each a finding that says whether the selection accounts for
it. Pure: memory objects in, a :class:`~ranking.checking.findings.GateResult` out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from curator_io.canonical import canon
from curator_io.errors import pointer_of
from curator_io.memory_object import check_compared
from ranking.checking.findings import KINDS, Finding, GateResult

__all__ = ["compare_memory"]

_Instructions = dict[str, tuple[int, Mapping[str, Any]]]
"""key -> (index in its ``instructions`` array, the instruction object)."""


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
    items = check_compared(actual, "memory-after")
    out: _Instructions = {}
    findings: list[Finding] = []
    for i, inst in enumerate(items):
        key = inst["key"]
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
