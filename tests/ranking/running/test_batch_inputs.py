"""What ``evidence-rank batch`` reads: its own output never, special files skipped,
streams as JSONL, hostile names escaped or kept exact."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ranking.cli import main
from tests.conftest import REPO
from tests.ranking.running.batch_support import (
    EXAMPLE,
    assert_summary_agrees_with_the_folders,
    cli,
    example_line,
    read_summary,
)

HUGE = b"7" * 5000  # past Python's 4,300-digit limit for int()


def finish(run: subprocess.Popen, timeout: float = 60) -> bytes:
    """The run's stderr once it ends; a run that hangs is killed and fails the test."""
    try:
        return run.communicate(timeout=timeout)[1]
    except subprocess.TimeoutExpired:
        run.kill()
        run.communicate()
        raise AssertionError(f"the batch hung for {timeout} s") from None


def test_an_out_dir_equal_to_the_input_folder_is_never_read_back(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("a.json", "b.json"):
        shutil.copy(EXAMPLE, folder / name)

    for _ in range(3):  # it read 2, then 7, then 12 "bundles"
        assert main(["batch", str(folder), "--out-dir", str(folder)]) == 0
        assert read_summary(folder)["counts"] == {"bundles": 2, "selected": 2, "no_op": 0, "error": 0}

    assert_summary_agrees_with_the_folders(folder)


def test_an_out_dir_equal_to_the_input_folder_keeps_its_own_files_out_of_any_glob(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(EXAMPLE, folder / "a.json")
    assert main(["batch", str(folder), "--out-dir", str(folder)]) == 0
    (folder / ".summary.json.k1ll3d.tmp").write_bytes(b"half")

    assert main(["batch", str(folder), "--glob", "*", "--out-dir", str(folder)]) == 0

    assert [e["source"]["file"] for e in read_summary(folder)["bundles"]] == [f"{folder}/a.json"]


def test_an_input_folder_inside_the_out_dirs_reports_gives_nothing_to_read(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["batch", str(EXAMPLE), "--out-dir", str(out)]) == 0

    assert main(["batch", str(out / "reports"), "--out-dir", str(out)]) == 0

    assert read_summary(out)["counts"]["bundles"] == 0


def test_a_fifo_or_socket_in_a_folder_is_skipped_with_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(EXAMPLE, folder / "a.json")
    os.mkfifo(folder / "b.json")  # opening it waits for a writer: the batch hung forever
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(folder / "c.json"))
    try:
        run = cli("batch", str(folder), "--out-dir", str(tmp_path / "out"))
        err = finish(run)
    finally:
        server.close()

    assert run.returncode == 0, err
    assert err.decode().splitlines() == [
        f"evidence-rank: warning: skipped '{folder}/b.json': a FIFO, not a regular file",
        f"evidence-rank: warning: skipped '{folder}/c.json': a socket, not a regular file",
    ]
    assert [e["source"]["file"] for e in read_summary(tmp_path / "out")["bundles"]] == [f"{folder}/a.json"]


def stream_of_two() -> bytes:
    return example_line() + b"\n" + b"not json\n"


def assert_read_as_a_stream(out: Path, name: str) -> None:
    entries = read_summary(out)["bundles"]
    assert [(e["source"], e["outcome"]) for e in entries] == [
        ({"file": name, "line": 1}, "selected"),
        ({"file": name, "line": 2}, "error"),
    ]


def test_a_fifo_given_as_a_path_is_read_as_a_jsonl_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "feed"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "wb") as f:  # waits for the batch to open the other end
            f.write(stream_of_two())

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    run = cli("batch", str(fifo), "--out-dir", str(tmp_path / "out"))
    try:
        err = finish(run)
    finally:
        writer.join(timeout=10)
        if writer.is_alive():  # the batch never opened it: release the writer
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))

    assert run.returncode == 3, err
    assert_read_as_a_stream(tmp_path / "out", str(fifo))


@pytest.mark.parametrize("redirected", [False, True], ids=["pipe", "file"])
def test_dev_stdin_is_read_as_a_jsonl_stream_whatever_stdin_is(tmp_path: Path, redirected: bool) -> None:
    data = tmp_path / "x.jsonl"
    data.write_bytes(stream_of_two())
    argv = [sys.executable, "-m", "ranking.cli", "batch", "/dev/stdin", "--out-dir", str(tmp_path / "out")]
    with open(data, "rb") as f:
        stdin = {"stdin": f} if redirected else {"input": data.read_bytes()}
        done = subprocess.run(argv, cwd=REPO, capture_output=True, timeout=60, check=False, **stdin)

    assert done.returncode == 3, done.stderr
    assert_read_as_a_stream(tmp_path / "out", "/dev/stdin")


def test_a_process_substitution_is_read_as_a_jsonl_stream(tmp_path: Path) -> None:
    data = tmp_path / "x.jsonl"
    data.write_bytes(stream_of_two())
    script = f'exec "$0" -m ranking.cli batch <(cat {data}) --out-dir {tmp_path / "out"}'
    done = subprocess.run(
        ["bash", "-c", script, sys.executable], cwd=REPO, capture_output=True, timeout=60, check=False
    )

    assert done.returncode == 3, done.stderr
    name = read_summary(tmp_path / "out")["bundles"][0]["source"]["file"]
    assert name.startswith("/dev/fd/")
    assert_read_as_a_stream(tmp_path / "out", name)


def test_control_characters_in_a_name_are_escaped_in_the_table_and_kept_in_the_summary(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    name = "evil\x1b[2J\x1b]0;owned\x07\u202e.json"
    shutil.copy(EXAMPLE, folder / name)

    assert main(["batch", str(folder), "--out-dir", str(tmp_path / "out"), "-v"]) == 0  # -v: every row

    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert f"{folder}/evil\\x1b[2J\\x1b]0;owned\\x07\\u202e.json  selected" in out
    assert read_summary(tmp_path / "out")["bundles"][0]["source"]["file"] == f"{folder}/{name}"


def test_a_file_name_that_is_not_utf8_is_written_with_byte_escapes_and_the_summary_is_kept(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(EXAMPLE, os.fsdecode(bytes(folder) + b"/caf\xe9.json"))
    shutil.copy(EXAMPLE, os.fsdecode(bytes(tmp_path) + b"/\xff\xfe.json"))
    out = tmp_path / "out"

    assert main(["batch", str(folder), os.fsdecode(bytes(tmp_path) + b"/\xff\xfe.json"), "--out-dir", str(out)]) == 0

    summary = assert_summary_agrees_with_the_folders(out)
    names = [e["source"]["file"] for e in summary["bundles"]]
    assert names == [f"{folder}/caf\\xe9.json", f"{tmp_path}/\\xff\\xfe.json"]


def test_a_jsonl_line_with_a_5000_digit_integer_is_refused_and_the_batch_goes_on(tmp_path: Path) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_bytes(example_line() + b'\n{"schema": ' + HUGE + b"}\n" + example_line() + b"\n")

    assert main(["batch", str(stream), "--out-dir", str(tmp_path / "out")]) == 3

    entries = read_summary(tmp_path / "out")["bundles"]
    assert [e["outcome"] for e in entries] == ["selected", "error", "selected"]
    assert entries[1]["error"]["code"] == "input.malformed_json"
