"""An output path that names a device, a FIFO, a socket or a link to one is refused and left as it
is, never replaced by a regular file (issue 48, finding 1: as root, a rename over /dev/null made it
a file). The writer checks what it would replace, so every command's --out holds to it."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO

EXAMPLE = FIXTURES / "example.json"


def _run(*argv: str | Path, stdout: int = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ranking.cli", *map(str, argv)],
        cwd=REPO,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=60,
        check=False,
    )


def _device(path: Path) -> str:
    """What /dev/null is, made in a temp folder (root only, as in CI's container); elsewhere a link to it."""
    if os.geteuid() == 0:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    else:
        path.symlink_to(os.devnull)
    return "a character device"


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return "a FIFO"


def _socket(path: Path) -> str:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()
    return "a socket"


def _link_to_stdout(path: Path) -> str:
    path.symlink_to("/proc/self/fd/1")  # the command's own standard output: a pipe here
    return "a FIFO"


MAKERS: dict[str, Callable[[Path], str]] = {
    "device": _device,
    "fifo": _fifo,
    "socket": _socket,
    "link to stdout": _link_to_stdout,
}


def _commands(tmp_path: Path, out: Path) -> dict[str, list[str | Path]]:
    scored = tmp_path / "scored"
    assert _run("score", EXAMPLE, "--out-dir", scored, "-q").returncode == 0
    key = tmp_path / "key.pem"
    assert _run("keygen", "--out", key).returncode == 0
    ledger = tmp_path / "ledger.db"
    assert _run("ledger", "add", ledger, scored / "report.json").returncode == 0
    report = scored / "report.json"
    return {
        "apply": ["apply", EXAMPLE, report, "--out", out],
        "validate": ["validate", EXAMPLE, "--out", out],
        "render": ["render", report, "--out", out],
        "ledger render": ["ledger", "render", ledger, "--out", out],
        "sign": ["sign", EXAMPLE, "--key", key, "--out", out],
    }


@pytest.mark.parametrize("kind", MAKERS)
def test_every_out_refuses_a_special_file_and_leaves_it_as_it_was(kind: str, tmp_path: Path) -> None:
    out = tmp_path / "target"
    commands = _commands(tmp_path, out)
    shown = MAKERS[kind](out)
    before = os.lstat(out)

    for name, argv in commands.items():
        proc = _run(*argv)
        assert proc.returncode == 2, (name, proc.stderr)
        assert proc.stderr.decode().startswith(
            f"evidence-rank: usage.unwritable: cannot write '{out}': it is {shown}, not a regular file"
        ), name
        after = os.lstat(out)
        assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino, before.st_rdev), name


def test_apply_into_a_markdown_memory_that_is_a_fifo_is_refused_before_it_is_read(tmp_path: Path) -> None:
    scored = tmp_path / "scored"
    assert _run("score", EXAMPLE, "--out-dir", scored, "-q").returncode == 0
    out = tmp_path / "AGENTS.md"
    os.mkfifo(out)

    proc = _run("apply", EXAMPLE, scored / "report.json", "--out", out)  # a read of the FIFO would block: timeout

    assert proc.returncode == 2
    assert f"usage.unwritable: cannot write '{out}': it is a FIFO, not a regular file" in proc.stderr.decode()
    assert stat.S_ISFIFO(os.lstat(out).st_mode)


def test_every_out_replaces_a_link_to_a_regular_file_and_leaves_the_file_it_named(tmp_path: Path) -> None:
    # docs/outputs.md, "Links": the output is ours whole, so the link's name gets the new file; a
    # Markdown memory (apply --out FILE.md, memory import --out) and seal follow the link instead.
    out = tmp_path / "target"
    named = tmp_path / "named.json"

    for name, argv in _commands(tmp_path, out).items():
        named.write_bytes(b"kept\n")
        out.unlink(missing_ok=True)
        out.symlink_to(named)
        proc = _run(*argv)

        assert proc.returncode == 0, (name, proc.stderr)
        assert not out.is_symlink() and out.is_file() and out.read_bytes() != b"kept\n", name
        assert named.read_bytes() == b"kept\n", name
