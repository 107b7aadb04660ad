"""ACE's skillbook read and written for the gate (:mod:`ranking.integrations.ace`): what one
sample's skill manager calls add up to on its staged copy (:func:`net_edits`), a selection
written with ACE's own ``Skillbook`` methods (:func:`write_selection`), the skillbook as a
bundle's memory (:func:`memory_of`). No ace import: the skillbooks are ACE's, passed in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from curator_io import seal
from ranking.integrations.ace_bundle import Edit, Pending, add_key, instruction_digest, instruction_of, text_of

__all__ = ["net_edits", "write_selection", "memory_of", "writable"]

Skillbook = Any
"""ACE's ``Skillbook`` (``ace.Skillbook``), which this module does not import."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def net_edits(
    live: Skillbook, staged: Skillbook, operations: Sequence[Any], repository: str
) -> tuple[tuple[Edit, ...], list[tuple[str, int, Any]]]:
    """What one sample's operations add up to, skill by skill: the staged copy against the live
    skillbook. A skill the sample added is one ``add`` of its final text (its later UPDATEs
    folded in, its TAGs carried with it, nothing when it removed it again), so a refused ADD
    takes its dependent edits with it. A text that cannot be written (a lone surrogate) is no
    edit. Also returns the TAGs of live skills (skill id, delta, source)."""
    added = list(dict.fromkeys(op.skill_id for op in operations if op.type == "ADD" and op.skill_id))
    changed = list(dict.fromkeys(op.skill_id for op in operations if op.type in ("UPDATE", "REMOVE")))
    sources = {op.skill_id: op.insight_source for op in operations}
    tags = [
        (op.skill_id, _sign(op.metadata.get("delta", 0)), op.insight_source) for op in operations if op.type == "TAG"
    ]
    edits = []
    for sid in added:
        skill = staged.get_skill(sid)
        if skill is None or not skill.active or not writable(text_of(skill)):
            continue
        text = text_of(skill)
        deltas = tuple(delta for tagged, delta, _ in tags if tagged == sid)
        edits.append(Edit("add", add_key(skill.section, text), text, None, skill, sources.get(sid), deltas))
    for sid in changed:
        before, after = live.get_skill(sid), staged.get_skill(sid)
        if sid in added or before is None or not before.active or after is None:
            continue
        expected = instruction_digest(sid, text_of(before), repository)
        if not after.active:
            edits.append(Edit("remove", sid, None, expected, after, sources.get(sid)))
        elif text_of(after) != text_of(before) and writable(text_of(after)):
            edits.append(Edit("replace", sid, text_of(after), expected, after, sources.get(sid)))
    return tuple(edits), [tag for tag in tags if tag[0] not in added]


def write_selection(skillbook: Skillbook, selected: Sequence[Pending], stamp: str) -> tuple[str, ...]:
    """Write the selected edits, in rank order, with ACE's own methods; returns the keys.
    A written skill records every sample that made the edit, and ``stamp`` (the window's
    latest observation) as its time, so the same samples write the same skillbook."""
    for p in selected:
        edit, sources = p.edit, [e.source for _, e in p.edits if e.source is not None]
        skill = edit.skill
        if edit.action == "add":
            if skillbook.get_skill(edit.key) is not None:
                skillbook.purge(edit.key)  # removed before (inactive): an active one is closure.key_exists
            skillbook.add_skill(
                skill.section,
                skill.issue,
                keywords=skill.keywords,
                insight=skill.insight,
                skill_id=edit.key,
                insight_source=sources,
            )
            for _, made in p.edits:
                for delta in made.tags:
                    skillbook.tag_skill(edit.key, delta, insight_source=made.source)
            skillbook.get_skill(edit.key).created_at = stamp
        elif edit.action == "replace":
            insight = "" if skill.insight is None else skill.insight  # "" clears it, as the staged copy's did
            skillbook.update_skill(
                edit.key, issue=skill.issue, keywords=skill.keywords, insight=insight, insight_source=sources
            )
        else:
            skillbook.remove_skill(edit.key, insight_source=sources)
        skillbook.get_skill(edit.key).updated_at = stamp
    return tuple(p.edit.key for p in selected)


def memory_of(skillbook: Skillbook, version: int, repository: str) -> dict[str, Any]:
    """The skillbook as a bundle's memory (SPEC §1): a sealed instruction per active skill, in key order."""
    skills = sorted(skillbook.skills(), key=lambda s: str(s.id))
    return {"version": version, "instructions": [seal(instruction_of(s.id, text_of(s), repository)) for s in skills]}


def writable(text: str) -> bool:
    """Whether RFC 8785 can write ``text``: it holds no lone surrogate (a reply cut inside a character)."""
    return _SURROGATE.search(text) is None


def _sign(delta: Any) -> int:
    return 1 if delta > 0 else -1 if delta < 0 else 0
