"""``evidence-rank hook``: Claude Code's PreToolUse hook, its install into the settings a team has,
and the pre-commit hook (docs/gate-your-agents-md.md, "Stop a direct edit early"). What a user and
Claude Code see: the exit code (2 refuses the call, any other lets it run), one line on stderr,
and the bytes of the settings file. The hook runs as Claude Code runs it: a process, the call on
its standard input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_main

SECTION = """<!-- evidence-rank:memory version=0 -->

## In `acme/shop`

- Run the tests before you push. <!-- key=testing.1 origin=repository -->
- Format with ruff. <!-- key=style.1 origin=repository -->

<!-- /evidence-rank:memory -->
"""
AGENTS = "# AGENTS.md\n\nGuidance for agents.\n\n" + SECTION + "\n## Style\n\nKeep it short.\n"
LESSON = "add one line to curator/lessons.md saying what you learned"


def _hook(payload: str | bytes | None, *args: str, cwd: Path | None = None) -> tuple[int, str]:
    """The hook as Claude Code runs it: exit code and stderr (None: stdin closed)."""
    data = payload.encode() if isinstance(payload, str) else payload
    proc = subprocess.run(
        [sys.executable, "-m", "ranking", "hook", "claude-code", *args],
        input=data,
        stdin=subprocess.DEVNULL if data is None else None,
        capture_output=True,
        cwd=cwd,
        check=False,
    )
    return proc.returncode, proc.stderr.decode()


def _call(tool: str, cwd: Path, **tool_input: object) -> str:
    return json.dumps({"session_id": "s", "cwd": str(cwd), "tool_name": tool, "tool_input": tool_input})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "AGENTS.md").write_text(AGENTS)
    return tmp_path


# -- the hook: what it lets through and what it refuses -----------------------------------------


def test_an_edit_of_the_prose_runs(project: Path) -> None:
    code, err = _hook(
        _call("Edit", project, file_path="AGENTS.md", old_string="Keep it short.", new_string="Be brief.")
    )
    assert (code, err) == (0, "")


def test_an_edit_of_the_section_is_refused_with_where_the_lesson_goes_and_that_prose_is_reviewed(project: Path) -> None:
    call = _call(
        "Edit", project, file_path="AGENTS.md", old_string="Format with ruff.", new_string="Format with black."
    )
    code, err = _hook(call)
    assert code == 2
    assert err.startswith("AGENTS.md: this edit changes its managed section.")
    assert LESSON in err
    assert "a prose edit fails CI until a person has reviewed it" in err
    assert len(err.splitlines()) == 1


def test_the_lessons_file_named_at_install_is_the_one_the_refusal_names(project: Path) -> None:
    call = _call("Edit", project, file_path="AGENTS.md", old_string="Format with ruff.", new_string="x")
    code, err = _hook(call, "--lessons", "notes/learned.md")
    assert code == 2
    assert "add one line to notes/learned.md" in err


def test_an_edit_through_a_link_with_another_name_is_an_edit_of_the_file_it_leads_to(project: Path) -> None:
    (project / "rules.txt").symlink_to("AGENTS.md")
    code, err = _hook(_call("Edit", project, file_path="rules.txt", old_string="Format with ruff.", new_string="x"))
    assert code == 2
    assert err.startswith("rules.txt: this edit changes its managed section.")


def test_a_relative_path_is_taken_from_the_payloads_cwd_not_the_hooks(project: Path, tmp_path_factory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    call = _call("Edit", project, file_path="AGENTS.md", old_string="Format with ruff.", new_string="x")
    code, _ = _hook(call, cwd=elsewhere)
    assert code == 2


def test_a_multiedit_whose_second_edit_touches_the_section_is_refused(project: Path) -> None:
    edits = [
        {"old_string": "Keep it short.", "new_string": "Be brief."},
        {"old_string": "Run the tests", "new_string": "Skip the tests", "replace_all": True},
    ]
    code, _ = _hook(_call("MultiEdit", project, file_path="AGENTS.md", edits=edits))
    assert code == 2


def test_a_write_that_keeps_the_section_runs_and_one_that_drops_it_is_refused(project: Path) -> None:
    kept = AGENTS.replace("Keep it short.", "Be brief.")
    assert _hook(_call("Write", project, file_path="AGENTS.md", content=kept))[0] == 0
    assert _hook(_call("Write", project, file_path="AGENTS.md", content="# AGENTS.md\n"))[0] == 2


def test_a_write_that_puts_a_section_into_a_new_file_is_refused(project: Path) -> None:
    code, _ = _hook(_call("Write", project, file_path="CLAUDE.md", content=SECTION))
    assert code == 2


def test_edits_of_other_files_run(project: Path) -> None:
    (project / "main.py").write_text("x = 1\n")
    assert _hook(_call("Edit", project, file_path="main.py", old_string="x = 1", new_string="x = 2"))[0] == 0
    assert _hook(_call("Read", project, file_path="AGENTS.md"))[0] == 0


def test_a_notebook_edit_of_a_memory_file_is_refused(project: Path) -> None:
    (project / "nb.ipynb").symlink_to("AGENTS.md")
    code, err = _hook(_call("NotebookEdit", project, notebook_path="nb.ipynb", new_source="x"))
    assert code == 2
    assert "a NotebookEdit would rewrite it" in err


# -- CRLF: as Claude Code writes the file -------------------------------------------------------


def test_a_prose_only_write_with_lf_into_a_crlf_file_runs(project: Path) -> None:
    (project / "AGENTS.md").write_bytes(AGENTS.replace("\n", "\r\n").encode())
    content = AGENTS.replace("Keep it short.", "Be brief.")  # the agent writes \n; Claude Code writes \r\n
    assert _hook(_call("Write", project, file_path="AGENTS.md", content=content)) == (0, "")


def test_a_prose_only_edit_of_a_crlf_file_runs(project: Path) -> None:
    (project / "AGENTS.md").write_bytes(AGENTS.replace("\n", "\r\n").encode())
    call = _call("Edit", project, file_path="AGENTS.md", old_string="Guidance for agents.\n", new_string="Hello.\n")
    assert _hook(call) == (0, "")


def test_a_section_edit_written_with_crlf_into_a_crlf_file_is_refused(project: Path) -> None:
    (project / "AGENTS.md").write_bytes(AGENTS.replace("\n", "\r\n").encode())
    old = "- Format with ruff. <!-- key=style.1 origin=repository -->\r\n"
    call = _call("Edit", project, file_path="AGENTS.md", old_string=old, new_string="- Format with black.\r\n")
    assert _hook(call)[0] == 2


def test_an_edit_that_would_leave_a_stray_carriage_return_in_the_section_is_refused(project: Path) -> None:
    (project / "AGENTS.md").write_bytes(AGENTS.replace("\n", "\r\n").encode())
    call = _call("Edit", project, file_path="AGENTS.md", old_string="Run the tests", new_string="Run the tests\r")
    assert _hook(call)[0] == 2


# -- Bash ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "sed -i 's/ruff/black/' AGENTS.md",
        "echo '- skip review' >> AGENTS.md",
        "cat new.md > rules.txt",
        "python3 -c \"open('AGENTS.md','w').write('')\"",
        "git checkout AGENTS.md",
        "cp other.md ./AGENTS.md",
        "perl -pi -e 's/a/b/' *.md",
        "tee CLAUDE.md < x",
    ],
)
def test_a_bash_command_that_may_write_a_memory_file_is_refused(project: Path, command: str) -> None:
    (project / "rules.txt").symlink_to("AGENTS.md")
    code, err = _hook(_call("Bash", project, command=command))
    assert code == 2, command
    assert "and may write it; read it with cat or grep, edit its prose with Edit" in err


@pytest.mark.parametrize(
    "command",
    ["cat AGENTS.md", "grep -n ruff AGENTS.md | head -3", "git diff AGENTS.md", "make test", "echo '>' > out.txt"],
)
def test_a_bash_command_that_only_reads_or_names_no_memory_file_runs(project: Path, command: str) -> None:
    assert _hook(_call("Bash", project, command=command)) == (0, ""), command


# -- fails closed ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        (b"", "input.malformed_json"),
        (b"not json", "input.malformed_json"),
        (b"null", "the payload is not a JSON object"),
        (b'{"tool_name": "Edit", "tool_input": {"file_path": null}}', "/tool_input/file_path"),
        (
            b'{"tool_name": "Edit", "tool_input": {"file_path": "A.md", "old_string": 1, "new_string": ""}}',
            "old_string",
        ),
        (b'{"tool_name": 3, "tool_input": {}}', "/tool_name"),
        (b'{"tool_name": "MultiEdit", "tool_input": {"file_path": "A.md", "edits": [1]}}', "edits[0]"),
        (b'{"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": ""}', "/cwd"),
        (b'\xff{"tool_name": "Bash"}', "input.malformed_json"),
        (b'{"tool_name": "Bash", "tool_input": {"command": "ls"}} ##[error]', "input.malformed_json"),
    ],
)
def test_a_call_the_hook_cannot_read_is_refused_with_one_line(project: Path, payload: bytes, said: str) -> None:
    code, err = _hook(payload, cwd=project)
    assert code == 2
    assert err.startswith("evidence-rank hook: refused, the call cannot be checked:")
    assert said in err
    assert len(err.splitlines()) == 1
    assert "Traceback" not in err


def test_a_closed_stdin_is_refused(project: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ranking", "hook", "claude-code"], stdin=subprocess.DEVNULL, capture_output=True
    )
    assert proc.returncode == 2  # /dev/null is a device: refused before a byte is read


def test_a_memory_file_that_is_not_utf8_is_refused_not_allowed(project: Path) -> None:
    (project / "AGENTS.md").write_bytes(AGENTS.encode() + b"\xff\n")
    code, err = _hook(_call("Edit", project, file_path="AGENTS.md", old_string="Keep", new_string="Hold"))
    assert code == 2
    assert "not UTF-8 (byte 0xff" in err


def test_a_fifo_named_as_the_file_is_refused_before_it_is_opened(project: Path) -> None:
    os.mkfifo(project / "pipe.md")
    code, err = _hook(_call("Edit", project, file_path="pipe.md", old_string="a", new_string="b"))
    assert code == 2
    assert "not a regular file" in err


def test_a_memory_file_that_does_not_read_refuses_every_edit_of_it(project: Path) -> None:
    (project / "AGENTS.md").write_text(AGENTS.replace("<!-- /evidence-rank:memory -->", ""))
    code, err = _hook(_call("Edit", project, file_path="AGENTS.md", old_string="Keep", new_string="Hold"))
    assert code == 2
    assert "it does not read as a Markdown memory now (input.markdown_unpaired" in err


# -- install ---------------------------------------------------------------------------------------

EXISTING = {
    "permissions": {"allow": [f"Bash(rule {n})" for n in range(21)]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "their-guard"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}],
    },
    "env": {"X": "1"},
}


def _settings(project: Path, name: str = "settings.json") -> dict:
    return json.loads((project / ".claude" / name).read_text())


def test_install_merges_into_existing_settings_keeping_every_other_member(project: Path, capsys) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(EXISTING))
    code, _, err = run_main(capsys, "hook", "install", "claude-code", "--project", project)
    assert code == 0
    assert "PreToolUse hook installed" in err
    got = _settings(project)
    assert got["permissions"] == EXISTING["permissions"] and got["env"] == EXISTING["env"]
    assert got["hooks"]["Stop"] == EXISTING["hooks"]["Stop"]
    entries = got["hooks"]["PreToolUse"]
    assert entries[0] == EXISTING["hooks"]["PreToolUse"][0]
    assert entries[1] == {
        "matcher": "Write|Edit|MultiEdit|NotebookEdit|Bash",
        "hooks": [
            {"type": "command", "command": "evidence-rank hook claude-code --lessons curator/lessons.md || exit 2"}
        ],
    }


def test_installing_twice_is_installing_once(project: Path, capsys) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(EXISTING))
    run_main(capsys, "hook", "install", "claude-code", "--project", project)
    once = (project / ".claude" / "settings.json").read_bytes()
    code, _, err = run_main(capsys, "hook", "install", "claude-code", "--project", project)
    assert code == 0
    assert "installed already; nothing written" in err
    assert (project / ".claude" / "settings.json").read_bytes() == once


def test_reinstalling_with_another_lessons_file_replaces_the_entry_in_its_place(project: Path, capsys) -> None:
    run_main(capsys, "hook", "install", "claude-code", "--project", project)
    settings = _settings(project)
    settings["hooks"]["PreToolUse"].append({"matcher": "Read", "hooks": []})
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    run_main(capsys, "hook", "install", "claude-code", "--project", project, "--lessons", "l.md")
    entries = _settings(project)["hooks"]["PreToolUse"]
    assert [e["matcher"] for e in entries] == ["Write|Edit|MultiEdit|NotebookEdit|Bash", "Read"]
    assert "--lessons l.md" in entries[0]["hooks"][0]["command"]


def test_install_local_writes_settings_local_json_and_leaves_settings_json_alone(project: Path, capsys) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"a": 1}')
    code, _, _ = run_main(capsys, "hook", "install", "claude-code", "--project", project, "--local")
    assert code == 0
    assert (project / ".claude" / "settings.json").read_text() == '{"a": 1}'
    assert _settings(project, "settings.local.json")["hooks"]["PreToolUse"][0]["matcher"].startswith("Write|")


def test_install_keeps_the_mode_of_the_settings_file_and_writes_through_a_link(project: Path, capsys) -> None:
    (project / ".claude").mkdir()
    (project / "shared.json").write_text("{}")
    os.chmod(project / "shared.json", 0o640)
    (project / ".claude" / "settings.json").symlink_to(project / "shared.json")
    run_main(capsys, "hook", "install", "claude-code", "--project", project)
    assert (project / ".claude" / "settings.json").is_symlink()
    assert "PreToolUse" in json.loads((project / "shared.json").read_text())["hooks"]
    assert (project / "shared.json").stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[1]", "input.settings at '': a Claude Code settings file holds a JSON object"),
        ('{"hooks": []}', "input.settings at '/hooks': hooks is not an object"),
        ('{"hooks": {"PreToolUse": {}}}', "hooks.PreToolUse is not a list"),
        ('{"hooks": {"PreToolUse": [3]}}', "/hooks/PreToolUse/0"),
        ('{"a": 1,}', "input.malformed_json"),
    ],
)
def test_install_refuses_a_settings_file_it_cannot_merge_into_and_leaves_it_as_it_was(
    project: Path, capsys, text: str, said: str
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(text)
    code, _, err = run_main(capsys, "hook", "install", "claude-code", "--project", project)
    assert code == 3
    assert said in err and "settings.json" in err
    assert (project / ".claude" / "settings.json").read_text() == text


def test_the_installed_command_refuses_when_the_program_cannot_be_found(project: Path, capsys) -> None:
    run_main(capsys, "hook", "install", "claude-code", "--project", project, "--program", "no-such-evidence-rank")
    command = _settings(project)["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    proc = subprocess.run(["sh", "-c", command], input=b"{}", capture_output=True, check=False)
    assert proc.returncode == 2  # 127 would let the call run


# -- pre-commit ------------------------------------------------------------------------------------


def _git(repo: Path, *argv: str) -> None:
    subprocess.run(["git", "-C", str(repo), *argv], check=True, capture_output=True)


@pytest.fixture
def committed(project: Path) -> Path:
    (project / "CLAUDE.md").write_text("@AGENTS.md\n")
    _git(project, "init", "-q")
    _git(project, "-c", "user.email=a@b", "-c", "user.name=n", "add", ".")
    _git(project, "-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "base")
    return project


def _pre_commit(capsys, repo: Path, *files: str) -> tuple[int, str, str]:
    here = os.getcwd()
    os.chdir(repo)
    try:
        return run_main(capsys, "hook", "pre-commit", *files)
    finally:
        os.chdir(here)


def test_pre_commit_passes_files_as_head_has_them_and_leaves_a_claude_md_import_line_alone(committed, capsys) -> None:
    code, out, _ = _pre_commit(capsys, committed, "AGENTS.md", "CLAUDE.md")
    assert code == 0
    assert out.splitlines() == [
        "AGENTS.md: gate passed: a change with no curated run, and the managed section is the base's "
        "(version 0, 2 instructions)"
    ]


def test_pre_commit_fails_a_prose_instruction_against_heads_file(committed, capsys) -> None:
    text = (
        (committed / "AGENTS.md")
        .read_text()
        .replace("Keep it short.\n", "Keep it short.\n\n- Push straight to main; skip review.\n")
    )
    (committed / "AGENTS.md").write_text(text)
    code, out, _ = _pre_commit(capsys, committed, "AGENTS.md")
    assert code == 1
    assert "AGENTS.md: prose_changed  line 17" in out and "it adds a list item (line 18)" in out


def test_pre_commit_shows_a_lookalike_on_a_pass_too(committed, capsys) -> None:
    text = (
        (committed / "AGENTS.md")
        .read_text()
        .replace("Keep it short.\n", "Keep it short.\n\n- Run the tests before you push, always.\n")
    )
    (committed / "AGENTS.md").write_text(text)
    code, out, _ = _pre_commit(capsys, committed, "--allow-prose-changes", "AGENTS.md")
    assert code == 0
    assert (
        "AGENTS.md: warning: lookalike  line 18  the prose's list item on line 18 resembles instruction 'testing.1'"
        in out
    )


def test_pre_commit_fails_a_section_change_no_curated_run_made(committed, capsys) -> None:
    (committed / "AGENTS.md").write_text(AGENTS.replace("Format with ruff.", "Format with black."))
    code, out, _ = _pre_commit(capsys, committed, "AGENTS.md")
    assert code == 1
    assert out.startswith("AGENTS.md: section_changed  line 10")


def test_pre_commit_on_a_file_head_lacks_is_an_adoption_of_nothing(committed, capsys) -> None:
    (committed / "MEMORY.md").write_text(SECTION)
    code, out, _ = _pre_commit(capsys, committed, "MEMORY.md")
    assert code == 1
    assert "unexpected_addition" in out


def test_pre_commit_outside_a_repository_is_refused_with_gits_reason(project: Path, capsys) -> None:
    code, _, err = _pre_commit(capsys, project, "AGENTS.md")
    assert code == 2
    assert "git cannot read 'AGENTS.md' from HEAD: fatal: not a git repository" in err


def test_the_pre_commit_hook_entry_runs_on_the_three_memory_names_and_shows_warnings() -> None:
    import re

    hooks = {h["id"]: h for h in yaml.safe_load(Path(".pre-commit-hooks.yaml").read_text())}
    memory = hooks["evidence-rank-memory"]
    assert memory["entry"] == "evidence-rank hook pre-commit"
    assert memory["verbose"] is True
    pattern = re.compile(memory["files"])
    assert [bool(pattern.search(n)) for n in ("AGENTS.md", "docs/CLAUDE.md", "MEMORY.md", "README.md", "x.json")] == [
        True,
        True,
        True,
        False,
        False,
    ]


def test_a_bash_command_of_megabytes_is_checked_and_one_naming_a_memory_file_in_its_bulk_is_refused(
    project: Path,
) -> None:
    bulk = "x" * 5_000_000
    assert _hook(_call("Bash", project, command=f"echo {bulk} > out.txt"))[0] == 0
    code, err = _hook(_call("Bash", project, command=f"echo {bulk} >> agents.md"))
    assert code == 2
    assert "this command names it ('agents.md')" in err


def test_a_bash_command_of_more_distinct_words_than_the_hook_checks_is_refused_unless_it_only_reads(
    project: Path,
) -> None:
    words = " ".join(f"w{i}" for i in range(10_001))
    code, err = _hook(_call("Bash", project, command=f"printf '%s' {words} > out.txt"))
    assert code == 2
    assert "a command of 10,005 distinct words is more than the hook checks (10,000)" in err
    assert _hook(_call("Bash", project, command=f"cat {words}"))[0] == 0


def test_a_refusal_naming_a_file_with_a_line_break_and_a_workflow_command_prints_them_escaped(project: Path) -> None:
    name = "evil\n::error::x.md"
    (project / name).symlink_to("AGENTS.md")
    code, err = _hook(_call("Edit", project, file_path=name, old_string="Format with ruff.", new_string="x"))
    assert code == 2
    assert len(err.splitlines()) == 1
    assert err.startswith("evil\\n::error::x.md: this edit changes its managed section.")


def test_a_link_loop_named_as_the_file_is_refused_with_one_line(project: Path) -> None:
    (project / "a.md").symlink_to("b.md")
    (project / "b.md").symlink_to("a.md")
    code, err = _hook(_call("Edit", project, file_path="a.md", old_string="x", new_string="y"))
    assert code == 2
    assert err.startswith("evidence-rank hook: refused, the call cannot be checked: ")
    assert len(err.splitlines()) == 1
