"""``--out`` never destroys its own input (issue 24): an output path that names an input
file, by the same path, a symlink, a hard link or a symlinked folder, is refused with
``usage.invalid_option`` (exit 2) before anything is written (ranking.cli.targets)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ranking.cli import main
from ranking.signing.private_keys import load_private_key
from tests.conftest import FIXTURES
from tests.signing import key_pem, signing_key


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A bundle, its report, a ledger holding it and a batch folder, as a user's run leaves them
    (each test its own: a run that wrongly replaced an input must not spoil the next test)."""
    root = tmp_path / "work"
    root.mkdir()
    shutil.copy(FIXTURES / "example.json", root / "bundle.json")
    assert main(["score", str(root / "bundle.json"), "--out-dir", str(root / "out"), "-q"]) == 0
    assert main(["ledger", "add", str(root / "ledger.db"), str(root / "out" / "report.json")]) == 0
    assert main(["batch", str(root / "bundle.json"), "--out-dir", str(root / "batch"), "-q"]) == 0
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


#: Each command with an --out (or a --ledger inside --out-dir) that names one of its inputs.
CASES = {
    "validate B --out B": ["validate", "{r}/bundle.json", "--out", "{r}/bundle.json"],
    "apply B R --out B": ["apply", "{r}/bundle.json", "{r}/out/report.json", "--out", "{r}/bundle.json"],
    "apply B R --out R": ["apply", "{r}/bundle.json", "{r}/out/report.json", "--out", "{r}/out/report.json"],
    "render R --out R": ["render", "{r}/out/report.json", "--out", "{r}/out/report.json"],
    "render R --bundle B --out B": [
        "render",
        "{r}/out/report.json",
        "--bundle",
        "{r}/bundle.json",
        "--out",
        "{r}/bundle.json",
    ],
    "render --batch D --out D/summary.json": ["render", "--batch", "{r}/batch", "--out", "{r}/batch/summary.json"],
    "ledger render L --out L": ["ledger", "render", "{r}/ledger.db", "--out", "{r}/ledger.db"],
    "ledger merge L-wal L": ["ledger", "merge", "{r}/ledger.db-wal", "{r}/ledger.db"],
    "ledger merge L-journal L": ["ledger", "merge", "{r}/ledger.db-journal", "{r}/ledger.db"],
    "batch D/summary.json --out-dir D": ["batch", "{r}/batch/summary.json", "--out-dir", "{r}/batch", "-q"],
    "batch --ledger D/summary.json": [
        "batch",
        "{r}/bundle.json",
        "--out-dir",
        "{r}/batch",
        "--ledger",
        "{r}/batch/summary.json",
    ],
    "batch --config under D/reports": [
        "batch",
        "{r}/bundle.json",
        "--out-dir",
        "{r}/batch",
        "--config",
        "{r}/batch/reports/000001-bundle/validation.json",
    ],
    "score --ledger DIR/report.json": [
        "score",
        "{r}/bundle.json",
        "--out-dir",
        "{r}/out",
        "--ledger",
        "{r}/out/report.json",
    ],
}


