"""The three doors, attacked at their edges as the issue-40 probe found them open: an input
read twice (a FIFO), an endless or closed standard input, an output that names an input,
and text that reaches a CI log without the escaper (``ledger notes``, the pytest plugin).
Each test runs the tool as a user would, in a subprocess with a deadline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from curator_io import canon
from curator_io.sealing import seal_bundle
from tests.conftest import FIXTURES, PARITY, REPO

EXAMPLE = FIXTURES / "example.json"
MIXED = PARITY / "002-mixed-dispositions"
COMMAND = "##[error]forged"


def _run(
    *argv: str | Path, stdin: int | None = None, env: dict[str, str] | None = None, cwd: Path = REPO
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ranking.cli", *map(str, argv)],
        cwd=cwd,
        stdin=stdin,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )


def _scored(tmp_path: Path) -> tuple[Path, Path]:
    """The example bundle scored: (bundle, report)."""
    out = tmp_path / "out"
    assert _run("score", EXAMPLE, "--out-dir", out, "-q").returncode == 0
    return EXAMPLE, out / "report.json"


# -- the reader ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command", [["score", "-", "--out-dir", "{tmp}/out"], ["validate", "-"], ["batch", "-", "--out-dir", "{tmp}/out"]]
)
def test_an_endless_standard_input_is_refused_before_it_is_read(command: list[str], tmp_path: Path) -> None:
    argv = [a.format(tmp=tmp_path) for a in command]
    with open("/dev/zero", "rb") as zero:
        proc = _run(*argv, stdin=zero.fileno())
    assert proc.returncode == 2
    assert proc.stderr.decode() == "evidence-rank: usage.unreadable: cannot read standard input: a device, not a file\n"


@pytest.mark.parametrize(
    "command", [["score", "-", "--out-dir", "{tmp}/out"], ["validate", "-"], ["batch", "-", "--out-dir", "{tmp}/out"]]
)
def test_a_closed_standard_input_is_one_line_not_a_traceback(command: list[str], tmp_path: Path) -> None:
    argv = [a.format(tmp=tmp_path) for a in command]
    proc = subprocess.run(
        [sys.executable, "-m", "ranking.cli", *argv],
        cwd=REPO,
        capture_output=True,
        preexec_fn=lambda: os.close(0),  # started as `evidence-rank ... <&-` starts it
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.decode() == "evidence-rank: usage.unreadable: cannot read standard input: it is closed\n"


def _fifo(tmp_path: Path, name: str, data: bytes) -> Path:
    """A FIFO that a thread writes ``data`` into once, as ``<(...)`` does: a second read would hang."""
    path = tmp_path / name
    os.mkfifo(path)

    def write() -> None:
        with open(path, "wb") as f:
            f.write(data)

    threading.Thread(target=write, daemon=True).start()
    return path


def test_the_github_gate_reads_each_input_once_so_fifos_work_and_annotations_find_their_line(tmp_path: Path) -> None:
    bundle, report = _scored(tmp_path)
    after = json.loads(_run("apply", bundle, report).stdout)
    after["instructions"][0]["text"] = "changed"
    indented = json.dumps(after, indent=2).encode()
    fifo_report = _fifo(tmp_path, "report.fifo", report.read_bytes())
    fifo_after = _fifo(tmp_path, "after.fifo", indented)
    fifo_base = _fifo(tmp_path, "base.fifo", canon(json.loads(bundle.read_bytes())["memory"]))
    proc = _run(
        "gate", "--bundle", bundle, "--report", fifo_report, "--memory-after", fifo_after,
        "--memory-before", fifo_base, "--format", "github",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    error = proc.stdout.decode().splitlines()[0]
    # At /instructions/0, the first object of the indented array: placed from the bytes the gate read.
    lines = indented.decode().splitlines()
    opened = lines.index('  "instructions": [') + 1
    assert lines[opened] == "    {"
    assert error.startswith(f"::error file={fifo_after},line={opened + 1},col=5,"), error


def test_a_fifo_report_that_is_refused_is_annotated_from_the_bytes_already_read(tmp_path: Path) -> None:
    bundle, report = _scored(tmp_path)
    doc = json.loads(report.read_bytes())
    doc["outcome"] = "no_op"  # not resealed
    fifo = _fifo(tmp_path, "report.fifo", json.dumps(doc, indent=2).encode())
    proc = _run(
        "gate", "--bundle", bundle, "--report", fifo, "--memory-after", report,
        "--skip-base-check", "--format", "github",
    )  # fmt: skip
    assert proc.returncode == 4
    error = proc.stdout.decode().splitlines()[0]
    assert error.startswith(f"::error file={fifo},line="), error


# -- the doors out ---------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["--report", "--memory-after", "--memory-before", "--bundle"])
def test_a_step_summary_that_names_an_input_is_refused_and_the_input_is_kept(which: str, tmp_path: Path) -> None:
    bundle, report = _scored(tmp_path)
    after = tmp_path / "after.json"
    after.write_bytes(_run("apply", bundle, report).stdout)
    base = tmp_path / "base.json"
    base.write_bytes(canon(json.loads(bundle.read_bytes())["memory"]))
    copied = tmp_path / "bundle.json"
    copied.write_bytes(bundle.read_bytes())
    files = {"--bundle": copied, "--report": report, "--memory-after": after, "--memory-before": base}
    before = files[which].read_bytes()
    argv = [x for name, path in files.items() for x in (name, path)]
    proc = _run("gate", *argv, "--format", "github", env={"GITHUB_STEP_SUMMARY": str(files[which])})
    assert proc.returncode == 2
    assert b"usage.invalid_option" in proc.stderr and b"GITHUB_STEP_SUMMARY" in proc.stderr
    assert files[which].read_bytes() == before


@pytest.mark.parametrize("where", ["rationale", "text"])
def test_ledger_notes_print_a_rationale_or_an_edit_without_the_workflow_command_it_holds(
    where: str, tmp_path: Path
) -> None:
    doc = json.loads((MIXED / "bundle.json").read_bytes())
    for proposal in doc["proposals"]:
        if isinstance(proposal, dict) and where == "rationale":
            proposal["rationale"] = f"{COMMAND} then more"
        elif isinstance(proposal, dict) and isinstance(proposal.get("operations"), list):
            for op in proposal["operations"]:
                if isinstance(op, dict) and "text" in op:
                    op["text"] = f"{COMMAND} then more"
    bundle = tmp_path / "bundle.json"
    bundle.write_bytes(canon(seal_bundle(doc)))
    ledger = tmp_path / "ledger.db"
    if where == "rationale":  # a ledger that knows the reports only: notes name the refusals by rationale
        out = tmp_path / "out"
        assert _run("score", bundle, "--out-dir", out, "-q").returncode == 0
        assert _run("ledger", "add", ledger, out / "report.json").returncode == 0
    else:
        assert _run("score", bundle, "--out-dir", tmp_path / "out", "--ledger", ledger, "-q").returncode == 0
    proc = _run("ledger", "notes", ledger)
    assert proc.returncode == 0
    notes = proc.stdout.decode()
    assert "#\\x23[error]forged then more" in notes
    assert "##[" not in notes


def test_the_pytest_plugins_refusal_carries_no_workflow_command(pytester: pytest.Pytester) -> None:
    name = f"{COMMAND}.json"
    (pytester.path / name).write_text("{")  # refused: malformed JSON, and its name is in the message
    pytester.makepyfile(
        test_it=f"""
