"""A report as a terminal shows it: an aligned table of decisions and the outcome line.

Pure: a report (the pipeline's own dict) in, lines out; the CLI prints them, escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from curator_io.catalogue import reason_label
from validator.proposal import short_fingerprint

if TYPE_CHECKING:
    from ranking.advice.lookalikes import Lookalike

__all__ = ["format_score", "render_table", "render_outcome", "lookalike_marks", "render_lookalike_count"]


def format_score(score: Mapping[str, Any] | None) -> str:
    return "-" if score is None else f"{score['final']:g}" if isinstance(score["final"], float) else str(score["final"])


def render_table(
    report: Mapping[str, Any], marks: Mapping[str, str] | None = None, *, fingerprints: bool = False
) -> list[str]:
    """A compact, aligned table: id, disposition, final score, reason codes (and a proposal's
    mark, e.g. what a ledger knows of its edit); with ``fingerprints``, each proposal's
    fingerprint too (shortened), which tells the same edit under two ids."""
    head = ("id", "fingerprint") if fingerprints else ("id",)
    rows = [(*head, "disposition", "final", "reasons")]
    for p in report["proposals"]:
        codes = ", ".join(reason_label(r["code"], r["subject"]) for r in p["reasons"])
        if marks and p["id"] in marks:
            codes += f" · {marks[p['id']]}"
        ids = (p["id"], short_fingerprint(p["fingerprint"])) if fingerprints else (p["id"],)
        rows.append((*ids, p["disposition"], format_score(p.get("score")), codes))
    n = len(head)
    widths = [max(len(r[i]) for r in rows) for i in range(n + 2)]
    lines = [
        "  ".join([*(f"{r[i]:<{widths[i]}}" for i in range(n + 1)), f"{r[n + 1]:>{widths[n + 1]}}", r[n + 2]]).rstrip()
        for r in rows
    ]
    lines.append("")
    lines.append(render_outcome(report))
    return lines


def render_outcome(report: Mapping[str, Any]) -> str:
    """The table's last line: the outcome and the counts."""
    counts = report["counts"]
    return (
        f"outcome: {report['outcome']} · selected {counts['selected']} of {counts['proposals']} "
        f"(accepted {counts['accepted']}, deferred {counts['deferred']}, quarantined {counts['quarantined']}, "
        f"rejected {counts['rejected']}, below threshold {counts['below_threshold']}, "
        f"superseded {counts['superseded']})"
    )


def lookalike_marks(found: tuple[Lookalike, ...]) -> dict[str, str]:
    """Each proposal with a look-alike (:mod:`ranking.advice.lookalikes`): the keys its texts resemble."""
    keys: dict[str, set[str]] = {}
    for f in found:
        if f.subject.proposal is not None:
            keys.setdefault(f.subject.proposal, set()).add(f.other.key or f"prose line {f.other.line}")
    return {pid: "resembles " + ", ".join(sorted(k)) for pid, k in keys.items()}


#: How many proposal ids the count names before it says how many more.
_NAMED = 5


def render_lookalike_count(found: tuple[Lookalike, ...]) -> list[str]:
    """One line under the outcome when some edit in ``found`` (the selected ones'; what the Writer may
    write) resembles an instruction under another key; none otherwise."""
    edits = sorted({(f.subject.proposal or "", f.subject.key) for f in found})
    if not edits:
        return []
    ids = sorted({pid for pid, _ in edits})
    named = ", ".join(ids[:_NAMED]) + (f" and {len(ids) - _NAMED} more" if len(ids) > _NAMED else "")
    n = len(edits)
    what, memory = "an instruction under another key", ""
    if any(f.other.where == "prose" for f in found):
        what, memory = f"{what} or a rule of the prose", " --memory FILE.md"
    left_out = getattr(found, "left_out", 0)  # find_lookalikes says how many its bounds left out
    more = f" ({left_out} more look-alike{'' if left_out == 1 else 's'} not listed)" if left_out else ""
    return [
        f"look-alikes: {n} selected {'edit' if n == 1 else 'edits'} ({named}) {'resembles' if n == 1 else 'resemble'} "
        f"{what}{more}; evidence-rank explain REPORT ID --bundle BUNDLE{memory} says which"
    ]
