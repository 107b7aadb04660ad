"""A killed ``seal``, ``apply --out``, ``render --out`` (or any single-file writer) leaves its
temporary file, ``.NAME.PID.XXXXXXXX.tmp``; the next write of NAME into that folder removes it
once it is stale, and nothing else (issue 24; ranking.running.outputs.sweep_stale)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ranking.cli import main
from ranking.running.outputs import ABANDONED_AFTER, STALE_AFTER, sweep_stale, write_file
from tests.conftest import FIXTURES, REPO


@pytest.fixture(scope="module")
def dead_pid() -> int:
    """The id of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _temporary(folder: Path, name: str, pid: int | None, age: float, tag: str = "0badc0de") -> Path:
    """A temporary file as ``write_file`` names it, ``age`` seconds old."""
    path = folder / (f".{name}.{pid}.{tag}.tmp" if pid is not None else f".{name}.{tag}.tmp")
    path.write_bytes(b"half a file")
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def test_only_stale_temporaries_of_the_name_written_are_removed(tmp_path: Path, dead_pid: int) -> None:
    dead = _temporary(tmp_path, "out.json", dead_pid, STALE_AFTER + 5)
    abandoned = _temporary(tmp_path, "out.json", os.getpid(), ABANDONED_AFTER + 5, tag="00c0ffee")
    old_form = _temporary(tmp_path, "out.json", None, ABANDONED_AFTER + 5)
    kept = [
        _temporary(tmp_path, "out.json", dead_pid, 5, tag="0000f00d"),  # a writer elsewhere may still be at it
        _temporary(tmp_path, "out.json", os.getpid(), STALE_AFTER + 5, tag="0000a11e"),  # a live writer's
        _temporary(tmp_path, "out.json", None, STALE_AFTER + 5, tag="0000cafe"),  # no pid: only when abandoned
        _temporary(tmp_path, "other.json", dead_pid, ABANDONED_AFTER + 5),  # another output's
    ]
    foreign = tmp_path / ".out.json.notours.tmp"
    foreign.write_bytes(b"")
    os.utime(foreign, (0, 0))
    write_file(tmp_path / "out.json", b"{}")
    assert not dead.exists() and not abandoned.exists() and not old_form.exists()
    assert all(p.exists() for p in kept) and foreign.exists()
    assert (tmp_path / "out.json").read_bytes() == b"{}"


def test_a_write_names_its_temporary_after_its_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real_replace = os.replace

    def replace(src, dst):
        seen.append(Path(src).name)
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    write_file(tmp_path / "page.html", b"x")
    (name,) = seen
    assert name.startswith(f".page.html.{os.getpid()}.") and name.endswith(".tmp")


def test_sweeping_a_folder_for_any_name_leaves_live_writers_alone(tmp_path: Path, dead_pid: int) -> None:
    stale = [_temporary(tmp_path, f"{i:06d}.html", dead_pid, STALE_AFTER + 5) for i in range(3)]
    live = _temporary(tmp_path, "000004.html", os.getpid(), STALE_AFTER + 5)
    sweep_stale(tmp_path)
    assert not any(p.exists() for p in stale) and live.exists()
    sweep_stale(tmp_path / "absent")  # nothing to sweep: no error


@pytest.fixture
def scored(tmp_path: Path) -> Path:
    (tmp_path / "bundle.json").write_bytes((FIXTURES / "example.json").read_bytes())
    assert main(["score", str(tmp_path / "bundle.json"), "--out-dir", str(tmp_path / "out"), "-q"]) == 0
    return tmp_path


#: Each single-file writer, and the file it writes, in the folder ``scored`` made.
WRITERS = {
    "apply --out": (["apply", "{d}/bundle.json", "{d}/out/report.json", "--out", "{d}/memory.json"], "memory.json"),
    "render --out": (["render", "{d}/out/report.json", "--out", "{d}/run.html"], "run.html"),
    "validate --out": (["validate", "{d}/bundle.json", "--out", "{d}/validation.json"], "validation.json"),
}


