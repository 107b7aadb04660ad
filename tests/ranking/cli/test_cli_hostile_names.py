"""A file name from a pull request cannot forge a line of output (issue 24, attacked again):
whatever a command prints about a file named ``x\\n::error::y\\x1b[31m``, every line it writes
is one line of its own, with no control character a terminal or a CI runner would act on."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ranking.cli import main
from tests.conftest import FIXTURES
from tests.signing import key_pem

HOSTILE = "x\n::error::y\r%0A\x1b[31m<details>|"


def _assert_nothing_forged(text: str) -> None:
    for line in text.splitlines():
        assert not line.startswith("::"), line
        assert not any(c in line for c in "\x1b\r\x00"), line


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / ("d" + HOSTILE)
    folder.mkdir()
    shutil.copy(FIXTURES / "example.json", folder / ("b" + HOSTILE + ".json"))
    (folder / "curator.key").write_bytes(key_pem("curator"))
    return folder


def test_sign_prints_a_hostile_name_escaped_on_one_line(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = folder / ("b" + HOSTILE + ".json")

    assert main(["sign", str(bundle), "--key", str(folder / "curator.key")]) == 0

    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1 and ": signed the bundle sha256:" in out
    _assert_nothing_forged(out + err)
    assert (folder / ("b" + HOSTILE + ".json.intoto.json")).exists()  # escaped when shown, not when written
