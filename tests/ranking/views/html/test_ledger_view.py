"""``evidence-rank ledger render``: the ledger view, built from a ledger that
``score --ledger`` filled, as a user runs it (docs/render.md)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from markupsafe import escape

from curator_io import canon, parse_json, seal
from curator_io.sealing import seal_bundle
from ranking.cli import main
from ranking.ledger import Ledger
from ranking.ledger.records import Outcome
from ranking.ledger.store import record_outcome
from ranking.views.html import render_ledger
from tests.conftest import FIXTURES
from tests.ranking.views.html.conftest import Browser

EXAMPLE = FIXTURES / "example.json"
HOSTILE = "<script>document.title='pwned'</script> Ruff sorts imports too."
_PNG = b"\x89PNG\r\n\x1a\n"


def _reworded(tmp_path: Path) -> Path:
    """The example bundle a day later: p-ruff-format back under a new id, its rationale holding a script tag."""
    doc = json.loads(EXAMPLE.read_bytes())
    doc["run"]["id"] = "run-2026-11-30-b"
    (proposal,) = [p for p in doc["proposals"] if p["id"] == "p-ruff-format"]
    proposal["id"] = "p-format-with-ruff"
    proposal["rationale"] = HOSTILE
    path = tmp_path / "reworded.json"
    path.write_bytes(canon(seal_bundle(doc)))
    return path


def _ledger(tmp_path: Path, capsys) -> Path:
    """Two runs recorded by score --ledger, and one acceptance-test outcome for a selected proposal."""
    ledger = tmp_path / "ledger.db"
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path / "a"), "--ledger", str(ledger)]) == 0
    assert main(["score", str(_reworded(tmp_path)), "--out-dir", str(tmp_path / "b"), "--ledger", str(ledger)]) == 0
    report = parse_json((tmp_path / "b" / "report.json").read_bytes())
    (entry,) = [e for e in report["proposals"] if e["id"] == report["selected"][0]]
    outcome = Outcome(report["digest"], entry["id"], entry["fingerprint"], "diff-7", 3, "committed", 0.97, 0.04)
    assert record_outcome(ledger, outcome)
    capsys.readouterr()
    return ledger


def _refused(tmp_path: Path) -> dict[str, str]:
    """{fingerprint: disposition} of every refused entry of the first run's report."""
    report = parse_json((tmp_path / "a" / "report.json").read_bytes())
    return {e["fingerprint"]: e["disposition"] for e in report["proposals"] if e["disposition"] != "selected"}


def test_the_page_shows_each_run_each_refused_fingerprint_twice_and_the_outcome(tmp_path: Path, capsys) -> None:
    ledger = _ledger(tmp_path, capsys)
    out = tmp_path / "ledger.html"

    assert main(["ledger", "render", str(ledger), "--out", str(out)]) == 0

    assert capsys.readouterr().out == f"{out}: ledger view of {ledger} (2 run(s), 6 decisions)\n"
    page = out.read_text(encoding="utf-8")
    runs = page.split('<table id="runs"')[1].split("</table>")[0]
    assert runs.index("run-2026-11-29-a") < runs.index("run-2026-11-30-b")
    fingerprints = page.split('<table id="fingerprints"')[1].split("</table>")[0]
    rows = fingerprints.split("<tr>")[2:]
    assert len(rows) == len(_refused(tmp_path)) == 2
    for fingerprint in _refused(tmp_path):
        (row,) = [r for r in rows if fingerprint in r]
        assert '<td class="n">2</td>' in row
    (ruff,) = [r for r in rows if "p-format-with-ruff" in r]
    assert "p-ruff-format</span>, <span" in ruff  # both ids the edit was proposed under, oldest first
    outcomes = page.split('<table id="outcomes"')[1].split("</table>")[0]
    assert "diff-7" in outcomes and ">0.97<" in outcomes and ">+0.04<" in outcomes and ">committed<" in outcomes


def test_a_rationale_holding_a_script_tag_renders_as_text(tmp_path: Path, capsys) -> None:
    ledger = _ledger(tmp_path, capsys)
    with Ledger.open(ledger, create=False) as opened:
        page = render_ledger(opened.export())

    assert "<script>document.title" not in page
    assert str(escape(HOSTILE)) in page
    assert page.count("<script>") == 1  # the page's own, allowed by its hash


def test_the_same_ledger_gives_the_same_bytes(tmp_path: Path, capsys) -> None:
    ledger = _ledger(tmp_path, capsys)

    assert main(["ledger", "render", str(ledger), "--out", str(tmp_path / "one.html")]) == 0
    assert main(["ledger", "render", str(ledger), "--out", str(tmp_path / "two.html")]) == 0

    assert (tmp_path / "one.html").read_bytes() == (tmp_path / "two.html").read_bytes()


def test_a_tampered_ledger_exits_4_and_writes_no_page(tmp_path: Path, capsys) -> None:
    ledger = _ledger(tmp_path, capsys)
    with sqlite3.connect(ledger) as db:
        db.execute("UPDATE decisions SET disposition = 'selected' WHERE proposal = 'p-format-with-ruff'")
    out = tmp_path / "ledger.html"

    assert main(["ledger", "render", str(ledger), "--out", str(out)]) == 4

    assert "tampered: " in capsys.readouterr().out
    assert not out.exists()


