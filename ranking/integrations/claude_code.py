"""Claude Code's ``PreToolUse`` hook for a Markdown memory (``evidence-rank hook claude-code``,
docs/gate-your-agents-md.md): refuse a tool call that would change a managed section, before it runs.

Claude Code runs the hook before each tool call, the call as JSON on standard input
(``cwd``, ``tool_name``, ``tool_input``), and refuses the call when the hook exits 2, showing the
agent what it wrote on standard error; any other exit lets the call run. So the hook fails
closed: a call it cannot read is refused like one that changes the section.

1. The call is read (:func:`read_call`): an I-JSON object whose ``tool_name`` is a string and whose
   ``tool_input`` is an object with the members the tool takes, each of its type; anything else is
   refused as unreadable, naming the member.
2. Which file: the tool's path, taken from the payload's ``cwd`` when relative (the hook's own
   working directory when the payload has none), every link resolved: an edit of a link
   ``rules.txt`` to ``AGENTS.md`` is an edit of ``AGENTS.md``.
3. What the file would hold after the call, as Claude Code writes it (:func:`edited`): ``Write``
   writes its ``content``; ``Edit`` and ``MultiEdit`` replace each ``old_string`` (the first, or
   every one with ``replace_all``) in the file read with its ``\\r\\n`` turned to ``\\n``, and a
   file whose line endings are mostly ``\\r\\n`` is written with ``\\r\\n`` for every ``\\n``; a
   ``Write`` over such a file too. Where Claude Code's versions have differed (an ``old_string``
   holding ``\\r\\n``, matched in the file as it is; a ``Write`` whose content holds ``\\r\\n``),
   each way is computed, and the call is refused if any of them changes the section.
4. A file that holds no marker (``evidence-rank:memory``) before or after is none of the hook's
   business. Otherwise the section's text (its lines and their endings) must be the same before
   and after, and both must read as a Markdown memory.
5. ``NotebookEdit`` of a memory file is refused (it would rewrite it as a notebook). ``Bash``
   (:func:`bash_targets`): a command that names a memory file (by a name or path that leads to
   one, a glob that matches one, or the name ``AGENTS.md``, ``CLAUDE.md`` or ``MEMORY.md`` in any
   case, anywhere in the command, a script's string included) is refused unless each of its
   commands only reads (``cat``, ``grep``, ``git diff``, ...) and it
   redirects nothing into a file. A shell has more ways to write a file than any list holds: the
   CI gate, not this hook, is the guarantee.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from curator_io.errors import ConfigError, InputError
from curator_io.jsonio import parse_json
from curator_io.markdown.document import read_markdown_memory

__all__ = ["Call", "Verdict", "read_call", "decide", "edited", "bash_targets", "GUARDED_NAMES"]

MARKER = "evidence-rank:memory"
#: Names a Bash command may not write whether or not the file holds a section yet.
GUARDED_NAMES = frozenset({"agents.md", "claude.md", "memory.md"})

#: The members each tool's input must have (name -> type), and those it may have.
_TOOLS: dict[str, tuple[dict[str, type], dict[str, type]]] = {
    "Write": ({"file_path": str, "content": str}, {}),
    "Edit": ({"file_path": str, "old_string": str, "new_string": str}, {"replace_all": bool}),
    "MultiEdit": ({"file_path": str, "edits": list}, {}),
    "NotebookEdit": ({"notebook_path": str}, {}),
    "Bash": ({"command": str}, {}),
}
_EDIT: tuple[dict[str, type], dict[str, type]] = ({"old_string": str, "new_string": str}, {"replace_all": bool})

#: Programs that only read the files they are given (with the subcommands that only read, for git).
_READERS = frozenset(
    "cat head tail less more grep egrep fgrep rg wc diff cmp ls stat file sha256sum sha1sum md5sum nl sed awk".split()
)
_GIT_READERS = frozenset("diff log show status blame grep ls-files".split())
#: The most distinct words of a Bash command whose files are looked at.
MAX_WORDS = 10_000
_SEPARATORS = re.compile(r"&&|\|\||[;|&\n]")
_REDIRECT = re.compile(r"^[0-9]*(>>?|<<?|&>)")


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call as step 1 read it."""

    tool: str
    args: Mapping[str, Any]
    cwd: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether the call may run; the line the agent is shown when it may not."""

    allowed: bool
    line: str = ""


def read_call(payload: bytes, cwd: str) -> Call:
    """Step 1. ``cwd``: where a relative path is taken from when the payload has no ``cwd``.
    Raises ``input.malformed_json`` or ``input.hook_payload``, naming the member."""
    call = parse_json(payload)
    if not isinstance(call, dict):
        raise _unreadable("", "the payload is not a JSON object")
    tool = call.get("tool_name")
    if not isinstance(tool, str):
        raise _unreadable("/tool_name", "tool_name is missing or not a string")
    where = call.get("cwd", cwd)
    if not isinstance(where, str) or not where:
        raise _unreadable("/cwd", "cwd is not a non-empty string")
    args = call.get("tool_input")
    if not isinstance(args, dict):
        raise _unreadable("/tool_input", "tool_input is missing or not an object")
    if tool in _TOOLS:
        _check_members(args, *_TOOLS[tool], "/tool_input")
    if tool == "MultiEdit":
        for i, edit in enumerate(args["edits"]):
            if not isinstance(edit, dict):
                raise _unreadable(f"/tool_input/edits/{i}", f"edits[{i}] is not an object")
            _check_members(edit, *_EDIT, f"/tool_input/edits/{i}")
    return Call(tool, args, where)


def _check_members(args: Mapping[str, Any], required: dict[str, type], optional: dict[str, type], at: str) -> None:
    for name, kind in (*required.items(), *optional.items()):
        if name not in args and name not in required:
            continue
        if type(args.get(name)) is not kind:
            what = "a string" if kind is str else "a list" if kind is list else "true or false"
            raise _unreadable(f"{at}/{name}", f"{name} is missing or not {what}")


def _unreadable(pointer: str, why: str) -> InputError:
    return InputError("input.hook_payload", f"the tool call cannot be read: {why}", pointer=pointer)


def resolved(call: Call, path: str) -> str:
    """Step 2: the file a tool's path names, from the payload's ``cwd``, every link resolved."""
    return os.path.realpath(os.path.join(call.cwd, os.path.expanduser(path)))


def decide(call: Call, read: Callable[[str], bytes | None], lessons: str) -> Verdict:
    """Steps 2-5: whether ``call`` may run. ``read(path)``: the file's bytes, None when there is none.
    ``lessons``: where the agent is told to write a lesson instead."""
    if call.tool in ("Write", "Edit", "MultiEdit"):
        path = resolved(call, call.args["file_path"])
        raw = read(path)
        before = None if raw is None else _text(raw, path)
        afters = edited(call, before)
        changed = _changed_section(path, before, afters)
        return Verdict(True) if changed is None else Verdict(False, _refusal(call.args["file_path"], changed, lessons))
    if call.tool == "NotebookEdit":
        path = resolved(call, call.args["notebook_path"])
        raw = read(path)
        if raw is not None and MARKER in _text(raw, path):
            return Verdict(False, _refusal(call.args["notebook_path"], "a NotebookEdit would rewrite it", lessons))
        return Verdict(True)
    if call.tool == "Bash":
        found = bash_targets(call, read)
        return Verdict(True) if found is None else Verdict(False, _refusal(*found, lessons))
    return Verdict(True)


def _text(raw: bytes, path: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        why = f"{path}: not UTF-8 (byte 0x{raw[e.start]:02x} at offset {e.start}), so what the edit does is unknown"
        raise InputError("input.hook_payload", why) from None


def edited(call: Call, before: str | None) -> list[str | None]:
    """Step 3: what the file would hold after ``call``, each way Claude Code may write it (None: the
    call fails and writes nothing)."""
    crlf = before is not None and before.count("\r\n") * 2 > before.count("\n")

    def endings(text: str) -> str:
        return text.replace("\n", "\r\n") if crlf else text

    if call.tool == "Write":
        content = call.args["content"]
        return [endings(content), endings(content.replace("\r\n", "\n"))]
    edits = call.args["edits"] if call.tool == "MultiEdit" else [call.args]
    base = "" if before is None else before
    normalized = _replaced(base.replace("\r\n", "\n"), edits)
    return [None if normalized is None else endings(normalized), _replaced(base, edits)]


def _replaced(text: str, edits: list[Mapping[str, Any]]) -> str | None:
    for edit in edits:
        old, new = edit["old_string"], edit["new_string"]
        if old == "":
            if text:
                return text + "\x00"  # an empty old_string on a file that has text: refused below if a memory
            text = new
            continue
        if old not in text:
            return None  # Claude Code refuses the call: nothing is written
        text = text.replace(old, new) if edit.get("replace_all") else text.replace(old, new, 1)
    return text


def _changed_section(path: str, before: str | None, afters: list[str | None]) -> str | None:
    """Step 4: why the call changes the section (or the file would not read), None when it does not."""
    written = [a for a in afters if a is not None]
    if not (before is not None and MARKER in before) and not any(MARKER in a for a in written):
        return None
    mine = _section(before or "")
    if isinstance(mine, InputError):
        return f"it does not read as a Markdown memory now ({mine.line}), so no edit of it can be checked"
    for after in written:
        theirs = _section(after)
        if isinstance(theirs, InputError):
            return f"after this edit it would not read as a Markdown memory ({theirs.line})"
        if theirs != mine:
            return "this edit changes its managed section"
    return None


def _section(text: str) -> str | InputError | None:
    """The section's text, line endings included; None for a file with no marker at all."""
    if MARKER not in text:
        return None
    try:
        found = read_markdown_memory(text.encode("utf-8"))
    except InputError as e:
        return e
    return text[len(found.before) : len(text) - len(found.after)]