def test_it(rank_bundle):
    rank_bundle({name!r})
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(skipped=1, errors=1)
    assert "##[" not in result.stdout.str()
    assert "#\\x23[error]forged.json" in result.stdout.str()


# -- apply's memory on standard output (issue 48, finding 2) ------------------------------------


def _hostile_memory(tmp_path: Path) -> tuple[Path, Path]:
    """A bundle whose memory holds a workflow command and a bidi override, scored: (bundle, report)."""
    from curator_io import BundleBuilder, Scope

    b = BundleBuilder(memory_version=1, curator="c@1", frozen_at="2026-12-01T00:00:00Z")
    b.memory_instruction("ci.note", f"Deploy {COMMAND} \u202eevil", scope=Scope(level="global"))
    bundle = tmp_path / "bundle.json"
    bundle.write_bytes(b.build("run-hostile").canonical)
    assert _run("score", bundle, "--out-dir", tmp_path / "out", "-q").returncode == 0
    return bundle, tmp_path / "out" / "report.json"


@pytest.mark.parametrize("canonical", [[], ["--canonical"]])
def test_apply_to_a_pipe_or_a_log_escapes_what_a_runner_or_terminal_would_act_on(
    canonical: list[str], tmp_path: Path
) -> None:
    bundle, report = _hostile_memory(tmp_path)
    out = tmp_path / "memory.json"
    assert _run("apply", bundle, report, "--out", out, *canonical).returncode == 0

    piped = _run("apply", bundle, report, *canonical)

    assert piped.returncode == 0
    assert b"##[" not in piped.stdout and "\u202e".encode() not in piped.stdout
    assert json.loads(piped.stdout) == json.loads(out.read_bytes())  # the same memory


