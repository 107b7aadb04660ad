"""The gate of a Markdown memory change that carries no curated run (docs/gate.md, "Pull requests
without a curated run"): a change people wrote, and the adoption of a file written by hand.

1. ``mode="auto"`` picks the mode from the two files (:func:`gate_mode`): a base with no managed
   section is an *adoption*; a memory-after whose section is the base's, byte for byte, is a
   *person's* change; anything else is *curated*, and needs the bundle and the report.
2. A person's change (:func:`gate_person`): the section is the base's byte for byte (else one
   ``section_changed`` finding, at the first line that differs), and the prose is held as the
   curated gate holds it (:mod:`ranking.checking.prose`): each change is a ``prose_changed``
   finding, or, with ``allow_prose_changes``, listed and accepted.
3. The adoption (:func:`gate_adoption`): memory-after's section is at version 0, and what it took
   from the base is whole list items of the base's prose, each an instruction with the item's
   words: every other line the base had is still there, and the only lines
   added are the section's and empty ones. An instruction no removed item holds is an
   ``unexpected_addition``; any other change of the prose a ``prose_changed``. Which items a team
   adopts (all, those of one heading, none) is its choice, made by ``memory import``; the gate
   checks only that nothing but those items moved, and nothing was written that the base lacks.
4. Look-alikes: each list item memory-after's prose adds that resembles an instruction of the
   section is a warning (:class:`ranking.advice.comparisons.Memory`), as a curated write's are.

Pure: the read files in, a :class:`~ranking.checking.findings.GateResult` out.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from curator_io.errors import ConfigError, InputError, pointer_of
from curator_io.markdown.document import MarkdownMemory, decoded_text, split_lines
from curator_io.markdown.structure import read_blocks
from curator_io.memory import MemoryFile
from ranking.advice.comparisons import Memory
from ranking.checking.findings import MODES, Finding, GateResult, ProseLookalikeWarning
from ranking.checking.prose import prose_changes

__all__ = ["MODES", "gate_mode", "gate_person", "gate_adoption"]

#: The gate's modes: ``curated`` (a bundle and a report), ``person``, ``adoption``, or ``auto``.

_SPACE = re.compile(r"\s+")


def gate_mode(after: MemoryFile, base: MemoryFile) -> str:
    """Step 1: ``adoption``, ``person`` or ``curated``, from the files alone. Raises what reading
    memory-after raises (it must hold a section), and the base's refusal other than having none."""
    if _section_of(base) is None:
        return "adoption"
    mine, theirs = _section_text(after), _section_text(base)
    return "person" if mine == theirs else "curated"


def gate_person(
    after: MemoryFile, base: MemoryFile, *, allow_prose_changes: bool = False, fail_on_lookalikes: bool = False
) -> GateResult:
    """Step 2: memory-after's section is the base's, byte for byte; its prose is held."""
    found, theirs = _markdown(after), _markdown(base)
    findings: tuple[Finding, ...] = ()
    mine_text, their_text = _section_text(after), _section_text(base)
    if mine_text != their_text:
        line = found.start + _first_difference(mine_text, their_text)
        why = (
            f"the managed section is not the base's (line {line} differs): a change with no curated run may not "
            "change an instruction; run the curator and apply its ranked report, or leave the section as it is"
        )
        findings = (Finding("section_changed", None, "", why, at=(line, 1), markdown=True),)
    prose = tuple(
        Finding(
            "prose_changed",
            None,
            "",
            change.describe(),
            at=None if change.at is None else (change.at, 1),
            markdown=True,
        )
        for change in prose_changes(found, theirs)
    )
    return _result(found, findings, prose, allow_prose_changes, fail_on_lookalikes, "person")


