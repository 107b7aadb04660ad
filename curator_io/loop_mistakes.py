"""What a loop's bookkeeping got wrong in the bundle it records (:meth:`curator_io.BundleBuilder.mistakes`).

SPEC §1 allows a trace that names a materialization the bundle lacks, or evidence at a
step past its trace's end: such a bundle is valid input, and validation rejects what
cites them (``closure.unknown_materialization``, ``closure.step_out_of_range``, ...). In
a loop of one's own they are almost always a bookkeeping slip, so the builder can list
them before it builds, or refuse them when asked (``build(..., strict=True)``).

Pure: the records as the builder holds them in, sentences out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["mistakes"]


def mistakes(
    lists: Mapping[str, Sequence[Mapping[str, Any]]], proposals: Sequence[tuple[str, Mapping[str, Any]]]
) -> tuple[str, ...]:
    """Each slip, in recording order: a trace naming a materialization not recorded; evidence
    naming a trace not recorded, or a step at or past its trace's end (steps count from 0); a
    lesson, or a proposal's ``support`` or ``contradict``, naming evidence not recorded; a
    proposal naming a lesson not recorded."""
    ids = {name: {item.get("id") for item in items} for name, items in lists.items()}
    steps = {t.get("id"): t.get("steps") for t in lists["traces"]}
    found = [
        f"trace {t.get('id')!r} ran in materialization {t.get('materialization')!r}, which is not recorded"
        for t in lists["traces"]
        if t.get("materialization") not in ids["materializations"]
    ]
    for e in lists["evidence"]:
        trace, step = e.get("trace"), e.get("step")
        count = steps.get(trace)
        if trace not in steps:
            found.append(f"evidence {e.get('id')!r} is of trace {trace!r}, which is not recorded")
        elif isinstance(step, int) and isinstance(count, int) and step >= count:
            found.append(
                f"evidence {e.get('id')!r} is at step {step} of trace {trace!r}, which has {count} steps "
                f"(0 to {count - 1})"
            )
    for lesson in lists["lessons"]:
        found += _unrecorded(f"lesson {lesson.get('id')!r}", lesson.get("evidence"), ids["evidence"])
    for pid, members in proposals:
        if members.get("lesson") not in ids["lessons"]:
            found.append(f"proposal {pid!r} cites lesson {members.get('lesson')!r}, which is not recorded")
        for stance in ("support", "contradict"):
            found += _unrecorded(f"proposal {pid!r}'s {stance}", members.get(stance), ids["evidence"])
    return tuple(found)


def _unrecorded(who: str, cited: Any, recorded: set[Any]) -> list[str]:
    """``who`` cites evidence ``cited`` (a list, as written) that is not ``recorded``: one line each."""
    missing = [e for e in cited if e not in recorded] if isinstance(cited, list) else []
    return [f"{who} cites evidence {e!r}, which is not recorded" for e in missing]