@pytest.mark.parametrize("canonical", [[], ["--canonical"]])
def test_apply_into_a_file_by_redirection_writes_the_bytes_out_writes(canonical: list[str], tmp_path: Path) -> None:
    bundle, report = _hostile_memory(tmp_path)
    out = tmp_path / "memory.json"
    assert _run("apply", bundle, report, "--out", out, *canonical).returncode == 0

    redirected = tmp_path / "redirected.json"
    with redirected.open("wb") as f:
        proc = subprocess.run(
            [sys.executable, "-m", "ranking.cli", "apply", str(bundle), str(report), *canonical],
            cwd=REPO,
            stdout=f,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )

    assert proc.returncode == 0
    assert redirected.read_bytes() == out.read_bytes()


# -- a closed standard input is not the next file opened (issue 48, finding 3) ------------------


def _closed_stdin(*argv: str | Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ranking.cli", *map(str, argv)],
        cwd=REPO,
        capture_output=True,
        preexec_fn=lambda: os.close(0),  # started as `evidence-rank ... <&-` starts it
        timeout=60,
        check=False,
    )


def test_batch_of_dev_stdin_with_stdin_closed_reads_no_file_of_its_own(tmp_path: Path) -> None:
    out = tmp_path / "out"

    proc = _closed_stdin("batch", "/dev/stdin", "--out-dir", out)

    assert proc.returncode == 2
    assert proc.stderr.decode() == "evidence-rank: usage.unreadable: cannot read '/dev/stdin': it is closed\n"
    assert not (out / "summary.json").exists()


def test_a_signature_on_dev_stdin_with_stdin_closed_is_unreadable_not_unsigned(tmp_path: Path) -> None:
    bundle, report = _scored(tmp_path)
    after = tmp_path / "after.json"
    assert _run("apply", bundle, report, "--out", after).returncode == 0
    trust = tmp_path / "trust"
    trust.write_bytes(_run("keygen", "--out", tmp_path / "key.pem").stdout)
    argv = ["--report", report, "--bundle", bundle, "--memory-after", after, "--skip-base-check"]

    proc = _closed_stdin("gate", *argv, "--trust", trust, "--signature", "/dev/stdin")

    assert proc.returncode == 2
    assert proc.stderr.decode() == "evidence-rank: usage.unreadable: cannot read '/dev/stdin': it is closed\n"


def test_with_stdout_closed_no_output_file_takes_its_place(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "score", str(EXAMPLE), "--out-dir", str(out)],
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1),  # `evidence-rank score ... >&-`
        timeout=60,
        check=False,
    )

    assert proc.returncode == 2
    assert "usage.unwritable at '': cannot write to standard output: it is closed" in proc.stderr.decode()
    assert json.loads((out / "report.json").read_bytes())["schema"] == "evidence-ranking-v1"


def test_with_stderr_closed_a_refusal_never_lands_on_standard_output(tmp_path: Path) -> None:
    # Python makes a closed stderr None, and print(file=None) writes to stdout: the report's stream.
    proc = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "validate", str(tmp_path / "absent.json")],
        cwd=REPO,
        stdout=subprocess.PIPE,
        preexec_fn=lambda: os.close(2),  # `evidence-rank validate ... 2>&-`
        timeout=60,
        check=False,
    )

    assert (proc.returncode, proc.stdout) == (2, b"")
