"""Whether a bundle's evidence is what its agents' logs say (docs/transcripts.md, "Replay"): the
check that ties a bundle to the transcript files its evidence was read from.

An evidence item is *from a log* when its summary starts ``sha256:HEX line N: ``. For each, in
the bundle's order:

1. a transcript with that digest is among those given (``transcript.missing``);
2. reading it gives an evidence item with the same id (``transcript.no_such_evidence``);
3. whose trace, step, signal, time, path and summary are the bundle's, so its step is at line
   ``N`` (``transcript.evidence_differs``, naming the first member that differs);
4. and the bundle's trace seals that step as the log gives it: its ``step_digests`` entry is the
   step's digest (``transcript.step_differs``).

Evidence not from a log is counted and left alone: a curator may cite other observations.
Pure: the bundle's bytes and the transcripts (``ranking.read_transcript_file``) in, the findings out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from curator_io.bundle import load_bundle
from curator_io.canonical import digest
from curator_io.jsonio import parse_json
from curator_io.transcripts.model import Observation, Session, Step, Transcript

__all__ = ["Finding", "Replay", "replay_transcripts", "FROM_A_LOG"]

#: The start of a summary written from a log (docs/transcripts.md, "Evidence").
FROM_A_LOG = re.compile(r"(sha256:[0-9a-f]{64}) line ([0-9]{1,12}): ")
_MEMBERS = ("trace", "step", "signal", "observed_at", "path", "summary")


@dataclass(frozen=True, slots=True)
class Finding:
    """One evidence item the logs do not bear out."""

    evidence: str
    code: str
    detail: str


@dataclass(frozen=True, slots=True)
class Replay:
    """What :func:`replay_transcripts` found."""

    checked: int
    """Evidence items from a log, each checked."""
    other: int
    """Evidence items not from a log (left alone)."""
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return not self.findings


def replay_transcripts(bundle: bytes, transcripts: Sequence[Transcript]) -> Replay:
    """Replay the evidence of ``bundle`` (a ``curator-bundle-v1``'s bytes, refused as every command
    refuses one) against ``transcripts`` (the steps above)."""
    load_bundle(bundle)
    document = parse_json(bundle)
    by_digest = {t.digest: t for t in transcripts}
    found: dict[str, dict[str, tuple[Session, Observation]]] = {}
    traces = {t["id"]: t for t in document["traces"]}
    findings: list[Finding] = []
    checked = other = 0
    for item in document["evidence"]:
        start = FROM_A_LOG.match(item["summary"])
        if start is None:
            other += 1
            continue
        checked += 1
        transcript = by_digest.get(start[1])
        if transcript is None:  # 1
            findings.append(Finding(item["id"], "transcript.missing", f"no transcript given has the digest {start[1]}"))
            continue
        if start[1] not in found:
            found[start[1]] = {o.id: (s, o) for s in transcript.sessions for o in s.observations}
        pair = found[start[1]].get(item["id"])
        if pair is None:  # 2
            why = f"{transcript.source!r} gives no evidence {item['id']!r}"
            findings.append(Finding(item["id"], "transcript.no_such_evidence", why))
            continue
        finding = _compare(item, *pair, traces.get(item["trace"]), transcript.source)  # 3, 4
        if finding is not None:
            findings.append(finding)
    return Replay(checked, other, tuple(findings))


def _compare(item: dict[str, Any], session: Session, seen: Observation, trace: Any, source: str) -> Finding | None:
    read = {"trace": session.trace, "step": seen.step, "signal": seen.signal, "observed_at": seen.observed_at,
            "path": seen.path, "summary": seen.summary}  # fmt: skip
    for name in _MEMBERS:  # 3
        if item[name] != read[name]:
            why = f"its {name} is {item[name]!r}; {source!r} line {seen.line} gives {read[name]!r}"
            return Finding(item["id"], "transcript.evidence_differs", why)
    sealed = trace.get("step_digests") if isinstance(trace, dict) else None
    step: Step = session.steps[seen.step]
    written = sealed[seen.step] if isinstance(sealed, list) and seen.step < len(sealed) else None
    if written != digest(step.to_json()):  # 4
        why = (
            f"trace {session.trace!r} seals step {seen.step} as {written!r}; {source!r} gives {digest(step.to_json())}"
        )
        return Finding(item["id"], "transcript.step_differs", why)
    return None