def gate_adoption(
    after: MemoryFile, base: MemoryFile, *, allow_prose_changes: bool = False, fail_on_lookalikes: bool = False
) -> GateResult:
    """Step 3: memory-after adopts the base, which has no section: only whole list items moved in."""
    if _section_of(base) is not None:
        raise ConfigError(
            "usage.invalid_option", "--mode adoption: the base has a managed section already; nothing is adopted"
        )
    found = _markdown(after)
    base_lines = [text + end for text, end in split_lines(decoded_text(base.raw))]
    mine = found.prose_lines()
    items = _base_items(base.raw)
    instructions = found.memory["instructions"]
    taken: list[str] = []
    prose: list[Finding] = []
    matcher = difflib.SequenceMatcher(a=base_lines, b=[t or "" for _, t in mine], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        added = [n for n, text in mine[j1:j2] if text is not None and text.strip()]
        removed = [i for i in range(i1, i2) if base_lines[i].strip()]
        whole = [item for item in items if item[0] in removed]
        spans = [{i for i in range(first, last) if base_lines[i].strip()} for first, last, _ in whole]
        covered = set().union(*spans)
        if added or covered != set(removed):
            at = mine[j1][0] if j1 < len(mine) else mine[-1][0]
            why = (
                "the adoption changed the prose at line "
                f"{at}: only whole list items of the base may move into the section, and only empty lines be added"
            )
            prose.append(Finding("prose_changed", None, "", why, at=(at, 1), markdown=True))
            continue
        taken += [words for _, _, words in whole]
    findings: list[Finding] = []
    if found.memory["version"] != 0:
        why = f"an adopted memory starts at version 0; memory-after's section has version {found.memory['version']}"
        findings.append(
            Finding("version_mismatch", None, "/version", why, at=found.position("/version"), markdown=True)
        )
    for i, inst in enumerate(instructions):
        words = _words(inst["text"])
        if words in taken:
            taken.remove(words)
            continue
        pointer = pointer_of("instructions", i)
        why = f"instruction {inst['key']!r} is no list item the base's prose held: an adoption writes nothing new"
        findings.append(
            Finding("unexpected_addition", inst["key"], pointer, why, at=found.position(pointer), markdown=True)
        )
    return _result(found, tuple(findings), tuple(prose), allow_prose_changes, fail_on_lookalikes, "adoption")


def _result(
    found: MarkdownMemory,
    findings: tuple[Finding, ...],
    prose: tuple[Finding, ...],
    allow_prose_changes: bool,
    fail_on_lookalikes: bool,
    mode: str,
) -> GateResult:
    if not allow_prose_changes:
        findings, prose = findings + prose, ()
    return GateResult(
        findings,
        found.memory["version"],
        len(found.memory["instructions"]),
        None,
        ("prose",) if allow_prose_changes and prose else (),
        prose_changes=prose,
        warnings=_prose_lookalikes(found),
        fail_on_lookalikes=fail_on_lookalikes,
        mode=mode,
    )


def _prose_lookalikes(found: MarkdownMemory) -> tuple[ProseLookalikeWarning, ...]:
    """Step 4: each list item of the prose that resembles an instruction of the section (the pairs
    :class:`ranking.advice.comparisons.Memory` chooses), by line, then in the section's order."""
    from ranking.advice.lookalikes import lookalikes_for

    at: dict[str, int] = {}
    for i, inst in enumerate(found.memory["instructions"]):
        at.setdefault(inst["key"], i)
    return tuple(
        ProseLookalikeWarning(
            f.subject.line or 0, f.other.key, f.score, f.words, pointer_of("instructions", at[f.other.key]), f.advice()
        )
        for f in sorted(lookalikes_for(Memory(found)), key=lambda f: (f.subject.line or 0, at[f.other.key]))
    )


def _markdown(memory: MemoryFile) -> MarkdownMemory:
    document = memory.document
    if document.markdown is None:
        raise ConfigError(
            "usage.invalid_option",
            f"{memory.source or 'memory'}: a change without a curated run is gated on a Markdown memory (.md) only",
        )
    return document.markdown


def _section_of(memory: MemoryFile) -> MarkdownMemory | None:
    """The base read as a Markdown memory; None when it has no managed section (what adoption is for)."""
    try:
        return _markdown(memory)
    except InputError as e:
        if e.code != "input.markdown_no_section":
            raise
        return None


def _section_text(memory: MemoryFile) -> str:
    """The section's text as the file holds it, line endings included: between the prose before and after."""
    found = _markdown(memory)
    text = decoded_text(memory.raw)
    return text[len(found.before) : len(text) - len(found.after)]


def _first_difference(a: str, b: str) -> int:
    """How many line endings ``a`` holds before its first character that is not ``b``'s."""
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return len(split_lines(a[:n])) - 1


def _words(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _base_items(raw: bytes) -> list[tuple[int, int, str]]:
    """(first line, line after, its words) of each top-level bullet item of the base (0-based):
    what an adoption may move into the section."""
    text = decoded_text(raw).removeprefix("\ufeff")
    lines = [line for line, _ in split_lines(text)]
    tokens: Any = read_blocks(text, lines).tokens
    out = []
    for token in tokens:
        if token.type == "list_item_open" and token.level == 1 and token.markup in ("-", "*", "+"):
            first, last = token.map
            body = " ".join(lines[first:last]).strip()
            out.append((first, last, _words(body[1:])))
    return out
