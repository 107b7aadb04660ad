"""The door in (``ranking.running.inputs``), called as a library: each of its rules, and each
refusal with its code and message, in the order the module's docstring numbers them.

tests/ranking/cli/test_doors.py attacks the same door through the command line, in a
subprocess; here each rule is held by calling the reader itself.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import threading
from pathlib import Path

import pytest

from curator_io.errors import ConfigError
from ranking.running import inputs
from ranking.running.inputs import (
    MAX_INPUT_BYTES,
    bounded_lines,
    open_input,
    read_if_present,
    read_input,
    read_stream,
    refuse_device,
    shown_path,
)


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def _refused(match: str) -> pytest.RaisesExc[ConfigError]:
    return pytest.raises(ConfigError, match=match)


def test_an_input_holds_at_most_one_gibibyte() -> None:
    assert MAX_INPUT_BYTES == 1 << 30


def test_a_message_names_standard_input_so_and_a_path_as_given() -> None:
    assert shown_path("-") == "standard input"
    assert shown_path("dir/../b.json") == "'dir/../b.json'"
    assert shown_path(Path("b.json")) == "'b.json'"


# -- 1. "-" is standard input ------------------------------------------------------------------


def test_rule_1_a_dash_reads_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, b'{"from": "stdin"}')

    assert read_input("-") == b'{"from": "stdin"}'


def test_rule_1_a_closed_standard_input_is_unreadable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", None)  # what Python makes of a descriptor 0 closed before it started

    with _refused(r"^usage\.unreadable: cannot read standard input: it is closed$") as e:
        read_input("-")

    assert e.value.exit_code == 2


def test_rule_1_a_standard_input_closed_by_the_program_is_unreadable(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(open(os.devnull, "rb"))  # noqa: SIM115  # closed at once: that is the point
    stdin.buffer.close()
    monkeypatch.setattr(sys, "stdin", stdin)

    with _refused(r"^usage\.unreadable: cannot read standard input: it is closed$"):
        read_input("-")


def test_rule_1_standard_input_is_not_closed_by_reading_it(monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, b"x")

    with open_input("-") as stream:
        assert stream.read() == b"x"

    assert not sys.stdin.buffer.closed


# -- 2. a device that is not a terminal is refused before a byte is read ----------------------


def test_rule_2_a_device_is_refused_as_a_path() -> None:
    with _refused(r"^usage\.unreadable: cannot read '/dev/zero': a device, not a file$"):
        read_input("/dev/zero")


def test_rule_2_a_device_is_refused_as_standard_input_too(monkeypatch: pytest.MonkeyPatch) -> None:
    device = open("/dev/zero", "rb")  # noqa: SIM115  # the fixture's stdin, closed below
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(device))
    try:
        with _refused(r"^usage\.unreadable: cannot read standard input: a device, not a file$"):
            read_input("-")
        assert device.tell() == 0  # not a byte read
    finally:
        device.close()


def test_rule_2_a_path_not_yet_opened_is_refused_when_it_is_a_device_and_not_a_terminal(tmp_path: Path) -> None:
    regular = tmp_path / "bundle.json"
    regular.write_bytes(b"{}")
    refuse_device(str(regular), regular.stat().st_mode)
    refuse_device(str(tmp_path), tmp_path.stat().st_mode)

    with _refused(r"^usage\.unreadable: cannot read '/dev/zero': a device, not a file$"):
        refuse_device("/dev/zero", os.stat("/dev/zero").st_mode)


def test_rule_2_a_terminal_is_a_device_that_is_read() -> None:
    controller, terminal = os.openpty()
    try:
        path = os.ttyname(terminal)
        assert stat.S_ISCHR(os.stat(path).st_mode)

        refuse_device(path, os.stat(path).st_mode)  # nothing raised: a person types the input
    finally:
        os.close(controller)
        os.close(terminal)


# -- 3. a file, a pipe or a FIFO is read to its end, at most MAX_INPUT_BYTES -------------------


def test_rule_3_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "bundle.json"
    path.write_bytes(b"x" * 3_000_000)

    assert read_input(path) == b"x" * 3_000_000
    assert read_input(str(path)) == b"x" * 3_000_000


def test_rule_3_a_fifo_is_read_to_its_end(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    data = b"y" * (3 << 20)  # more than one chunk, and more than a pipe holds
    writer = threading.Thread(target=fifo.write_bytes, args=(data,))
    writer.start()
    try:
        assert read_input(fifo) == data
    finally:
        writer.join(timeout=10)


def test_rule_3_a_pipe_is_read_a_chunk_at_a_time_to_its_end() -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"from a pipe")
    os.close(write_end)

    with os.fdopen(read_end, "rb") as stream:
        assert read_stream(stream, "<pipe>") == b"from a pipe"


def test_rule_3_a_file_larger_than_the_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", 10)
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 11)

    with _refused(r"^usage\.unreadable: cannot read '.*big\.json': it holds more than 10 bytes, the most an input"):
        read_input(path)
    path.write_bytes(b"x" * 10)
    assert read_input(path) == b"x" * 10


def test_rule_3_a_stream_that_goes_on_past_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", 10)
    _stdin(monkeypatch, b"x" * 11)

    with _refused(r"^usage\.unreadable: cannot read standard input: it holds more than 10 bytes"):
        read_input("-")


def test_rule_3_a_stream_read_a_line_at_a_time_may_go_on_but_no_line_of_it_past_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", 10)
    lines = bounded_lines(io.BytesIO(b"123456789\n" * 3 + b"12345678901\n"), "batch.jsonl")

    assert [lines.readline() for _ in range(3)] == [b"123456789\n"] * 3
    with _refused(r"^usage\.unreadable: cannot read 'batch\.jsonl': a line of it holds more than 10 bytes"):
        lines.readline()


# -- 4. anything that cannot be opened or read is usage.unreadable ----------------------------


def test_rule_4_a_missing_file_is_unreadable_naming_the_path_as_given() -> None:
    with _refused(r"^usage\.unreadable: cannot read 'no/such/bundle\.json': No such file or directory$") as e:
        read_input("no/such/bundle.json")

    assert isinstance(e.value.__cause__, FileNotFoundError)


def test_rule_4_a_folder_is_unreadable(tmp_path: Path) -> None:
    with _refused(r"^usage\.unreadable: cannot read '.*': Is a directory$"):
        read_input(tmp_path)


def test_rule_4_a_stream_that_fails_mid_read_is_unreadable() -> None:
    class Failing(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, buffer: object) -> int:
            raise OSError(5, "Input/output error")

    with _refused(r"^usage\.unreadable: cannot read 'disk\.json': Input/output error$"):
        read_stream(io.BufferedReader(Failing()), "disk.json")


def test_an_optional_input_that_is_not_there_is_none_and_any_other_failure_is_still_refused(tmp_path: Path) -> None:
    (tmp_path / "bundle.json.sig").write_bytes(b"signed")

    assert read_if_present(tmp_path / "bundle.json.sig") == b"signed"
    assert read_if_present(tmp_path / "missing.sig") is None
    with _refused(r"Is a directory"):
        read_if_present(tmp_path)