@pytest.mark.parametrize("argv", CASES.values(), ids=CASES.keys())
def test_an_out_that_is_an_input_is_refused_before_anything_is_written(
    work: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(work)
    assert main([a.format(r=work) for a in argv]) == 2
    err = capsys.readouterr().err
    assert "usage.invalid_option" in err
    assert "which this run reads" in err or "which this run replaces" in err
    assert _snapshot(work) == before


def test_a_batch_report_given_as_out_is_refused(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = next((work / "batch").rglob("report.json"))
    before = _snapshot(work)
    assert main(["render", "--batch", str(work / "batch"), "--out", str(report)]) == 2
    assert "is a report of the batch" in capsys.readouterr().err
    assert _snapshot(work) == before


@pytest.mark.parametrize("link", ["symlink", "hard link", "symlinked folder"])
def test_an_out_that_reaches_an_input_through_a_link_is_refused(
    work: Path, tmp_path: Path, link: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = work / "bundle.json"
    if link == "symlink":
        out = tmp_path / "memory.json"
        out.symlink_to(bundle)
    elif link == "hard link":
        out = work / "memory.json"
        os.link(bundle, out)
    else:
        (tmp_path / "here").symlink_to(work)
        out = tmp_path / "here" / "bundle.json"
    before = _snapshot(work)
    try:
        assert main(["apply", str(bundle), str(work / "out" / "report.json"), "--out", str(out)]) == 2
        assert f"is BUNDLE {str(bundle)!r}, which this run reads" in capsys.readouterr().err
        assert _snapshot(work) == before
        assert out.exists() and os.path.samefile(out, bundle)
    finally:
        if link == "hard link":
            out.unlink()


def test_an_out_beside_the_inputs_is_still_written(work: Path, tmp_path: Path) -> None:
    out = tmp_path / "memory.json"
    assert main(["apply", str(work / "bundle.json"), str(work / "out" / "report.json"), "--out", str(out)]) == 0
    assert json.loads(out.read_bytes())["instructions"]


@pytest.mark.parametrize("target", ["bundle.json", "curator.key"])
@pytest.mark.parametrize("link", ["same path", "symlink", "dot-dot"])
def test_sign_refuses_an_out_that_is_its_document_or_its_key(
    work: Path, tmp_path: Path, target: str, link: str, capsys: pytest.CaptureFixture[str]
) -> None:
    key = work / "curator.key"
    key.write_bytes(key_pem("curator"))
    out = {
        "same path": work / target,
        "symlink": tmp_path / "signature.json",
        "dot-dot": work / "out" / ".." / target,
    }[link]
    if link == "symlink":
        out.symlink_to(work / target)
    before = _snapshot(work)
    assert main(["sign", str(work / "bundle.json"), "--key", str(key), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "usage.invalid_option" in err and "which this run reads" in err
    assert _snapshot(work) == before
    assert load_private_key(key.read_bytes()).public.keyid == signing_key("curator").public.keyid


@pytest.mark.parametrize("glob", [None, "*"], ids=["a .json the scan reads", "any name with --glob '*'"])
def test_batch_refuses_a_ledger_that_its_folder_scan_reads_as_a_bundle(
    tmp_path: Path, glob: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(FIXTURES / "example.json", inbox / "bundle.json")
    (inbox / "notes.json").write_bytes(b"")  # an empty file: a writer would make a ledger of it
    ledger = inbox / ("notes.json" if glob is None else "ledger.db")
    argv = ["batch", str(inbox), "--out-dir", str(tmp_path / "out"), "--ledger", str(ledger), "-q"]
    before = _snapshot(inbox)

    assert main(argv + (["--glob", glob] if glob else [])) == 2

    err = capsys.readouterr().err
    assert "usage.invalid_option" in err and "which this run reads" in err
    assert _snapshot(inbox) == before


def test_batch_writes_a_ledger_beside_its_bundles_that_the_scan_does_not_read(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(FIXTURES / "example.json", inbox / "bundle.json")
    argv = ["batch", str(inbox), "--out-dir", str(tmp_path / "out"), "--ledger", str(inbox / "ledger.db"), "-q"]
    assert main(argv) == 0
    assert main(["ledger", "verify", str(inbox / "ledger.db")]) == 0


#: Each command that writes one file named by --out, with that name ending in "/".
SLASHED = {
    "validate": ["validate", "{r}/bundle.json", "--out", "{r}/new/"],
    "apply": ["apply", "{r}/bundle.json", "{r}/out/report.json", "--out", "{r}/new/"],
    "render": ["render", "{r}/out/report.json", "--out", "{r}/new/"],
    "render --batch": ["render", "--batch", "{r}/batch", "--out", "{r}/new/"],
    "ledger render": ["ledger", "render", "{r}/ledger.db", "--out", "{r}/new/"],
    "sign": ["sign", "{r}/bundle.json", "--key", "{r}/curator.key", "--out", "{r}/new/"],
    "keygen": ["keygen", "--out", "{r}/new/"],
}


@pytest.mark.parametrize("argv", SLASHED.values(), ids=SLASHED.keys())
def test_an_out_ending_in_a_slash_names_a_folder_and_no_file_is_written_for_it(
    work: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "curator.key").write_bytes(key_pem("curator"))
    before = _snapshot(work)

    assert main([a.format(r=work) for a in argv]) == 2

    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "usage.unwritable" in line and "ends in '/'" in line
    assert _snapshot(work) == before and not (work / "new").exists()
