"""``evidence-rank ledger carry LEDGER BUNDLE --out BUNDLE``: its exit codes and messages, and the
inputs someone else hands it (docs/ledger.md, "Carry")."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from curator_io import load_bundle, parse_json
from ranking.pipeline import rank
from tests.conftest import run_main
from tests.ranking.ledger.pooled import builder, disposition, proposed, recorded


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    """A ledger whose pool holds the retry edit of run-1 (one lineage, task-a)."""
    path = tmp_path / "l.db"
    b = builder(1)
    proposed(b, ["task-a"])
    recorded(path, b, "run-1")
    return path


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    """Run 2: the same edit proposed again on a new task (task-b), indented as a person writes it."""
    b = builder(2)
    proposed(b, ["task-b"])
    path = tmp_path / "next.json"
    path.write_text(json.dumps(b.build("run-2").document, indent=2), "utf-8")
    return path


def test_carry_writes_a_bundle_that_loads_and_whose_edit_is_selected(
    ledger: Path, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "carried.json"
    rc, stdout, stderr = run_main(capsys, "ledger", "carry", ledger, bundle, "--out", out)
    assert (rc, stderr) == (0, "")
    lines = stdout.splitlines()
    assert lines[0].startswith("joined p-retry: sha256:") and lines[0].endswith(", with the evidence of run-1")
    assert lines[1] == f"{out}: 1 edit carried from {ledger}, 0 left out"
    written = out.read_bytes()
    assert written.endswith(b"\n")
    assert disposition(rank(load_bundle(written)), "p-retry") == "selected"
    # The same ledger and bundle, the same bytes.
    again = tmp_path / "again.json"
    assert run_main(capsys, "ledger", "carry", ledger, bundle, "--out", again)[0] == 0
    assert again.read_bytes() == written


def test_carry_reads_the_bundle_from_standard_input(ledger: Path, bundle: Path, tmp_path: Path) -> None:
    out = tmp_path / "carried.json"
    done = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "ledger", "carry", str(ledger), "-", "--out", str(out)],
        input=bundle.read_bytes(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert load_bundle(out.read_bytes()).run_id == "run-2"


def test_an_empty_pool_carries_nothing_and_writes_the_bundle_frozen_again(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.db"
    b = builder(1)
    recorded(empty, b, "run-0")  # proposes nothing: nothing pooled
    out = tmp_path / "carried.json"
    rc, stdout, _ = run_main(capsys, "ledger", "carry", empty, bundle, "--out", out)
    assert rc == 0 and stdout.splitlines() == [f"{out}: 0 edits carried from {empty}, 0 left out"]
    assert parse_json(out.read_bytes()) == parse_json(bundle.read_bytes())


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"{not json", "input.malformed_json"),
        (b"\xef\xbb\xbf{}", "input.malformed_json"),  # a byte-order mark
        (b'{"schema": "curator-bundle-v1"}\r\n', "input.schema"),
        (b"[]", "input.schema"),
    ],
)
def test_a_bundle_that_does_not_load_is_refused_and_nothing_is_written(
    ledger: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, code: str
) -> None:
    given = tmp_path / "bad.json"
    given.write_bytes(content)
    out = tmp_path / "carried.json"
    rc, stdout, stderr = run_main(capsys, "ledger", "carry", ledger, given, "--out", out)
    assert rc == 3 and stdout == ""
    assert stderr.startswith(f"evidence-rank: {given}: {code}")
    assert not out.exists()


def test_out_naming_the_bundle_or_the_ledger_is_refused_before_anything_is_read(
    ledger: Path, bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = bundle.read_bytes()
    for out in (bundle, ledger):
        rc, _, stderr = run_main(capsys, "ledger", "carry", ledger, bundle, "--out", out)
        assert rc == 2 and "usage.invalid_option" in stderr
    assert bundle.read_bytes() == before


def test_a_ledger_that_is_missing_or_not_a_ledger_is_a_usage_error(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "carried.json"
    rc, _, stderr = run_main(capsys, "ledger", "carry", tmp_path / "none.db", bundle, "--out", out)
    assert rc == 2 and "usage.unreadable" in stderr and "no such ledger" in stderr
    assert not (tmp_path / "none.db").exists()
    text = tmp_path / "text.db"
    text.write_text("not sqlite\n", "utf-8")
    rc, _, stderr = run_main(capsys, "ledger", "carry", text, bundle, "--out", out)
    assert rc == 2 and "ledger.not_a_ledger" in stderr
    assert not out.exists()


def test_a_fifo_as_the_ledger_is_refused_and_a_fifo_as_the_bundle_is_read(
    ledger: Path, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "ledger.fifo"
    os.mkfifo(fifo)
    out = tmp_path / "carried.json"
    rc, _, stderr = run_main(capsys, "ledger", "carry", fifo, bundle, "--out", out)
    assert rc == 2 and "not a regular file" in stderr
    pipe = tmp_path / "bundle.fifo"
    os.mkfifo(pipe)
    writer = subprocess.Popen(["sh", "-c", f'cat "{bundle}" > "{pipe}"'])
    try:
        rc, _, stderr = run_main(capsys, "ledger", "carry", ledger, pipe, "--out", out)
    finally:
        writer.wait(timeout=30)
    assert (rc, stderr) == (0, "")


def test_a_ledger_whose_pool_was_edited_by_hand_writes_nothing(
    ledger: Path, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = sqlite3.connect(ledger)
    db.execute("UPDATE pool SET closure = CAST('{}' AS BLOB)")
    db.commit()
    db.close()
    out = tmp_path / "carried.json"
    rc, stdout, stderr = run_main(capsys, "ledger", "carry", ledger, bundle, "--out", out)
    assert rc == 4 and stdout == ""
    assert "ledger.damaged: pool row sha256:" in stderr and "the closure is not an object of exactly" in stderr
    assert not out.exists()


def test_stored_text_that_a_runner_would_act_on_is_escaped_in_what_carry_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A run id cannot hold a line break or "::" at its start (SPEC §0's ID), but a stored one is
    # someone else's: a hand-edited run is refused as a row (ledger.damaged), never printed.
    path = tmp_path / "l.db"
    b = builder(1)
    proposed(b, ["task-a"])
    recorded(path, b, "run-1")
    db = sqlite3.connect(path)
    db.execute("UPDATE pool SET run = ?", ("x\n::error::y",))
    db.commit()
    db.close()
    nxt = tmp_path / "next.json"
    nxt.write_bytes(builder(2).build("run-2").canonical)
    rc, stdout, stderr = run_main(capsys, "ledger", "carry", path, nxt, "--out", tmp_path / "o.json")
    assert rc == 4 and stdout == ""
    assert "\n::error" not in stderr and "ledger.damaged" in stderr


def test_out_that_is_a_symlink_to_the_bundle_is_refused(
    ledger: Path, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(bundle)
    before = bundle.read_bytes()
    rc, _, stderr = run_main(capsys, "ledger", "carry", ledger, bundle, "--out", link)
    assert rc == 2 and "usage.invalid_option" in stderr
    assert bundle.read_bytes() == before and link.is_symlink()


def test_a_closed_standard_input_is_refused_as_the_bundle(ledger: Path, tmp_path: Path) -> None:
    out = tmp_path / "carried.json"
    done = subprocess.run(
        ["sh", "-c", f'"{sys.executable}" -m ranking.cli ledger carry "{ledger}" - --out "{out}" 0<&-'],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "usage.unreadable" in done.stderr
    assert not out.exists()
