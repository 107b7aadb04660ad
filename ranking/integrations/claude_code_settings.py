"""Installing the hook (:mod:`ranking.integrations.claude_code`) into a Claude Code settings file
(``evidence-rank hook install claude-code``): ``.claude/settings.json``, or ``settings.local.json``,
as the team already has it.

The file is merged into, never replaced: every member it holds stays, in its order, with its
value (``permissions``, ``env``, other hooks, other ``PreToolUse`` entries); the hook's entry is
added to ``hooks.PreToolUse``, or put in place of the one an earlier install added (found by its
command, :data:`HOOK_COMMAND`), so installing twice gives the same bytes as once. A file that
is not a JSON object, or whose ``hooks`` or ``hooks.PreToolUse`` is not what Claude Code reads
(an object, a list), is refused with the member's place, and not written.

Pure: the file's bytes (or None: there is none) in, the bytes to write out.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from curator_io.errors import InputError
from curator_io.jsonio import parse_json

__all__ = ["HOOK_COMMAND", "MATCHER", "hook_entry", "merged_settings"]

#: What every command an install writes holds: how an install finds the one an earlier one wrote.
HOOK_COMMAND = "hook claude-code"
#: The tools the hook is asked about.
MATCHER = "Write|Edit|MultiEdit|NotebookEdit|Bash"


def hook_entry(program: str, lessons: str) -> dict[str, Any]:
    """The ``PreToolUse`` entry: the hook, and ``|| exit 2`` so that a hook that cannot start (the
    program not found: exit 127) or fails in a way of its own refuses the call rather than allowing it."""
    command = f"{shlex.quote(program)} {HOOK_COMMAND} --lessons {shlex.quote(lessons)} || exit 2"
    return {"matcher": MATCHER, "hooks": [{"type": "command", "command": command}]}


def merged_settings(raw: bytes | None, entry: dict[str, Any]) -> bytes:
    """The settings file ``raw`` with ``entry`` in ``hooks.PreToolUse`` in place of any earlier one."""
    settings = {} if raw is None or not raw.strip() else parse_json(raw)
    if not isinstance(settings, dict):
        raise InputError("input.settings", "a Claude Code settings file holds a JSON object", pointer="")
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InputError("input.settings", "hooks is not an object", pointer="/hooks")
    entries = hooks.setdefault("PreToolUse", [])
    if not isinstance(entries, list):
        raise InputError("input.settings", "hooks.PreToolUse is not a list", pointer="/hooks/PreToolUse")
    kept: list[Any] = []
    at = None
    for i, found in enumerate(entries):
        if not isinstance(found, dict) or not isinstance(found.get("hooks", []), list):
            raise InputError(
                "input.settings",
                f"hooks.PreToolUse[{i}] is not an entry Claude Code reads",
                pointer=f"/hooks/PreToolUse/{i}",
            )
        ours = [h for h in found.get("hooks", []) if _ours(h)]
        if ours and at is None:
            at = len(kept)
        if not ours:
            kept.append(found)
        elif len(ours) < len(found["hooks"]):
            kept.append({**found, "hooks": [h for h in found["hooks"] if not _ours(h)]})
    kept.insert(len(kept) if at is None else at, entry)  # where an earlier install put it: twice is once
    hooks["PreToolUse"] = kept
    return (json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _ours(hook: Any) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and f" {HOOK_COMMAND} " in hook["command"]
