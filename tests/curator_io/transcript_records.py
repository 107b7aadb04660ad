"""Claude Code records and OTLP spans in the shapes real logs have, for the transcript tests."""

from __future__ import annotations

import json
from typing import Any

SESSION = "5b0c1d9e-6a3f-4c2e-9d41-7e2a0f3b8c11"
DIRECTORY = "/home/dev/shop"


def record(
    kind: str,
    n: int,
    body: dict[str, Any],
    *,
    session: str = SESSION,
    minute: int | None = None,
    parent: str | None = None,
    **more: Any,
) -> dict[str, Any]:
    """One Claude Code record: the ``n``-th of its session, a second apart unless ``minute`` says."""
    at = f"2026-11-27T09:{(n if minute is None else minute) % 60:02d}:{n % 60:02d}.000Z"
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": DIRECTORY,
        "sessionId": session,
        "version": "2.1.3",
        "gitBranch": "main",
        **body,
        "type": kind,
        "uuid": f"{session[:8]}-0000-4000-8000-{n:012d}",
        "timestamp": at,
        **more,
    }


def prompt(text: str) -> dict[str, Any]:
    return {"message": {"role": "user", "content": text}}


def call(ident: str, tool: str, given: dict[str, Any]) -> dict[str, Any]:
    return {
        "message": {
            "id": f"msg_{ident}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": ident, "name": tool, "input": given}],
        }
    }


def said(text: str) -> dict[str, Any]:
    return {"message": {"role": "assistant", "content": [{"type": "text", "text": text}]}}


def result(ident: str, content: Any, *, error: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"tool_use_id": ident, "type": "tool_result", "content": content}
    if error:
        block["is_error"] = True
    return {"message": {"role": "user", "content": [block]}}


def jsonl(*records: dict[str, Any] | bytes) -> bytes:
    """The records as a log's lines (bytes given are written as they are)."""
    return b"".join((r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in records)


def bash_session(command: str = "make test", *, status: int = 0, session: str = SESSION) -> bytes:
    """A prompt, one Bash call and its result."""
    outcome = result("toolu_1", f"Exit code {status}\nfailed", error=True) if status else result("toolu_1", "ok")
    return jsonl(
        record("user", 1, prompt("Run the tests."), session=session),
        record("assistant", 2, call("toolu_1", "Bash", {"command": command}), session=session),
        record("user", 3, outcome, session=session),
    )


def kv(key: str, value: Any) -> dict[str, Any]:
    """An OTLP ``KeyValue``: an int is written as OTLP JSON writes an int64, a string."""
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


TRACE_ID = "5b8efff798038103d269b633813fc60c"


def span(
    span_id: str,
    *attributes: dict[str, Any],
    end: int = 1796029209_500000000,
    status: Any = None,
    trace: str = TRACE_ID,
) -> dict[str, Any]:
    return {
        "traceId": trace,
        "spanId": span_id,
        "name": "execute_tool",
        "kind": 1,
        "startTimeUnixNano": str(end - 1_000_000_000),
        "endTimeUnixNano": str(end),
        "attributes": list(attributes),
        "status": status or {},
    }


def export(*spans: dict[str, Any], resource: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    """One ``ExportTraceServiceRequest``, as one line of the Collector's file exporter."""
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": list(resource)},
                "scopeSpans": [{"scope": {"name": "agent"}, "spans": list(spans)}],
            }
        ]
    }
