"""Claude Code's session logs (``~/.claude/projects/PROJECT/SESSION.jsonl``) read as evidence:
docs/transcripts.md, "Claude Code", states every rule this module follows.

Each line is one record, read in file order, by these steps:

1. A line longer than the reader holds is ``oversized_line``; one that is not I-JSON
   ``not_json``; a value that is not an object with a string ``type`` ``not_a_record``.
2. ``summary`` records (what a compacted session left) are ``summary``; a type other than
   ``user``, ``assistant`` and ``system`` is ``unknown_type``.
3. A record without a ``sessionId`` that is an ID of at most 64 characters, a string ``uuid``
   or a TIMESTAMP ``timestamp`` is ``malformed``; a ``uuid`` read before is ``duplicate``
   (a resumed session's copy); a ``user`` record marked ``isMeta`` or ``isCompactSummary``
   (written by the harness, not a person) is ``meta``.
4. The record belongs to its session's trace, or with ``isSidechain`` to its subagent's.
5. ``assistant``: each ``tool_use`` block is the next step; its text is the model's.
   ``user``: each ``tool_result`` block is the outcome of the step whose call has its
   ``tool_use_id`` (none: ``orphan_result``); a person's text is a ``user`` observation
   (an interruption the harness wrote, ``observable``). ``system``: ``observable``.

``parentUuid`` is not followed: what ran is in the file, in the order it was written, on
every branch (a cycle, a fork or a missing parent changes nothing).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from curator_io.grammar import is_id, is_timestamp
from curator_io.transcripts.redaction import redact
from curator_io.transcripts.sessions import Draft, Skips, relative_path

__all__ = ["read_claude_code", "COMMAND_TOOLS", "FILE_INPUTS"]

#: Tools whose input ``command`` is a command with an exit status.
COMMAND_TOOLS = frozenset({"Bash"})
#: The inputs that name the file a tool concerns.
FILE_INPUTS = ("file_path", "notebook_path")
_KINDS = frozenset({"user", "assistant", "system"})
_EXIT_CODE = re.compile(r"Exit code (-?[0-9]{1,9})\b")
_INTERRUPTED = "[Request interrupted by user"
_MAX_SESSION = 64
#: An agent id's most: a trace id (``claude:`` + session + ``/agent-`` + agent) stays an ID with room
#: for ``:stepN`` and the materialization's ``m:`` (SPEC §0: at most 128 characters).
_MAX_AGENT = 32


class _Reader:
    def __init__(self) -> None:
        self.drafts: dict[str, Draft] = {}
        self.calls: dict[tuple[str, str], int] = {}
        self.seen: set[str] = set()
        self.skips = Skips()

    def line(self, number: int, raw: bytes | None) -> None:
        record = self.skips.record(number, raw)  # 1
        if record is None:
            return None
        kind = record.get("type")
        if not isinstance(kind, str):
            return self.skips.add(number, "not_a_record")
        if kind == "summary":  # 2
            return self.skips.add(number, "summary")
        if kind not in _KINDS:
            return self.skips.add(number, "unknown_type")
        session, uuid, at = record.get("sessionId"), record.get("uuid"), record.get("timestamp")  # 3
        if not (is_id(session) and len(session) <= _MAX_SESSION and isinstance(uuid, str) and is_timestamp(at)):
            return self.skips.add(number, "malformed")
        if uuid in self.seen:
            return self.skips.add(number, "duplicate")
        self.seen.add(uuid)
        if kind == "user" and (record.get("isMeta") is True or record.get("isCompactSummary") is True):
            return self.skips.add(number, "meta")
        message = record.get("message")
        content: Any = message.get("content") if type(message) is dict else None
        if kind != "system" and not isinstance(content, str | list):
            return self.skips.add(number, "malformed")
        draft = self._draft(record, session)  # 4
        draft.seen_at(at)
        if kind == "assistant":  # 5
            self._assistant(draft, number, content, at)
        elif kind == "user":
            self._user(draft, number, content, at)
        else:
            subtype = record.get("subtype")
            shown = f" ({subtype})" if is_id(subtype) else ""
            draft.note(number, "observable", at, f"the harness recorded a system event{shown}")
        return None

    def _draft(self, record: dict[str, Any], session: str) -> Draft:
        trace = f"claude:{session}"
        if record.get("isSidechain") is True:
            agent = record.get("agentId")
            trace += f"/agent-{agent}" if is_id(agent) and len(agent) <= _MAX_AGENT else "/sidechain"
        draft = self.drafts.get(trace)
        if draft is None:
            draft = self.drafts[trace] = Draft(trace, session)
        for name, member in (("directory", "cwd"), ("revision", "gitBranch"), ("version", "version")):
            value = record.get(member)
            if getattr(draft, name) is None and isinstance(value, str) and value:
                setattr(draft, name, value)
        return draft

    def _assistant(self, draft: Draft, number: int, content: str | list[Any], at: str) -> None:
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            if type(block) is not dict:
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str) and block["text"].strip():
                draft.last_words = (number, at)
            elif block.get("type") == "tool_use":
                self._call(draft, number, block, at)

    def _call(self, draft: Draft, number: int, block: dict[str, Any], at: str) -> None:
        ident, tool, given = block.get("id"), block.get("name"), block.get("input")
        if not isinstance(ident, str) or not isinstance(tool, str) or type(given) is not dict:
            return self.skips.add(number, "malformed")
        if (draft.trace, ident) in self.calls:
            return self.skips.add(number, "duplicate")
        command = given.get("command") if tool in COMMAND_TOOLS else None
        path = next((p for p in (relative_path(given.get(n), draft.directory) for n in FILE_INPUTS) if p), None)
        index = draft.call(
            number, tool, command=redact(command) if isinstance(command, str) else None, path=path, at=at
        )
        self.calls[(draft.trace, ident)] = index
        return None

    def _user(self, draft: Draft, number: int, content: str | list[Any], at: str) -> None:
        if isinstance(content, str):
            return self._words(draft, number, content, at)
        for block in content:
            if type(block) is not dict:
                continue
            if block.get("type") == "tool_result":
                self._result(draft, number, block, at)
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                self._words(draft, number, block["text"], at)
        return None

    def _words(self, draft: Draft, number: int, text: str, at: str) -> None:
        if not text.strip():
            return
        if text.startswith(_INTERRUPTED):
            draft.note(number, "observable", at, "the person interrupted the agent")
        else:
            draft.note(number, "user", at, "a person wrote to the agent")

    def _result(self, draft: Draft, number: int, block: dict[str, Any], at: str) -> None:
        ident = block.get("tool_use_id")
        index = self.calls.get((draft.trace, ident)) if isinstance(ident, str) else None
        if index is None or draft.calls[index].result_line is not None:
            return self.skips.add(number, "orphan_result")
        failed = block.get("is_error") is True
        status = None
        if draft.calls[index].tool in COMMAND_TOOLS:
            status = _exit_status(block.get("content")) if failed else 0
        draft.result(index, number, failed=failed, exit_status=status, at=at)
        return None


def _exit_status(content: Any) -> int | None:
    """The exit status a failed command's result starts with (``Exit code 2``), or None."""
    if isinstance(content, list):
        texts = [b.get("text") for b in content if type(b) is dict and isinstance(b.get("text"), str)]
        content = texts[0] if texts else None
    if not isinstance(content, str):
        return None
    found = _EXIT_CODE.match(content.lstrip())
    return int(found[1]) if found else None


def read_claude_code(lines: Iterator[tuple[int, bytes | None]]) -> tuple[list[Draft], Skips]:
    """Read every line (the steps above); the sessions' drafts in the order first seen, and the skips."""
    reader = _Reader()
    for number, raw in lines:
        reader.line(number, raw)
    return list(reader.drafts.values()), reader.skips