@pytest.mark.parametrize(("argv", "name"), WRITERS.values(), ids=WRITERS.keys())
def test_the_next_run_removes_what_a_killed_writer_left(scored: Path, argv: list[str], name: str, dead_pid: int):
    leftover = _temporary(scored, name, dead_pid, STALE_AFTER + 5)
    assert main([a.format(d=scored) for a in argv]) == 0
    assert not leftover.exists()
    assert [p.name for p in scored.iterdir() if p.name.endswith(".tmp")] == []


def test_a_seal_killed_mid_write_leaves_a_temporary_that_the_next_seal_removes(tmp_path: Path) -> None:
    """A real SIGKILL: the child stops itself right after its temporary file is created."""
    bundle = tmp_path / "bundle.json"
    doc = (FIXTURES / "example.json").read_text(encoding="utf-8").replace('"sha256:', '"sha256:0', 1)
    bundle.write_text(doc, encoding="utf-8")  # one digest off: seal has something to write
    code = (
        "import os, signal, sys; import ranking.running.outputs.temporaries as f; real = f._create_temporary\n"
        "def killed(target):\n"
        "    created = real(target); os.kill(os.getpid(), signal.SIGKILL)\n"
        "f._create_temporary = killed\n"
        "from ranking.cli import main; sys.exit(main())"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, "seal", str(bundle)], cwd=REPO)
    assert proc.wait(timeout=60) == -signal.SIGKILL
    (leftover,) = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert leftover.name.startswith(f".bundle.json.{proc.pid}.")
    assert bundle.read_text(encoding="utf-8") == doc  # the kill left the bundle whole
    then = time.time() - STALE_AFTER - 5
    os.utime(leftover, (then, then))  # its writer is dead; now it is also past a live writer's minute
    assert main(["seal", str(bundle)]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["bundle.json"]


#: As long as a file name may be on Linux filesystems (255 bytes), and its temporary could not be.
LONGEST = "é" * 100 + "a" * 50 + ".json"


def test_a_file_named_as_long_as_a_name_may_be_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(os.fsencode(LONGEST)) == 255
    seen: list[str] = []
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: (seen.append(Path(src).name), real_replace(src, dst)))

    write_file(tmp_path / LONGEST, b"{}")

    assert (tmp_path / LONGEST).read_bytes() == b"{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == [LONGEST]
    (temporary,) = seen
    assert len(os.fsencode(temporary)) <= 255 and temporary.endswith(".tmp")


def test_a_killed_writer_of_a_long_name_is_swept_too(tmp_path: Path, dead_pid: int, monkeypatch) -> None:
    seen: list[str] = []
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: (seen.append(Path(src).name), real_replace(src, dst)))
    write_file(tmp_path / LONGEST, b"{}")
    stem = seen[0].rsplit(".", 3)[0]  # .NAME(cut).PID.XXXXXXXX.tmp
    left = tmp_path / f"{stem}.{dead_pid}.0badc0de.tmp"
    left.write_bytes(b"half a file")
    os.utime(left, (time.time() - STALE_AFTER - 5,) * 2)

    write_file(tmp_path / LONGEST, b"[]")

    assert not left.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [LONGEST]


def test_sign_writes_the_signature_of_a_bundle_with_a_long_name(tmp_path: Path, capsys) -> None:
    from tests.signing import key_pem

    bundle = tmp_path / ("b" * 230 + ".json")  # its signature's name, 247 bytes, may be
    bundle.write_bytes((FIXTURES / "example.json").read_bytes())
    (tmp_path / "k.pem").write_bytes(key_pem("curator"))

    assert main(["sign", str(bundle), "--key", str(tmp_path / "k.pem")]) == 0, capsys.readouterr().err
    assert Path(str(bundle) + ".intoto.json").exists()
