"""The pages in a real browser: headless Chromium loads each from a file URL.

The DOM is the one the browser holds after the page loaded and its script ran
(``--dump-dom``). ``data-enhanced`` on <html> shows the page's own script ran
under its Content-Security-Policy, so "no injected script ran" is not merely
"no script ran".
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from curator_io import load_bundle
from ranking.checking.acceptance import accept
from ranking.cli import main
from ranking.views.html import render_report
from ranking.views.html.run import anchor
from tests.conftest import expected_report
from tests.ranking.views.html.conftest import (
    CONFLICT,
    HOSTILE,
    MIXED,
    Browser,
    hostile_bundle_doc,
    ranked_report,
)

pytestmark = pytest.mark.browser

_PNG = b"\x89PNG\r\n\x1a\n"


def _page(tmp_path: Path, html: str, name: str = "run.html") -> Path:
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    return path


def _rows(dom) -> list:
    return dom.one("table", id="proposals").find("tbody")[0].find("tr")


def test_the_browser_shows_every_proposal_and_marks_the_selected_ones(browser: Browser, tmp_path: Path) -> None:
    report = expected_report(CONFLICT)
    page = _page(tmp_path, render_report(accept(report)))
    dom = browser.dom(page)

    assert dom.one("html").attrs.get("data-enhanced") is not None
    rows = {row.attrs["id"]: row for row in _rows(dom)}
    assert set(rows) == {anchor(e["id"]) for e in report["proposals"]}
    marked = {rid for rid, row in rows.items() if "selected" in row.classes}
    assert marked == {anchor(pid) for pid in report["selected"]}
    for rid, row in rows.items():
        cells = row.find("td")
        assert (cells[2].all_text() == "selected") == (rid in marked)
    shot = browser.screenshot(page, tmp_path / "run.png")
    assert shot.read_bytes().startswith(_PNG) and shot.stat().st_size > 10_000


def test_the_query_string_filters_and_sorts_the_table_once_the_script_runs(browser: Browser, tmp_path: Path) -> None:
    report = expected_report(MIXED)
    page = _page(tmp_path, render_report(accept(report)))

    dom = browser.dom(page, "?group=deferred&sort=-final")
    rows = _rows(dom)
    shown = [row.attrs["id"] for row in rows if "hidden" not in row.attrs]
    deferred = [e for e in report["proposals"] if e["disposition"] == "deferred"]
    scored = sorted((e for e in deferred if e["score"]), key=lambda e: -e["score"]["final"])
    assert shown[: len(scored)] == [anchor(e["id"]) for e in scored]
    assert sorted(shown) == sorted(anchor(e["id"]) for e in deferred)
    assert dom.one("output").all_text() == f"showing {len(deferred)} of {len(report['proposals'])}"
    assert dom.one("th", **{"data-key": "final"}).attrs["aria-sort"] == "descending"


def test_markup_in_the_bundles_texts_is_shown_as_text_and_never_runs(browser: Browser, tmp_path: Path) -> None:
    doc = hostile_bundle_doc()
    report = ranked_report(doc)
    page = _page(tmp_path, render_report(accept(report, bundle=load_bundle(json.dumps(doc).encode()))))
    dom = browser.dom(page)

    assert dom.one("title").all_text() == f"evidence-rank · {report['run']}"
    assert dom.one("html").attrs.get("data-enhanced") is not None
    assert "data-pwned" not in dom.one("body").attrs
    assert not [e for e in dom.root.walk() if e.attrs.get("id") == "pwned" or e.tag in ("img", "svg")]
    text = dom.one("body").all_text()
    for e in report["proposals"]:
        assert f"{e['id']}: {HOSTILE}" in text  # the rationale, character for character
    assert text.count(HOSTILE) >= 3 + 2  # rationales, the lessons, the add operations' texts
    browser.screenshot(page, tmp_path / "hostile.png")


def test_the_detector_sees_the_payload_run_on_a_page_without_escaping_or_policy(
    browser: Browser, tmp_path: Path
) -> None:
    # The control for the test above: the same payload, unescaped and without the CSP, does run.
    html = render_report(accept(expected_report(MIXED)))
    runnable = HOSTILE.replace("<script>alert(1)</script>", "")  # an alert would block the headless browser
    unsafe = html.replace('http-equiv="Content-Security-Policy"', 'name="no-policy"').replace(
        "<main>", "<main>" + runnable, 1
    )
    dom = browser.dom(_page(tmp_path, unsafe, "unsafe.html"))
    assert dom.one("title").all_text() == "pwned"
    assert dom.one("body").attrs.get("data-pwned") == "1"
    assert [e for e in dom.root.walk() if e.attrs.get("id") == "pwned"]

    # And with the page's own policy, even unescaped markup cannot run: the CSP alone stops it.
    locked = _page(tmp_path, html.replace("<main>", "<main>" + HOSTILE, 1), "locked.html")
    dom = browser.dom(locked)
    assert dom.one("title").all_text() != "pwned"
    assert "data-pwned" not in dom.one("body").attrs
    assert dom.one("html").attrs.get("data-enhanced") is not None


def test_the_batch_page_lists_every_bundle_and_links_to_run_views_that_open(
    browser: Browser, tmp_path: Path, capsys
) -> None:
    inbox = tmp_path / "in"
    inbox.mkdir()
    for case in (MIXED, CONFLICT):
        shutil.copy(case / "bundle.json", inbox / f"{case.name}.json")
    (inbox / "broken.json").write_bytes(b"{")
    main(["batch", str(inbox), "--out-dir", str(tmp_path / "out")])
    assert main(["render", "--batch", str(tmp_path / "out"), "--out", str(tmp_path / "batch.html")]) == 0
    capsys.readouterr()

    dom = browser.dom(tmp_path / "batch.html")
    rows = dom.one("table", id="bundles").find("tbody")[0].find("tr")
    assert [r.attrs["id"] for r in rows] == ["bundle-1", "bundle-2", "bundle-3"]
    assert [sorted(r.classes) for r in rows] == [["o-selected"], ["o-selected"], ["o-error"]]
    links = [a.attrs["href"] for a in dom.root.find("a") if a.all_text() == "run view"]
    assert len(links) == 2
    for href in links:
        run = browser.dom(tmp_path / href)
        assert run.one("html").attrs.get("data-enhanced") is not None
        assert _rows(run)
    assert dom.one("svg").find("rect")
    browser.screenshot(tmp_path / "batch.html", tmp_path / "batch.png")
