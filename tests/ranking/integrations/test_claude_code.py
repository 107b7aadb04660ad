"""The Claude Code hook's decision and its install, called as the library (the CLI's tests,
tests/ranking/cli/test_cli_hooks.py, run it as Claude Code does): what a call writes, each way
Claude Code may write it, and the settings an install writes, read back."""

from __future__ import annotations

import json

import pytest

from curator_io.errors import InputError
from ranking.integrations.claude_code import Call, edited, read_call
from ranking.integrations.claude_code_settings import hook_entry, merged_settings


def _edit(old: str, new: str, replace_all: bool = False) -> Call:
    return Call("Edit", {"file_path": "A.md", "old_string": old, "new_string": new, "replace_all": replace_all}, "/")


def test_an_edit_of_a_crlf_file_matches_with_lf_and_writes_crlf_and_the_file_as_it_is() -> None:
    assert edited(_edit("b\nc", "B\nC"), "a\r\nb\r\nc\r\n") == ["a\r\nB\r\nC\r\n", None]


def test_an_old_string_holding_crlf_is_matched_in_the_file_as_it_is_too() -> None:
    assert edited(_edit("b\r\n", "X\r\n"), "a\r\nb\r\n") == [None, "a\r\nX\r\n"]


def test_a_write_over_a_crlf_file_is_written_with_crlf_each_way_claude_code_may() -> None:
    call = Call("Write", {"file_path": "A.md", "content": "x\r\ny\n"}, "/")
    assert edited(call, "a\r\n") == ["x\r\r\ny\r\n", "x\r\ny\r\n"]


def test_a_write_over_an_lf_file_or_a_new_one_is_written_as_given() -> None:
    call = Call("Write", {"file_path": "A.md", "content": "x\ny\n"}, "/")
    assert edited(call, "a\n") == ["x\ny\n", "x\ny\n"]
    assert edited(call, None) == ["x\ny\n", "x\ny\n"]


def test_replace_all_replaces_every_occurrence_and_an_edit_that_matches_nothing_writes_nothing() -> None:
    assert edited(_edit("a", "b", replace_all=True), "a a\n")[0] == "b b\n"
    assert edited(_edit("a", "b"), "a a\n")[0] == "b a\n"
    assert edited(_edit("z", "b"), "a\n") == [None, None]


def test_a_call_is_read_with_the_payloads_cwd_or_the_hooks_own() -> None:
    raw = b'{"tool_name": "Bash", "tool_input": {"command": "ls"}}'
    assert read_call(raw, "/here").cwd == "/here"
    assert read_call(raw[:-1] + b', "cwd": "/there"}', "/here").cwd == "/there"


def test_an_optional_member_of_the_wrong_type_is_refused_with_its_pointer() -> None:
    raw = (
        b'{"tool_name": "Edit", "tool_input": {"file_path": "A", "old_string": "", "new_string": "", "replace_all": 1}}'
    )
    with pytest.raises(InputError, match="replace_all is missing or not true or false") as caught:
        read_call(raw, "/")
    assert (caught.value.code, caught.value.pointer) == ("input.hook_payload", "/tool_input/replace_all")


def test_merged_settings_read_back_hold_every_member_and_the_entry_once() -> None:
    before = {"model": "x", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}], "Stop": []}}
    entry = hook_entry("evidence-rank", "curator/lessons.md")
    once = merged_settings(json.dumps(before).encode(), entry)
    assert json.loads(once) == {
        **before,
        "hooks": {"PreToolUse": [before["hooks"]["PreToolUse"][0], entry], "Stop": []},
    }
    assert merged_settings(once, entry) == once


def test_an_entry_shared_with_another_hook_keeps_the_other_hook() -> None:
    ours = hook_entry("evidence-rank", "l.md")["hooks"][0]
    shared = {"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "x"}, ours]}]}}
    entry = hook_entry("evidence-rank", "m.md")
    got = json.loads(merged_settings(json.dumps(shared).encode(), entry))
    assert got["hooks"]["PreToolUse"] == [entry, {"matcher": "Edit", "hooks": [{"type": "command", "command": "x"}]}]


def test_the_program_and_lessons_are_quoted_for_the_shell() -> None:
    command = hook_entry("/opt/my tools/evidence-rank", "notes; rm -rf x")["hooks"][0]["command"]
    assert command == "'/opt/my tools/evidence-rank' hook claude-code --lessons 'notes; rm -rf x' || exit 2"
