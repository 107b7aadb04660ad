"""Names a pull request controls cannot forge CI output (issue 24): a file named
``x\\n::error::y``, a memory key ``</details>\\n# pwned``, a member named like a workflow
command. Every line on stdout and stderr that starts with ``::`` is one of the gate's own
annotations, and the step summary holds no markup of theirs. And ``gate --format json``
prints exactly one JSON document: with a file name that is not UTF-8, and on a usage error."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from curator_io import canon, seal
from ranking.checking.gate import compare_memory
from ranking.cli.output import emit
from ranking.views.gate import render_github, render_text
from tests.conftest import PARITY, REPO, base_of

CASE = PARITY / "069-rank-conflict-same-key-different-text"
FORGED = "x\n::error::forged"
KEY = "</details>\n# pwned <img src=x onerror=alert(1)> | `code` *bold*"
#: The gate's own workflow commands: an error annotation (on a file or not) or the passing notice.
OURS = re.compile(r"::(error|warning|notice) (file=[^\n]*,)?title=evidence-rank gate(%3A [a-z_.]+)?::")


def _run(*argv: str | bytes, summary: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "CI": "true"}
    if summary is not None:
        env["GITHUB_STEP_SUMMARY"] = str(summary)
    return subprocess.run(
        [sys.executable, "-m", "ranking.cli", *argv], cwd=REPO, capture_output=True, env=env, check=False
    )


def _lines(proc: subprocess.CompletedProcess[bytes]) -> list[str]:
    return (proc.stdout + proc.stderr).decode("utf-8", "replace").splitlines()


def _assert_no_forged_command(proc: subprocess.CompletedProcess[bytes]) -> None:
    """No line holds a workflow command but the gate's own: ``::`` at the start (after the spaces
    the runner trims), or the legacy ``##[`` anywhere."""
    for line in _lines(proc):
        assert not line.lstrip().startswith("::") or OURS.match(line), line
        assert "##[" not in line, line


def _hostile_memory(tmp_path: Path, name: str = FORGED + ".json") -> Path:
    memory = json.loads((CASE / "expected.apply.json").read_bytes())
    memory["instructions"].append(seal({"key": KEY, "text": "t", "scope": {"level": "global"}, "origin": "user"}))
    memory[FORGED] = 1  # an unexpected member: its name becomes a pointer
    path = tmp_path / name
    path.write_bytes(canon(memory))
    return path


def _gate(memory: Path | str, *extra: str, bundle: Path | str = CASE / "bundle.json", summary: Path | None = None):
    return _run(
        "gate",
        "--bundle",
        str(bundle),
        "--report",
        str(CASE / "expected.report.json"),
        "--memory-after",
        str(memory),
        *base_of(CASE / "bundle.json"),
        *extra,
        summary=summary,
    )


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_findings_on_hostile_keys_and_a_hostile_file_name_forge_no_workflow_command(tmp_path: Path, fmt: str) -> None:
    summary = tmp_path / "summary.md"
    proc = _gate(_hostile_memory(tmp_path), "--format", fmt, summary=summary if fmt == "github" else None)
    assert proc.returncode == 1, proc.stderr
    _assert_no_forged_command(proc)
    if fmt == "github":
        assert sum(1 for line in _lines(proc) if OURS.match(line) and "::error " in line) == 2  # the member, the key
    if fmt == "json":
        assert len(proc.stdout.splitlines()) == 1
        assert {f["key"] for f in json.loads(proc.stdout)["findings"]} == {None, KEY}


