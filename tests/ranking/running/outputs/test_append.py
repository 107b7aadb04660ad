"""Appending to ``$GITHUB_STEP_SUMMARY``, a file other steps write too
(``ranking.running.outputs.append_whole``): all of a section or none of it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from curator_io.errors import ConfigError
from ranking.running.outputs import append_whole
from ranking.running.outputs.atomic import new_file_mode


def test_a_section_is_appended_after_what_the_earlier_steps_wrote(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_bytes(b"### an earlier step\n")

    append_whole(str(summary), b"### evidence-rank gate: passed\n", name="GITHUB_STEP_SUMMARY")

    assert summary.read_bytes() == b"### an earlier step\n### evidence-rank gate: passed\n"


def test_a_missing_summary_file_is_created_with_the_mode_any_tool_gives_it(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"

    append_whole(str(summary), b"x\n", name="GITHUB_STEP_SUMMARY")

    assert summary.read_bytes() == b"x\n"
    assert summary.stat().st_mode & 0o777 == new_file_mode()


def test_a_write_that_falls_short_is_taken_back_and_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    summary.write_bytes(b"| a | table |\n")
    write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: write(fd, data[:3]))  # the disk fills up after 3 bytes

    with pytest.raises(ConfigError, match=r"cannot append to GITHUB_STEP_SUMMARY '.*summary\.md': No space left") as e:
        append_whole(str(summary), b"### evidence-rank gate: failed\n", name="GITHUB_STEP_SUMMARY")

    assert e.value.code == "usage.unwritable"
    assert summary.read_bytes() == b"| a | table |\n"


def test_a_summary_path_that_cannot_be_opened_is_unwritable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cannot append to GITHUB_STEP_SUMMARY '.*': Is a directory") as e:
        append_whole(str(tmp_path), b"x\n", name="GITHUB_STEP_SUMMARY")

    assert e.value.code == "usage.unwritable"
