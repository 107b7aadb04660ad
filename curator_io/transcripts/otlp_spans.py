"""OpenTelemetry spans as OTLP JSON (one ``ExportTraceServiceRequest`` a line, as the
Collector's file exporter writes them), read as evidence under the GenAI semantic conventions:
docs/transcripts.md, "OTLP JSON", states every rule this module follows.

1. A line longer than the reader holds is ``oversized_line``; one that is not I-JSON
   ``not_json``; one that is not an object with a ``resourceSpans`` array ``not_a_record``.
2. Each span, in the order written (resource, scope, span): one that is not an object with a
   ``traceId`` of 32 hex digits, a ``spanId`` of 16 and an ``endTimeUnixNano`` of digits is
   ``malformed``; a ``spanId`` read before ``duplicate``; one whose ``gen_ai.operation.name`` is
   not ``execute_tool`` ``unknown_type`` (a model call, an agent's invocation: not a step).
3. A tool-execution span is the next step of its session: its ``gen_ai.conversation.id`` when
   that is an ID of at most 64 characters (the span's, else its resource's), else its trace id.
   Its outcome: ``failed`` when its status code is ERROR (2) or ``process.exit.code`` is not 0.
   ``process.exit.code`` is its exit status (``deterministic``), ``process.command_line`` its
   command; without an exit status its signal is ``tool``. The repository and revision are the
   resource's ``vcs.repository.name`` and ``vcs.ref.head.revision``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from curator_io.grammar import is_id
from curator_io.transcripts.redaction import redact
from curator_io.transcripts.sessions import Draft, Skips

__all__ = ["read_otlp_json", "TOOL_OPERATION"]

TOOL_OPERATION = "execute_tool"
_TRACE_ID = re.compile(r"[0-9a-fA-F]{32}")
_SPAN_ID = re.compile(r"[0-9a-fA-F]{16}")
_NANOS = re.compile(r"[0-9]{1,21}")
_MAX_SESSION = 64
_LAST_NANOS = 253402300799_999999999  # 9999-12-31T23:59:59.999999999Z


def attributes(items: Any) -> dict[str, Any]:
    """OTLP ``KeyValue`` list as plain values (string, int, bool, double); others left out."""
    out: dict[str, Any] = {}
    if not isinstance(items, list):
        return out
    for item in items:
        if type(item) is not dict or not isinstance(item.get("key"), str) or type(item.get("value")) is not dict:
            continue
        value = item["value"]
        if isinstance(value.get("stringValue"), str):
            out[item["key"]] = value["stringValue"]
        elif isinstance(value.get("intValue"), str | int) and not isinstance(value.get("intValue"), bool):
            text = str(value["intValue"])
            if re.fullmatch(r"-?[0-9]{1,19}", text):
                out[item["key"]] = int(text)
        elif isinstance(value.get("boolValue"), bool):
            out[item["key"]] = value["boolValue"]
    return out


def timestamp_of(nanos: int) -> str:
    """Nanoseconds since the Unix epoch as a SPEC TIMESTAMP, the fraction to 9 digits."""
    seconds, fraction = divmod(nanos, 1_000_000_000)
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S") + f".{fraction:09d}Z"


class _Reader:
    def __init__(self) -> None:
        self.drafts: dict[str, Draft] = {}
        self.seen: set[str] = set()
        self.skips = Skips()

    def line(self, number: int, raw: bytes | None) -> None:
        document = self.skips.record(number, raw)  # 1
        if document is None:
            return None
        resources = document.get("resourceSpans")
        if not isinstance(resources, list):
            return self.skips.add(number, "not_a_record")
        for resource in resources:
            if type(resource) is not dict:
                self.skips.add(number, "malformed")
                continue
            held = attributes(
                (resource.get("resource") or {}).get("attributes") if type(resource.get("resource")) is dict else None
            )
            scopes = resource.get("scopeSpans")
            for scope in scopes if isinstance(scopes, list) else ():
                spans = scope.get("spans") if type(scope) is dict else None
                for span in spans if isinstance(spans, list) else ():
                    self._span(number, span, held)  # 2
        return None

    def _span(self, number: int, span: Any, resource: dict[str, Any]) -> None:
        if type(span) is not dict:
            return self.skips.add(number, "malformed")
        trace, ident, end = span.get("traceId"), span.get("spanId"), span.get("endTimeUnixNano")
        if isinstance(end, int) and not isinstance(end, bool):
            end = str(end)
        if not (
            isinstance(trace, str)
            and _TRACE_ID.fullmatch(trace)
            and isinstance(ident, str)
            and _SPAN_ID.fullmatch(ident)
            and isinstance(end, str)
            and _NANOS.fullmatch(end)
            and int(end) <= _LAST_NANOS
        ):
            return self.skips.add(number, "malformed")
        if ident in self.seen:
            return self.skips.add(number, "duplicate")
        self.seen.add(ident)
        own = {**resource, **attributes(span.get("attributes"))}
        if own.get("gen_ai.operation.name") != TOOL_OPERATION:
            return self.skips.add(number, "unknown_type")
        conversation = own.get("gen_ai.conversation.id")
        session = conversation if is_id(conversation) and len(conversation) <= _MAX_SESSION else trace.lower()
        draft = self.drafts.get(session)
        if draft is None:
            draft = self.drafts[session] = Draft(f"otlp:{session}", session)
            for name, key in (("repository", "vcs.repository.name"), ("revision", "vcs.ref.head.revision")):
                if isinstance(own.get(key), str) and own[key]:
                    setattr(draft, name, own[key])
        at = timestamp_of(int(end))
        draft.seen_at(at)  # 3
        command = own.get("process.command_line")
        shown = redact(command) if isinstance(command, str) else None
        index = draft.call(number, _tool_name(own, span), command=shown, path=None, at=at)
        status = own.get("process.exit.code")
        code = span["status"].get("code") if type(span.get("status")) is dict else None
        exit_status = status if type(status) is int else None
        draft.result(index, number, failed=code in (2, "STATUS_CODE_ERROR"), exit_status=exit_status, at=at)
        return None


def _tool_name(own: dict[str, Any], span: dict[str, Any]) -> str:
    """``gen_ai.tool.name``, else the span's name, else ``tool``."""
    for name in (own.get("gen_ai.tool.name"), span.get("name")):
        if isinstance(name, str) and name:
            return name
    return "tool"


def read_otlp_json(lines: Iterator[tuple[int, bytes | None]]) -> tuple[list[Draft], Skips]:
    """Read every line (the steps above); the sessions' drafts in the order first seen, and the skips."""
    reader = _Reader()
    for number, raw in lines:
        reader.line(number, raw)
    return list(reader.drafts.values()), reader.skips