def _refusal(name: str, why: str, lessons: str) -> str:
    return (
        f"{name}: {why}. The lines between <!-- evidence-rank:memory ... --> and <!-- /evidence-rank:memory --> "
        "are written only by `evidence-rank apply`, from a ranked report. To keep a lesson, add one line to "
        f"{lessons} saying what you learned and the commands you ran that showed it: the curator reads it there "
        "and proposes it, with that evidence, for ranking. Do not put it in the prose around the section instead: "
        "a prose edit fails CI until a person has reviewed it."
    )


def bash_targets(call: Call, read: Callable[[str], bytes | None]) -> tuple[str, str] | None:
    """Step 5: the first memory file a Bash command names, when the command may write it, and why it
    is refused; None when it may run.

    Words are split at white space, quotes and a redirection's sign taken off (a C-speed split: a
    command of megabytes is checked within Claude Code's hook timeout, after which it would run);
    a command with more than :data:`MAX_WORDS` distinct words is refused unchecked."""
    command = call.args["command"]
    lowered = command.lower()
    named = next((name for name in sorted(GUARDED_NAMES) if name in lowered), None)
    if named is None:  # the name of a link, another memory file, or a glob that matches one
        words = set(command.split())
        if len(words) > MAX_WORDS and not _only_reads(command):
            return "Bash", f"a command of {len(words):,} distinct words is more than the hook checks ({MAX_WORDS:,})"
        for word in sorted(words):
            target = _REDIRECT.sub("", word).strip("'\"();&|<>")
            if target and _is_memory(call, target, read):
                named = target
                break
    if named is None or _only_reads(command):
        return None
    return (
        named,
        f"this command names it ({named!r}) and may write it; read it with cat or grep, edit its prose with Edit",
    )


