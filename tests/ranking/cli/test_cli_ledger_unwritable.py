"""Read-only and full ledgers (issue 24): a write ends in one line ``usage.unwritable``,
exit 2, the ledger as it was and the real error shown; a read works in a read-only
folder and never turns a file into a ledger."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ranking.cli import main
from tests.conftest import FIXTURES, PARITY
from tests.ranking.cli.processes import as_nobody, on_a_full_disk, read_only, shared_folder
from tests.ranking.ledger.crafted import MIXED, edited, good_ledger, snapshot

EXAMPLE = FIXTURES / "example.json"


def _reads(ledger: Path, out: Path) -> dict[str, list[str]]:
    return {
        "verify": ["ledger", "verify", str(ledger)],
        "export": ["ledger", "export", str(ledger)],
        "history": ["ledger", "history", str(ledger), "--proposal", "p_hook-9"],
        "notes": ["ledger", "notes", str(ledger)],
        "render": ["ledger", "render", str(ledger), "--out", str(out / "page.html")],
        "merge it in": ["ledger", "merge", str(out / "merged.db"), str(ledger)],
    }


def _writes(ledger: Path, out: Path) -> dict[str, list[str]]:
    # Every file the command reads is a copy in `out`: the command runs as another user, who
    # may not reach the checkout (a clone inside a private, 0700, folder).
    inbox, example = out / "inbox", out / "example.json"
    if not inbox.exists():
        inbox.mkdir()
        shutil.copy(PARITY / "002-mixed-dispositions" / "bundle.json", inbox / "mixed.json")
        shutil.copy(EXAMPLE, example)
    other, report = out / "other.db", out / "r" / "report.json"  # a report the ledger lacks
    if not other.exists():
        assert main(["score", str(EXAMPLE), "--out-dir", str(report.parent), "--quiet"]) == 0
        assert main(["ledger", "add", str(other), str(report)]) == 0
    return {
        "add": ["ledger", "add", str(ledger), str(report)],
        "score --ledger": ["score", str(example), "--out-dir", str(out / "scored"), "--ledger", str(ledger)],
        "batch --ledger": ["batch", str(inbox), "--out-dir", str(out / "batch"), "--ledger", str(ledger)],
        "merge": ["ledger", "merge", str(ledger), str(other)],
    }


def _only_line(err: str, code: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evidence-rank: ") and f": {code}: " in lines[0], err
    assert "rollback" not in lines[0]
    return lines[0]


@pytest.mark.parametrize("command", ["verify", "export", "history", "notes", "render", "merge it in"])
@pytest.mark.parametrize("where", ["a read-only folder", "a read-only file"])
def test_a_read_works_on_a_read_only_ledger(capsys, command: str, where: str) -> None:
    with shared_folder() as root:
        folder, out = root / "ledgers", root / "out"
        folder.mkdir()
        out.mkdir(mode=0o777)
        out.chmod(0o777)
        ledger = good_ledger(folder / "ledger.db")
        argv = _reads(ledger, out)[command]
        capsys.readouterr()
        assert main(argv) == 0
        expected = capsys.readouterr().out
        for p in out.iterdir():
            p.unlink()
        if where == "a read-only folder":
            read_only(folder)
        else:
            folder.chmod(0o777)
            read_only(ledger)
        before = snapshot(ledger)

        code, stdout, stderr = as_nobody(*argv)

        assert (code, stderr) == (0, "")
        assert stdout == expected
        assert snapshot(ledger) == before
        if where == "a read-only folder":  # opened immutable: not even a -shm file beside it
            assert sorted(p.name for p in folder.iterdir()) == ["ledger.db"]


@pytest.mark.parametrize("command", ["verify", "export", "history", "notes", "render"])
@pytest.mark.parametrize("content", [b"", None])
def test_a_read_never_turns_a_file_into_a_ledger_nor_creates_one(
    tmp_path: Path, capsys, command: str, content: bytes | None
) -> None:
    ledger = tmp_path / "ledger.db"
    if content is not None:
        ledger.write_bytes(content)

    assert main(_reads(ledger, tmp_path)[command]) == 2

    _only_line(capsys.readouterr().err, "ledger.not_a_ledger" if content is not None else "usage.unreadable")
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if content is None else ["ledger.db"])
    assert content is None or ledger.read_bytes() == content


@pytest.mark.parametrize("command", ["add", "score --ledger", "batch --ledger", "merge"])
@pytest.mark.parametrize("where", ["a read-only folder", "a read-only file"])
def test_a_write_to_a_read_only_ledger_is_one_line_and_changes_nothing(command: str, where: str) -> None:
    with shared_folder() as root:
        folder, out = root / "ledgers", root / "out"
        folder.mkdir()
        out.mkdir()
        ledger = good_ledger(folder / "ledger.db")
        argv = _writes(ledger, out)[command]
        for p in [out, *out.rglob("*")]:
            p.chmod(0o777 if p.is_dir() else 0o666)
        if where == "a read-only folder":
            ledger.chmod(0o666)
            read_only(folder)
        else:
            folder.chmod(0o777)
            read_only(ledger)
        before = snapshot(ledger)

        code, _, stderr = as_nobody(*argv)

        assert code == 2, stderr
        line = _only_line(stderr, "usage.unwritable")
        assert line.startswith(f"evidence-rank: {ledger}: usage.unwritable: cannot write the ledger: ")
        assert "readonly" in line or "read-only" in line
        assert snapshot(ledger) == before


@pytest.mark.parametrize("command", ["add", "score --ledger", "batch --ledger", "merge"])
def test_a_write_on_a_full_disk_is_one_line_and_the_ledger_is_as_it_was(tmp_path: Path, capsys, command: str) -> None:
    ledger = good_ledger(tmp_path / "ledger.db")
    argv = _writes(ledger, tmp_path)[command]
    # Reading a WAL file needs its -shm index, which a full disk refuses too: the other ledger is
    # in rollback-journal mode here, so that what fails is the write.
    edited(tmp_path / "other.db", "PRAGMA journal_mode = DELETE")
    capsys.readouterr()
    assert main(["ledger", "export", str(ledger)]) == 0
    exported = capsys.readouterr().out

    # score writes its two reports (a few KB) before it records them; the ledger's -wal needs a page more.
    limit = 4096 if command in ("score --ledger", "batch --ledger") else 0
    done = on_a_full_disk(*argv, limit=limit)

    assert done.returncode == 2, done.stderr
    line = _only_line(done.stderr, "usage.unwritable")
    assert line.startswith(f"evidence-rank: {ledger}: usage.unwritable: cannot write the ledger: ")
    assert "disk" in line or "I/O" in line
    assert main(["ledger", "export", str(ledger)]) == 0
    assert capsys.readouterr().out == exported
    assert main(["ledger", "verify", str(ledger)]) == 0


def test_a_new_ledger_on_a_full_disk_is_not_left_behind(tmp_path: Path) -> None:
    done = on_a_full_disk("ledger", "add", str(tmp_path / "new.db"), str(MIXED))

    assert done.returncode == 2, done.stderr
    _only_line(done.stderr, "usage.unwritable")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["a FIFO", "a folder"])
def test_a_ledger_path_that_is_not_a_regular_file_is_refused_before_it_is_opened(
    tmp_path: Path, capsys, kind: str
) -> None:
    path = tmp_path / "ledger.db"
    if kind == "a FIFO":
        os.mkfifo(path)  # SQLite would wait in read() for a writer that never comes
    else:
        path.mkdir()

    assert main(["ledger", "add", str(path), str(MIXED)]) == 2
    assert main(["ledger", "verify", str(path)]) == 2

    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"evidence-rank: {path}: usage.unwritable: cannot write the ledger: not a regular file",
        f"evidence-rank: usage.unreadable: cannot read {str(path)!r}: not a regular file",
    ]