@pytest.mark.browser
def test_the_browser_finds_the_three_tables_of_the_ledger_view(browser: Browser, tmp_path: Path, capsys) -> None:
    ledger = _ledger(tmp_path, capsys)
    page = tmp_path / "ledger.html"
    assert main(["ledger", "render", str(ledger), "--out", str(page)]) == 0

    dom = browser.dom(page)

    assert dom.one("html").attrs.get("data-enhanced") is not None
    assert dom.root.find("title")[0].all_text() == "evidence-rank · ledger of 2 runs"  # the script did not run
    runs = [row.find("td")[1].all_text() for row in dom.one("table", id="runs").find("tbody")[0].find("tr")]
    assert runs == ["run-2026-11-29-a", "run-2026-11-30-b"]
    fingerprints = dom.one("table", id="fingerprints").find("tbody")[0].find("tr")
    shown = {row.find("td")[1].find("code")[0].attrs["title"] for row in fingerprints}
    assert shown == set(_refused(tmp_path))
    edits = [row.find("td")[0].all_text() for row in fingerprints]
    assert 'replace "style.imports" with "Sort imports and format with ruff." in acme/api' in edits
    (outcome,) = dom.one("table", id="outcomes").find("tbody")[0].find("tr")
    assert outcome.find("td")[2].all_text() == "diff-7"
    shot = browser.screenshot(page, tmp_path / "ledger.png")
    assert shot.read_bytes().startswith(_PNG) and shot.stat().st_size > 10_000


def _sleep_recurs(tmp_path: Path) -> Path:
    """The example bundle a day later, in which the deferred p-sleep-flaky's lesson recurred in
    another task (task-101), so that it is selected."""
    doc = json.loads(EXAMPLE.read_bytes())
    doc["run"]["id"] = "run-2026-11-30-c"
    evidence = {
        "id": "ev-8",
        "trace": "tr-101-1",
        "step": 5,
        "signal": "deterministic",
        "observed_at": "2026-11-25T09:00:00Z",
        "path": "tests/test_orders.py",
        "summary": "the orders test passed only after the wait",
    }
    doc["evidence"].append(seal(evidence))
    (lesson,) = [x for x in doc["lessons"] if x["id"] == "les-5"]
    lesson.pop("digest")
    lesson["evidence"] = ["ev-7", "ev-8"]
    doc["lessons"] = [seal(x) if x["id"] == "les-5" else x for x in doc["lessons"]]
    (proposal,) = [p for p in doc["proposals"] if p["id"] == "p-sleep-flaky"]
    proposal["support"] = ["ev-7", "ev-8"]
    path = tmp_path / "recurred.json"
    path.write_bytes(canon(seal_bundle(doc)))
    return path


def test_a_refused_edit_admitted_later_shows_its_text_and_what_became_of_it(tmp_path: Path, capsys) -> None:
    ledger = tmp_path / "ledger.db"
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path / "a"), "--ledger", str(ledger), "-q"]) == 0
    assert main(["score", str(_sleep_recurs(tmp_path)), "--out-dir", str(tmp_path / "b"), "--ledger", str(ledger)]) == 0
    (row,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("p-sleep-flaky ")]
    assert row.split()[1] == "selected"
    out = tmp_path / "ledger.html"

    assert main(["ledger", "render", str(ledger), "--out", str(out)]) == 0

    page = out.read_text(encoding="utf-8").replace("&#34;", '"').replace("&#39;", "'")
    fingerprints = page.split('<table id="fingerprints"')[1].split("</table>")[0]
    (sleep,) = [r for r in fingerprints.split("<tr>") if "test.orders-sleep" in r]
    edit = 'add "test.orders-sleep": "Add a one-second sleep before asserting on order status."'
    assert f"{edit} in acme/api at tests/test_orders.py" in sleep
    assert "<td>admitted later, in run-2026-11-30-c as p-sleep-flaky</td>" in sleep
    (ruff,) = [r for r in fingerprints.split("<tr>") if "style.imports" in r]
    assert "<td>told not to repeat it as it is</td>" in ruff
    assert "768fe78ef5c4</code>" in ruff  # the short fingerprint, the whole one in its title
    codes = page.split('<table id="codes"')[1].split("</table>")[0]
    assert (
        "<td>It edits instruction ‹key› as it used to be: its expected_digest is not the instruction's current "
        "digest.</td>" in codes
    )
    assert "style.imports" not in codes  # a code's own meaning, not one proposal's subject

    capsys.readouterr()
    assert main(["ledger", "notes", str(ledger)]) == 0
    assert "test.orders-sleep" not in capsys.readouterr().out  # it left the notes when it was selected
    assert main(["ledger", "history", str(ledger), "--proposal", "p-sleep-flaky"]) == 0
    history = [line.strip() for line in capsys.readouterr().out.splitlines()]
    assert f"edit: {edit} in acme/api at tests/test_orders.py" in history
    assert "admitted later, in run-2026-11-30-c as p-sleep-flaky" in history