def _is_memory(call: Call, word: str, read: Callable[[str], bytes | None]) -> bool:
    paths = [word]
    if any(c in word for c in "*?["):
        paths = glob.glob(os.path.join(call.cwd, word))
    for path in paths:
        full = resolved(call, path)
        if os.path.basename(path).lower() in GUARDED_NAMES or os.path.basename(full).lower() in GUARDED_NAMES:
            return True
        try:
            raw = read(full) if os.path.isfile(full) else None
        except (ConfigError, InputError):
            return True  # a file that cannot be read cannot be cleared
        if raw is not None and MARKER.encode() in raw:
            return True
    return False


def _only_reads(command: str) -> bool:
    """Whether every command in ``command`` is a reader given no option that writes, and nothing is redirected
    into a file (a ``>`` outside quotes)."""
    if ">" in _unquoted(command) or "`" in command or "$(" in command:
        return False
    for part in _SEPARATORS.split(command):
        try:
            words = shlex.split(part)
        except ValueError:
            return False
        if not words:
            continue
        program = os.path.basename(words[0])
        if program == "git":
            if len(words) < 2 or words[1] not in _GIT_READERS:
                return False
            continue
        if program not in _READERS:
            return False
        if program == "sed" and any(w.startswith(("-i", "--in-place")) or w == "w" for w in words[1:]):
            return False
        if program == "awk":
            return False  # awk's program can print into a file
    return True


def _unquoted(command: str) -> str:
    """``command`` with what single and double quotes hold taken out."""
    return re.sub(r"'[^']*'|\"(?:\\.|[^\"\\])*\"", "", command)