def test_the_step_summary_shows_hostile_keys_as_text_never_as_markup(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("## earlier step\n", encoding="utf-8")
    proc = _gate(_hostile_memory(tmp_path), "--format", "github", summary=summary)
    assert proc.returncode == 1
    text = summary.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert [line for line in lines if line.startswith("#")] == ["## earlier step", "### evidence-rank gate: failed"]
    assert "<" not in text and ">" not in text.replace("-->", "")
    (row,) = [line for line in lines if line.startswith("| unexpected_addition |")]
    # Escaped, not dropped: the key is there to read, its specials behind a backslash or as entities.
    assert r"&lt;/details&gt;\\n# pwned &lt;img src=x onerror=alert(1)&gt; \| \`code\` \*bold\*" in row
    assert row.count(" | ") == 3  # the hostile | is not a fifth cell


def test_a_refused_file_named_like_a_workflow_command_forges_nothing_anywhere(tmp_path: Path) -> None:
    bundle = tmp_path / (FORGED + "\n# heading <b>.json")
    bundle.write_bytes(b"{")
    summary = tmp_path / "summary.md"
    proc = _gate(_hostile_memory(tmp_path), "--format", "github", bundle=bundle, summary=summary)
    assert proc.returncode == 3
    _assert_no_forged_command(proc)
    err = proc.stderr.decode().splitlines()
    assert err[0].startswith(r"evidence-rank: " + repr(str(bundle))[1:-1][:20])
    assert "input.malformed_json" in err[0]
    text = summary.read_text(encoding="utf-8")
    assert [line for line in text.splitlines() if line.startswith("#")] == ["### evidence-rank gate: refused (exit 3)"]
    assert "<b>" not in text and r"x\\n::error::forged\\n\# heading &lt;b&gt;" not in text
    assert r"x\\n::error::forged\\n# heading &lt;b&gt;.json" in text


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_error_lines_and_console_logs_keep_a_hostile_name_on_one_line(tmp_path: Path, fmt: str) -> None:
    bundle = tmp_path / (FORGED + ".json")
    bundle.write_bytes(b"{")
    proc = _run(
        "-vv",
        "--log-format",
        "console",
        "gate",
        "--bundle",
        str(bundle),
        "--report",
        str(CASE / "expected.report.json"),
        "--memory-after",
        str(bundle),
        "--skip-base-check",
        "--format",
        fmt,
    )
    assert proc.returncode == 3
    _assert_no_forged_command(proc)
    assert not any(line.startswith("::") for line in _lines(proc))
    assert any(r"x\n::error::forged.json" in line for line in proc.stderr.decode().splitlines())


def test_gate_json_prints_one_document_for_a_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    bundle = os.path.join(os.fsencode(tmp_path), b"b\xff.json")
    with open(bundle, "wb") as f:
        f.write(b"{")
    proc = _run(
        b"gate",
        b"--bundle",
        bundle,
        b"--report",
        os.fsencode(CASE / "expected.report.json"),
        b"--memory-after",
        bundle,
        b"--skip-base-check",
        b"--format",
        b"json",
    )
    assert proc.returncode == 3
    assert b"Traceback" not in proc.stderr
    (line,) = proc.stdout.splitlines()
    doc = json.loads(line)
    assert doc["passed"] is False
    assert doc["error"]["code"] == "input.malformed_json" and doc["error"]["exit_code"] == 3
    assert doc["error"]["file"].endswith(r"b\udcff.json")


@pytest.mark.parametrize(
    "extra",
    [["--format", "json"], ["--format=json"], ["--format", "json", "--memory-after"]],
    ids=["--format json", "--format=json", "an option without its value"],
)
def test_gate_json_prints_one_document_on_a_usage_error(extra: list[str]) -> None:
    proc = _run("gate", "--bundle", str(CASE / "bundle.json"), "--report", str(CASE / "expected.report.json"), *extra)
    assert proc.returncode == 2
    (line,) = proc.stdout.splitlines()
    doc = json.loads(line)
    assert doc == {
        "passed": False,
        "error": {
            "code": "usage.invalid_option",
            "pointer": None,
            "message": doc["error"]["message"],
            "file": None,
            "exit_code": 2,
        },
    }
    assert doc["error"]["message"].startswith("usage.invalid_option: ")
    assert "--memory-after" in doc["error"]["message"]
    assert "error: " in proc.stderr.decode()  # argparse's own line, with the usage, stays on stderr


def test_an_unknown_option_after_gate_json_is_one_document_too() -> None:
    proc = _run(
        "--log-format",
        "json",
        "gate",
        "--bundle",
        "b",
        "--report",
        "r",
        "--memory-after",
        "m",
        "--format",
        "json",
        "--bogus",
    )
    assert proc.returncode == 2
    (line,) = proc.stdout.splitlines()
    assert json.loads(line)["error"]["message"] == "usage.invalid_option: unrecognized arguments: --bogus"


def test_a_usage_error_in_another_format_leaves_stdout_empty() -> None:
    proc = _run("gate", "--bundle", "b", "--report", "r", "--format", "text")
    assert proc.returncode == 2
    assert proc.stdout == b""


def test_a_console_log_line_shows_a_hostile_file_name_quoted_and_escaped(tmp_path: Path) -> None:
    bundle = tmp_path / (FORGED + ".json")
    bundle.write_bytes((CASE / "bundle.json").read_bytes())
    proc = _run("-v", "--log-format", "console", "apply", str(bundle), str(CASE / "expected.report.json"))
    assert proc.returncode == 0
    (log,) = [line for line in proc.stderr.decode().splitlines() if "applied" in line]
    assert r"x\n::error::forged.json" in log
    assert not any(line.startswith("::") for line in _lines(proc))


def test_codes_from_a_crafted_ledger_stay_on_their_line_in_scores_table(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.db"
    bundle = CASE / "bundle.json"
    assert _run("score", str(bundle), "--out-dir", str(tmp_path / "out"), "--ledger", str(ledger), "-q").returncode == 0
    # A ledger merged from elsewhere: another report refused these edits, for a code it made up.
    db = sqlite3.connect(ledger)
    with db:
        db.execute(
            "UPDATE decisions SET report = ?, reasons = ? WHERE disposition != 'selected'",
            ("sha256:" + "0" * 64, json.dumps([{"code": FORGED, "subject": None}])),
        )
    db.close()
    proc = _run("score", str(bundle), "--out-dir", str(tmp_path / "out"), "--ledger", str(ledger))
    assert proc.returncode == 0, proc.stderr
    assert r"refused 1× before: x\n::error::forged" in proc.stdout.decode()
    _assert_no_forged_command(proc)


def test_annotations_and_text_carry_no_terminal_escape_from_a_member_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    permitted = json.loads((CASE / "expected.apply.json").read_bytes())
    result = compare_memory(permitted, {**permitted, "\x1b[8mhidden\u202e": 1})
    for lines in (render_github(result, file="memory.json"), render_text(result)):
        emit(lines)
        text = capsys.readouterr().out
        assert "\x1b" not in text and "\u202e" not in text
        assert r"\x1b[8mhidden\u202e" in text


def test_a_usage_error_of_another_command_with_a_json_format_is_not_a_gate_verdict() -> None:
    proc = _run("ledger", "history", "gate", "--format", "json", "--bogus")
    assert proc.returncode == 2
    assert proc.stdout == b""


def test_an_unknown_argument_named_like_a_workflow_command_stays_on_the_usage_line() -> None:
    proc = _run("gate", "--bundle", "b", "--report", "r", "--memory-after", "m", "--bogus" + FORGED)
    assert proc.returncode == 2
    assert not any(line.startswith("::") for line in _lines(proc))
    assert (
        proc.stderr.decode().splitlines()[-1]
        == r"evidence-rank: error: unrecognized arguments: --bogusx\n::error::forged"
    )


@pytest.mark.parametrize("refused", [True, False], ids=["a refused bundle", "a finding on memory-after"])
def test_a_file_property_carries_no_terminal_escape_from_a_file_name(tmp_path: Path, refused: bool) -> None:
    name = "m\x1b[8mhidden\u202e.json"
    memory = _hostile_memory(tmp_path, name)
    bundle = tmp_path / name if refused else CASE / "bundle.json"
    if refused:
        memory.write_bytes(b"{")
    proc = _gate(memory, "--format", "github", bundle=bundle)
    assert proc.returncode == (3 if refused else 1)
    annotations = [line for line in _lines(proc) if line.startswith("::error file=")]
    assert annotations
    for line in annotations:
        assert "\x1b" not in line and "\u202e" not in line
        assert r"m\x1b[8mhidden\u202e.json" in line


def test_a_full_disk_leaves_the_step_summary_as_the_earlier_steps_wrote_it(tmp_path: Path) -> None:
    import resource
    import signal

    summary = tmp_path / "summary.md"
    summary.write_text("## earlier step\n", encoding="utf-8")

    def full_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG from write(), not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (40, 40))  # room for a part of the gate's table only

    proc = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "gate", "--bundle", str(CASE / "bundle.json"), "--report"]
        + [str(CASE / "expected.report.json"), "--memory-after", str(CASE / "expected.apply.json")]
        + list(base_of(CASE / "bundle.json"))
        + ["--format", "github"],
        cwd=REPO,
        capture_output=True,
        env={**os.environ, "GITHUB_STEP_SUMMARY": str(summary)},
        preexec_fn=full_disk,
        check=False,
    )
    assert proc.returncode == 2
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith("evidence-rank: usage.unwritable: cannot append to GITHUB_STEP_SUMMARY")
    assert summary.read_text(encoding="utf-8") == "## earlier step\n"


def test_a_refusal_annotation_carries_no_terminal_escape_from_the_message(tmp_path: Path) -> None:
    trust = tmp_path / "trusted-signers"
    trust.write_bytes(b"sha256:" + b"a" * 64 + b" ssh-\x1b[8mhidden\n")  # its detail quotes the word as it is
    memory = CASE / "expected.apply.json"
    proc = _gate(memory, "--format", "github", "--trust", str(trust))
    assert proc.returncode == 2
    (annotation,) = [line for line in _lines(proc) if line.startswith("::error ")]
    assert "trust.invalid" in annotation and "\x1b" not in annotation
    assert r"ssh-\x1b[8mhidden" in annotation


def test_an_abbreviated_format_is_an_unknown_option_not_a_json_request() -> None:
    proc = _run("gate", "--bundle", "b", "--report", "r", "--memory-after", "m", "--form", "json")
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert "unrecognized arguments: --form json" in proc.stderr.decode()
