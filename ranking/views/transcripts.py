"""An agent's log as ``evidence-rank transcript show`` and ``check`` write it: lines for a person
or a prompt, a JSON document for a program (docs/transcripts.md, "The command"). Plain text
out: ``ranking/cli/output.py`` escapes each line as it prints it.

Bounded: at most ``limit`` sessions a file and ``limit`` evidence items a session (the rest
counted), each summary's words cut to :data:`MAX_WORDS` characters in the text.
"""

from __future__ import annotations

from typing import Any

from curator_io.transcripts.model import Transcript
from ranking.checking.transcript_replay import FROM_A_LOG, Replay

__all__ = ["transcript_lines", "transcript_json", "replay_lines", "replay_json", "MAX_WORDS", "DEFAULT_LIMIT"]

DEFAULT_LIMIT = 50
MAX_WORDS = 160


def transcript_lines(transcript: Transcript, *, limit: int = DEFAULT_LIMIT) -> list[str]:
    """One line for the file, one per session, one per evidence item (its id, step, signal and
    its step's outcome, and what it saw), up to ``limit`` a session."""
    skipped = ", ".join(f"{reason} {count}" for reason, count in transcript.skipped.items()) or "none"
    out = [
        f"{transcript.source}: {transcript.form}, {transcript.lines} line(s), {transcript.digest}; "
        f"skipped: {skipped}; timestamps out of order: {transcript.out_of_order}"
    ]
    for session in transcript.sessions[:limit]:
        where = ", ".join(
            f"{name} {value}"
            for name, value in (
                ("directory", session.directory),
                ("repository", session.repository),
                ("revision", session.revision),
                ("version", session.version),
            )
            if value is not None
        )
        out.append(f"session {session.trace} ({where or 'no directory named'}): "
                   f"{len(session.steps)} step(s), {len(session.observations)} evidence item(s)")  # fmt: skip
        for seen in session.observations[:limit]:
            step = session.steps[seen.step]
            outcome = step.outcome if seen.id.endswith(f":step{seen.step}") else "-"
            words = _words(seen.summary)
            out.append(f"  {seen.id}  step {seen.step}  {seen.signal}  {outcome}  line {seen.line}: {words}")
        if len(session.observations) > limit:
            out.append(f"  … and {len(session.observations) - limit} more evidence item(s) (--limit)")
    if len(transcript.sessions) > limit:
        out.append(f"… and {len(transcript.sessions) - limit} more session(s) (--limit)")
    return out


def transcript_json(transcripts: list[Transcript], *, limit: int = DEFAULT_LIMIT) -> dict[str, Any]:
    """The ``evidence-rank-transcripts`` document: each transcript, its sessions, their steps and
    evidence up to ``limit`` each, and the counts of both."""
    return {
        "schema": "evidence-rank-transcripts",
        "transcripts": [
            {
                "source": t.source,
                "form": t.form,
                "digest": t.digest,
                "lines": t.lines,
                "skipped": dict(t.skipped),
                "skipped_lines": [[line, reason] for line, reason in t.skipped_lines],
                "out_of_order": t.out_of_order,
                "session_count": len(t.sessions),
                "sessions": [
                    {
                        "trace": s.trace,
                        "session": s.session,
                        "directory": s.directory,
                        "repository": s.repository,
                        "revision": s.revision,
                        "version": s.version,
                        "step_count": len(s.steps),
                        "evidence_count": len(s.observations),
                        "steps": [{**step.to_json(), "observed_at": step.observed_at} for step in s.steps[:limit]],
                        "evidence": [
                            {
                                "id": o.id,
                                "step": o.step,
                                "signal": o.signal,
                                "line": o.line,
                                "observed_at": o.observed_at,
                                "path": o.path,
                                "summary": o.summary,
                            }
                            for o in s.observations[:limit]
                        ],
                    }
                    for s in t.sessions[:limit]
                ],
            }
            for t in transcripts
        ],
    }


def replay_lines(replay: Replay, *, files: int) -> list[str]:
    """Each finding, then what was checked."""
    out = [f"{f.evidence}: {f.code}: {f.detail}" for f in replay.findings]
    verdict = "every one as its log gives it" if replay.ok else f"{len(replay.findings)} not as the logs give them"
    out.append(f"replayed {replay.checked} evidence item(s) against {files} transcript(s): {verdict}"
               f" ({replay.other} not from a log)")  # fmt: skip
    return out


def replay_json(replay: Replay) -> dict[str, Any]:
    return {
        "ok": replay.ok,
        "checked": replay.checked,
        "other": replay.other,
        "findings": [{"evidence": f.evidence, "code": f.code, "detail": f.detail} for f in replay.findings],
    }


def _words(summary: str) -> str:
    """What a summary says after its ``sha256:HEX line N: ``, cut for one line."""
    start = FROM_A_LOG.match(summary)
    words = summary[start.end() :] if start else summary
    return words if len(words) <= MAX_WORDS else words[: MAX_WORDS - 1] + "…"
