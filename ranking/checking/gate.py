"""The CI gate (SPEC §8): accept the report against the bundle, the pinned policy, the
trust file and the base, then compare the memory a Writer produced with the memory the
selection permits, and say what the selection does not account for.

Pure: the CLI reads the files and the environment; :func:`gate` takes their bytes (and
each memory file as the reader made it, a :class:`~curator_io.memory.MemoryFile`) and
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
   Every finding and warning knows where it is in its file, whatever the form
   (:attr:`Finding.at`: a Markdown memory's line, or the place its pointer names in JSON text,
   :meth:`~curator_io.memory.MemoryFile.position`), so that a view only shows it.
5. Advice beside the verdict: each instruction memory-after adds or changes the text of
   that resembles another instruction it keeps (or an applicable one) under another key is
   a ``lookalike`` warning (what is compared: :mod:`ranking.advice.comparisons`). A warning
   fails the gate only when the caller asks (``fail_on_lookalikes``): keys are SPEC's
   identity, and a look-alike is a reviewer's question, not a rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from curator_io.config import Config
from curator_io.errors import ConfigError, InputError, pointer_of
from curator_io.memory import MemoryDocument, MemoryFile
from curator_io.models import Bundle
from curator_io.positions import JsonPlaces, text_of
from ranking.advice.comparisons import Gate, choose
from ranking.checking.acceptance import NAMELESS, NotPinned, Replayed, Sources, accept
from ranking.checking.accounting import compare_memory
from ranking.checking.apply import apply_selection
from ranking.checking.findings import KINDS, UNCHECKED, Finding, GateResult, LookalikeWarning
from ranking.checking.prose import prose_changes
from validator import proposals_of

if TYPE_CHECKING:
    from ranking.advice.lookalikes import Lookalike, Lookalikes
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


#: A finding or a look-alike warning, given its place in its file.
_Placed = TypeVar("_Placed", Finding, LookalikeWarning)


def gate(
    report: bytes | Mapping[str, Any],
    bundle: Bundle | bytes,
    memory_after: MemoryFile,
    *,
    config: Config,
    base: MemoryFile | None = None,
    trust: TrustList | bytes | None = None,
    signature: bytes | None = None,
    sources: Sources = NAMELESS,
    allow_prose_changes: bool = False,
    fail_on_lookalikes: bool = False,
) -> GateResult:
    """The gate's verdict on memory-after, by the steps in this module's docstring.

    ``memory_after`` and ``base`` are memory files as the reader makes them
    (:class:`~curator_io.memory.MemoryFile`: their bytes and form, JSON or Markdown), each read
    once, by :func:`~curator_io.memory.read_memory`; ``base`` None: the base is not checked, and
    the result says so. ``config`` is the pinned policy, read already; ``trust`` and ``signature`` as
    :func:`~ranking.checking.acceptance.accept` takes them (no trust file: the signature is not
    checked, and the result says so); ``fail_on_lookalikes``: a look-alike warning fails the gate
    too. Raises the acceptance's refusals, and ``input.*`` for a memory-after that is not a
    memory object."""
    if config is None:  # a library door fails closed: no pinned policy would trust the report's own
        raise ConfigError(
            "usage.invalid_option",
            "gate needs the pinned policy: config= a Config (curator_io.config.load_config reads a file's bytes; "
            "curator_io.config.DEFAULT_CONFIG is SPEC §2's defaults); None would believe the report's own",
        )
    skipped = {"signature": trust is None, "base": base is None, "prose": False}
    try:  # 1.
        accepted = accept(
            report, bundle=bundle, config=config, trust=trust, signature=signature, sources=sources, base=base
        )
    except NotPinned as e:  # 2.
        findings = _pin_findings(e, base, report)
        return GateResult(findings, None, None, e.signer, _unchecked(skipped), fail_on_lookalikes=fail_on_lookalikes)
    permitted = apply_selection(accepted)  # 3.
    try:
        after = memory_after.written  # a repeated key kept, JSON or Markdown: a finding, not a refusal
        result = compare_memory(permitted, after.memory, accepted.bundle.memory, selected_edits(accepted))
    except InputError as e:
        raise (e.in_file(sources.memory_after) if sources.memory_after is not None and e.source is None else e) from e
    findings = tuple(_placed(f, memory_after) for f in result.findings)
    theirs = None if base is None else base.document
    has_prose = after.markdown is not None or (theirs is not None and theirs.markdown is not None)
    prose = _prose_findings(memory_after, theirs) if has_prose else ()  # 4.
    skipped["prose"] = has_prose and (base is None or allow_prose_changes)
    if not allow_prose_changes:
        findings, prose = findings + prose, ()
    found = _lookalikes(accepted.bundle, after.memory, _prose_rules(after))  # 5.
    warnings = tuple(_placed(w, memory_after) for w in _warnings(found, after.memory))
    return GateResult(
        findings,
        result.version,
        result.instructions,
        accepted.signer,
        _unchecked(skipped),
        prose_changes=prose,
        warnings=warnings,
        fail_on_lookalikes=fail_on_lookalikes,
        lookalikes_left_out=0 if found is None else found.left_out,
    )


def _placed(f: _Placed, file: MemoryFile) -> _Placed:
    """``f`` with its place in ``file``, JSON or Markdown."""
    return replace(f, at=file.position(f.pointer), markdown=file.markdown)


def _prose_rules(after: MemoryDocument) -> tuple[tuple[int, str], ...]:
    """The rules memory-after's prose holds (a Markdown memory's list items); none in JSON."""
    return () if after.markdown is None else after.markdown.prose_rules


def lookalike_warnings(
    bundle: Bundle, actual: Mapping[str, Any], prose: tuple[tuple[int, str], ...] = ()
) -> tuple[LookalikeWarning, ...]:
    """Step 5: a warning for each look-alike of an instruction memory-after (already compared,
    so a memory object) adds or changes, pointing at the instruction's first place in it; with
    ``prose``, the rules of its prose are compared with too."""
    return _warnings(_lookalikes(bundle, actual, prose), actual)


def _lookalikes(
    bundle: Bundle, actual: Mapping[str, Any], prose: tuple[tuple[int, str], ...] = ()
) -> Lookalikes | None:
    """The look-alikes of what memory-after adds or changes (:class:`ranking.advice.comparisons.Gate`
    says against what); None, and no measure imported, when the chooser finds it adds or changes
    nothing (the common gate: a write of what the base already held)."""

    chosen = choose(Gate(bundle, actual, prose))
    if not chosen.subjects:
        return None
    from ranking.advice.lookalikes import match

    return match(chosen)


def _warnings(found: Iterable[Lookalike] | None, actual: Mapping[str, Any]) -> tuple[LookalikeWarning, ...]:
    if not found:
        return ()
    first: dict[str, int] = {}
    for i, inst in enumerate(actual["instructions"]):
        first.setdefault(inst["key"], i)
    return tuple(LookalikeWarning(f, pointer_of("instructions", first[f.subject.key])) for f in found)


def _unchecked(skipped: Mapping[str, bool]) -> tuple[str, ...]:
    return tuple(name for name in UNCHECKED if skipped[name])


def _prose_findings(after: MemoryFile, base: MemoryDocument | None) -> tuple[Finding, ...]:
    """A ``prose_changed`` finding for each run of prose that is not the base's (step 4), at its
    line (in a JSON memory-after, which holds no prose, at the memory); none without a base, which
    the result says it did not check."""
    if base is None:
        return ()
    return tuple(
        Finding(
            "prose_changed",
            None,
            "",
            change.describe(),
            at=after.position("") if change.at is None else (change.at, 1),
            markdown=after.markdown,
        )
        for change in prose_changes(after.written.markdown, base.markdown)
    )


def selected_edits(accepted: Replayed) -> dict[str, tuple[str, ...]]:
    """key -> the selected proposals (in rank order) that edit it."""
    by_id = proposals_of(accepted.bundle)
    edits: dict[str, list[str]] = {}
    for pid in accepted.report.selected:
        for op in by_id[pid].operations:  # Cannot fail: only complete proposals are selected.
            edits.setdefault(op.key, []).append(pid)
    return {key: tuple(ids) for key, ids in edits.items()}


def _pin_findings(
    refusal: NotPinned, base_file: MemoryFile | None, report: bytes | Mapping[str, Any]
) -> tuple[Finding, ...]:
    """The ``base_mismatch``, if any (at the base's memory: a Markdown base's start marker), then
    one ``config_mismatch`` per member, each where its pointer is in the report's text (when it
    was given as bytes)."""
    base: tuple[Finding, ...] = ()
    if refusal.base is not None:
        mismatch = Finding("base_mismatch", None, "", refusal.base.describe(), mismatch=refusal.base)
        base = (mismatch if base_file is None else _placed(mismatch, base_file),)
    places = JsonPlaces(text_of(report)) if isinstance(report, bytes) and refusal.mismatches else None
    return base + tuple(
        Finding(
            "config_mismatch",
            None,
            m.pointer,
            f"config member {m.member!r} is {m.found_text} in the report; the pinned policy has {m.pinned_text}",
            (m.member,),
            m,
            at=None if places is None else places.position(m.pointer),
        )
        for m in refusal.mismatches
    )
