"""The one reader of agents' logs (docs/transcripts.md): a file's bytes, in chunks of any size,
in; a :class:`~curator_io.transcripts.model.Transcript` out.

1. The lines are split and the digest taken over every byte (:mod:`curator_io.transcripts.lines`).
2. The form is the first record's: an object with a ``resourceSpans`` member is OTLP JSON
   (:mod:`curator_io.transcripts.otlp_spans`), any other Claude Code (:mod:`curator_io.transcripts.claude_code`);
   ``form=`` says it instead. Lines before the first that is JSON are ``not_json``.
3. A log in which no record of its form was read is refused: ``input.transcript_empty``.
4. A session with no tool call is ``no_step`` (SPEC §1: a trace has a step or more).

Pure: the caller opens the file (``ranking.read_transcript_file``) and hands its chunks here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from curator_io.errors import InputError
from curator_io.jsonio import parse_json
from curator_io.transcripts.claude_code import read_claude_code
from curator_io.transcripts.lines import MAX_LINE_BYTES, LogLines
from curator_io.transcripts.model import FORMS, Transcript
from curator_io.transcripts.otlp_spans import read_otlp_json

__all__ = ["read_transcript"]


def read_transcript(
    chunks: Iterable[bytes], *, source: str, form: str | None = None, most: int = MAX_LINE_BYTES
) -> Transcript:
    """The log ``chunks`` hold, read by the steps above; ``source`` names it in messages."""
    if form is not None and form not in FORMS:
        raise ValueError(f"form must be one of {', '.join(FORMS)}, not {form!r}")
    lines = LogLines(chunks, most=most)  # 1
    chosen, stream = _form(iter(lines), form)  # 2
    drafts, skips = (read_otlp_json if chosen == "otlp-json" else read_claude_code)(stream)
    if not drafts and not any(skips.counts.get(r) for r in ("summary", "meta", "unknown_type", "duplicate")):
        raise InputError(  # 3
            "input.transcript_empty",
            f"{source!r} holds no {chosen} record ({lines.count} line(s)): not an agent's log in a form read here",
        )
    sessions = []
    for draft in drafts:
        if not draft.calls:
            skips.add(0, "no_step")  # 4
            continue
        sessions.append(draft.finish(lines.digest))
    return Transcript(
        source=source,
        form=chosen,
        digest=lines.digest,
        lines=lines.count,
        sessions=tuple(sessions),
        skipped=dict(sorted(skips.counts.items())),
        skipped_lines=tuple((n, r) for n, r in skips.lines if n),
        out_of_order=sum(d.out_of_order for d in drafts),
    )


def _form(
    lines: Iterator[tuple[int, bytes | None]], form: str | None
) -> tuple[str, Iterator[tuple[int, bytes | None]]]:
    """The form (given, or the first JSON record's), and the lines to read in it: those before
    the first JSON one come back empty (``not_json``) or ``None`` (``oversized_line``)."""
    if form is not None:
        return form, lines
    before: list[tuple[int, bytes | None]] = []
    for number, raw in lines:
        if raw is None:
            before.append((number, None))
            continue
        try:
            first = parse_json(raw)
        except InputError:
            before.append((number, b""))
            continue
        chosen = "otlp-json" if type(first) is dict and "resourceSpans" in first else "claude-code"
        return chosen, _chain(before, (number, raw), lines)
    return "claude-code", iter(before)


def _chain(
    before: list[tuple[int, bytes | None]], first: tuple[int, bytes | None], rest: Iterator[tuple[int, bytes | None]]
) -> Iterator[tuple[int, bytes | None]]:
    yield from before
    yield first
    yield from rest
