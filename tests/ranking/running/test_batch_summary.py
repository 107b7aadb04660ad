"""``render --batch DIR`` on a ``summary.json`` someone else wrote (issue 24): not JSON,
members of the wrong type or missing, an ``output`` that leaves the batch folder, hostile
strings. Each is exit 3 with one line and a JSON Pointer to the place (resealed first, so
the form is what refuses it, not the seal), never a traceback, and no page is written."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from curator_io import seal
from ranking.cli import main
from ranking.running.batch_summary import check_summary_form
from tests.conftest import MISSING, PARITY, resolve_pointer, set_at
from tests.ranking.running.batch_support import read_summary

MIXED = PARITY / "002-mixed-dispositions"


@pytest.fixture
def batch_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A batch of one scored bundle and one refused."""
    inbox = tmp_path / "in"
    inbox.mkdir()
    shutil.copy(MIXED / "bundle.json", inbox / "a.json")
    (inbox / "b.json").write_bytes(b"{not json")
    assert main(["batch", str(inbox), "--out-dir", str(tmp_path / "out"), "-q"]) == 3
    capsys.readouterr()
    return tmp_path / "out"


#: name -> (change to the summary, the pointer the refusal names).
BROKEN = {
    "bundles not an array": (set_at(("bundles",), {"0": {}}), "/bundles"),
    "counts missing": (set_at(("counts",), MISSING), "/counts"),
    "a count as text": (set_at(("counts", "error"), "1"), "/counts/error"),
    "config outside SPEC §2": (set_at(("config", "threshold"), "high"), "/config/threshold"),
    "an entry not an object": (set_at(("bundles", 0), "reports/000001-a"), "/bundles/0"),
    "an index out of place": (set_at(("bundles", 1, "index"), 1), "/bundles/1/index"),
    "an index as text": (set_at(("bundles", 0, "index"), "1"), "/bundles/0/index"),
    "a source file as a number": (set_at(("bundles", 0, "source", "file"), 7), "/bundles/0/source/file"),
    "an unknown outcome": (set_at(("bundles", 0, "outcome"), "<b>pwned</b>"), "/bundles/0/outcome"),
    "selected not strings": (set_at(("bundles", 0, "selected"), [1]), "/bundles/0/selected"),
    "an error entry without its error": (set_at(("bundles", 1, "error"), None), "/bundles/1/error"),
    "an error without a code": (set_at(("bundles", 1, "error", "code"), MISSING), "/bundles/1/error/code"),
    "an output outside the folder": (set_at(("bundles", 0, "output"), "../../../etc"), "/bundles/0/output"),
    "an absolute output": (set_at(("bundles", 0, "output"), "/etc/passwd"), "/bundles/0/output"),
    "another bundle's output": (set_at(("bundles", 0, "output"), "reports/000002-b"), "/bundles/0/output"),
    "an output through a parent": (set_at(("bundles", 0, "output"), "reports/000001-a/../.."), "/bundles/0/output"),
}


@pytest.mark.parametrize(("change", "pointer"), BROKEN.values(), ids=BROKEN.keys())
def test_a_summary_of_the_wrong_form_is_an_input_error_with_a_pointer(
    batch_dir: Path, tmp_path: Path, change: Callable[[dict[str, Any]], None], pointer: str, capsys
) -> None:
    path = batch_dir / "summary.json"
    summary = json.loads(path.read_bytes())
    change(summary)
    path.write_text(json.dumps(seal(summary)))
    out = tmp_path / "page.html"
    assert main(["render", "--batch", str(batch_dir), "--out", str(out)]) == 3
    (line, *_) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"evidence-rank: {path}: input.schema at {pointer!r}: ")
    resolve_pointer(json.loads(path.read_bytes()), pointer)  # names a place, or a missing member of one
    assert not out.exists() and not (tmp_path / "page-runs").exists()


@pytest.mark.parametrize("raw", [b"{", b"[]", b'"summary"', b"\xff\xfe{}", b'{"bundles": 1, "bundles": []}'])
def test_a_summary_that_is_not_a_json_object_is_an_input_error(batch_dir: Path, tmp_path: Path, raw: bytes, capsys):
    (batch_dir / "summary.json").write_bytes(raw)
    assert main(["render", "--batch", str(batch_dir), "--out", str(tmp_path / "page.html")]) == 3
    err = capsys.readouterr().err
    assert re.match(r"evidence-rank: .*summary\.json: input\.(malformed_json|schema) at ''", err)
    assert "Traceback" not in err


def test_hostile_strings_in_a_genuine_form_are_shown_escaped(batch_dir: Path, tmp_path: Path, capsys) -> None:
    path = batch_dir / "summary.json"
    summary = json.loads(path.read_bytes())
    hostile = "x\n::error::forged <script>alert(1)</script>"
    summary["bundles"][0]["source"]["file"] = hostile
    summary["bundles"][1]["error"]["message"] = hostile
    path.write_text(json.dumps(seal(summary)))
    out = tmp_path / "page.html"
    assert main(["render", "--batch", str(batch_dir), "--out", str(out)]) == 0
    assert not any(line.startswith("::") for line in capsys.readouterr().out.splitlines())
    page = out.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page


def test_the_summary_batch_writes_has_the_form(batch_dir: Path) -> None:
    check_summary_form(read_summary(batch_dir))
