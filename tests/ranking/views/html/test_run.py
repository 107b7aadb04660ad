"""The run view as bytes: deterministic, escaped, verified first, locked down by its CSP."""

from __future__ import annotations

import base64
import hashlib
import json
import re

import pytest

from curator_io import InvariantError, TamperError, load_bundle
from curator_io.canonical import seal
from curator_io.report_model import ReportScore
from ranking.checking.acceptance import accept
from ranking.checking.explain import reason_sentence
from ranking.pipeline import rank
from ranking.views.html import render_report
from ranking.views.html.page import content_security_policy
from ranking.views.html.run import _bar, anchor
from tests.conftest import FIXTURES, expected_report
from tests.ranking.views.html.conftest import (
    CONFLICT,
    MIXED,
    PAYLOADS,
    case_bundle_doc,
    hostile_bundle_doc,
    ranked_report,
    shuffled,
)


def _bundle(doc: dict) -> object:
    return load_bundle(json.dumps(doc).encode())


def _without_digests(page: str, report: dict) -> str:
    for name in ("input_digest", "validation_digest", "digest"):
        page = page.replace(report[name], f"<{name}>")
    return page


def test_the_same_report_renders_to_the_same_bytes() -> None:
    report = expected_report(MIXED)
    bundle = _bundle(case_bundle_doc(MIXED))

    assert render_report(accept(report)) == render_report(accept(json.loads(json.dumps(report))))
    assert render_report(accept(report, bundle=bundle)) == render_report(accept(report, bundle=bundle))


def test_a_bundle_with_its_arrays_shuffled_renders_the_same_page_but_for_the_digests() -> None:
    doc = case_bundle_doc(MIXED)
    original = ranked_report(doc)
    pages = []
    for seed in (1, 2):
        other = shuffled(doc, seed)
        report = ranked_report(other)
        assert report["input_digest"] != original["input_digest"]  # the shuffle changed the bytes
        pages.append(_without_digests(render_report(accept(report, bundle=_bundle(other))), report))

    assert pages[0] == pages[1] == _without_digests(render_report(accept(original, bundle=_bundle(doc))), original)


def test_the_example_page_matches_its_snapshot(snapshot) -> None:
    doc = json.loads((FIXTURES / "example.json").read_bytes())

    assert render_report(accept(ranked_report(doc), bundle=_bundle(doc))) == snapshot


def test_every_proposal_has_a_row_whose_reason_codes_link_to_explains_sentence() -> None:
    report = expected_report(MIXED)
    page = render_report(accept(report)).replace("&#39;", "'")

    for e in report["proposals"]:
        row = page[page.index(f'<tr id="{anchor(e["id"])}" class="{e["disposition"]}">') :]
        row = row[: row.index("</tr>")]
        for r in e["reasons"]:
            assert f'<a href="#code-{r["code"]}">{r["code"]}</a>' in row
            meaning = page[page.index(f'<tr id="code-{r["code"]}"><td><code>{r["code"]}</code></td>') :]
            assert r["subject"] is None or r["subject"] in meaning[: meaning.index("</tr>")]
    assert "‹" not in page and "subject›" not in page


def test_a_codes_meaning_names_its_subjects_in_the_report_not_a_placeholder() -> None:
    doc = json.loads((FIXTURES / "example.json").read_bytes())
    report = ranked_report(doc)
    page = render_report(accept(report)).replace("&#39;", "'")

    sentence = reason_sentence("closure.stale_instruction", "style.imports", report["config"])
    assert f"<td>{sentence}</td></tr>" in page
    assert "instruction style.imports as it used to be" in sentence


def test_a_superseded_proposal_links_to_the_proposal_that_superseded_it() -> None:
    report = expected_report(CONFLICT)
    superseded = [e for e in report["proposals"] if e["disposition"] == "superseded"]
    assert superseded
    page = render_report(accept(report))

    for e in superseded:
        assert f'by <a class="id" href="#{anchor(e["superseded_by"])}">{e["superseded_by"]}</a>' in page


def test_a_score_bar_stacks_the_components_and_lays_the_penalty_over_its_end() -> None:
    report = expected_report(CONFLICT)
    page = render_report(accept(report))
    scored = [e for e in report["proposals"] if e["score"] is not None]
    assert scored

    for entry in scored:
        score = entry["score"]
        row = page[page.index(f'<tr id="{anchor(entry["id"])}"') :]
        start = row.index('<div class="bar"')
        bar = row[start : row.index("</div>", start)]
        end = 0
        for name in ("recurrence", "provenance", "source_signal", "scope_coverage", "confidence", "completeness"):
            if score[name]:
                end += score[name]
                assert f"var(--{name}) 0 {end:g}%" in bar
        assert (score["contradiction_penalty"] == 0) == ("--p:" not in bar)
        assert f"final {score['final']:g}" in row


def test_a_penalty_is_drawn_from_final_to_the_end_of_the_stack() -> None:
    bar = _bar(
        ReportScore(
            recurrence=20,
            provenance=20,
            source_signal=12,
            scope_coverage=10,
            confidence=8,
            completeness=10,
            contradiction_penalty=20,
            final=60,
        )
    )
    # 80 stacked, 20 deducted: a layer 20% wide starting at 60%, so its position is 60 / (100 - 20) = 75%.
    assert bar.style.endswith(";--p:var(--hatch) 75% 0/20% 100% no-repeat")


def test_text_from_the_bundle_is_escaped_and_no_script_but_the_pages_own_is_left() -> None:
    doc = hostile_bundle_doc()
    page = render_report(accept(ranked_report(doc), bundle=_bundle(doc)))

    for payload in PAYLOADS:
        assert payload not in page
    escaped = "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;"
    assert page.count(escaped) >= 3  # in the rationale, the lesson and the operation text
    assert page.count("<script") == 1
    assert not re.search(r"<(img|svg)\b", page)


def test_the_content_security_policy_allows_exactly_the_inline_script_by_its_hash() -> None:
    page = render_report(accept(expected_report(MIXED)))
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page).group(1)

    assert csp == content_security_policy()
    assert "default-src 'none'" in csp and f"script-src 'sha256-{digest}'" in csp
    assert "unsafe-inline" not in csp.split("script-src")[1]
    assert not re.search(r"\b(src|href)=\"(https?:)?//", page)  # nothing is fetched


def test_a_report_that_breaks_an_invariant_is_not_rendered() -> None:
    report = expected_report(MIXED)
    report["proposals"][0]["rationale"] = "edited after sealing"

    with pytest.raises(InvariantError, match=r"invariant\.sealed"):
        render_report(accept(report))


def test_a_resealed_report_that_is_not_the_bundles_is_refused_as_tampered() -> None:
    report = dict(expected_report(MIXED))
    report["proposals"][0]["rationale"] = "a sealed lie"
    report = seal(report)

    render_report(accept(report))  # the invariants alone cannot see a changed rationale
    with pytest.raises(TamperError, match=r"report\.tampered at '/proposals/0/rationale'"):
        render_report(accept(report, bundle=_bundle(case_bundle_doc(MIXED))))


def test_with_the_bundle_the_run_view_marks_a_proposal_whose_text_resembles_an_instruction_under_another_key() -> None:
    from tests.curator_scenario import scenario

    sealed = scenario()
    page = render_report(accept(rank(sealed.bundle).canonical, bundle=sealed.canonical)).replace("&#39;", "'")
    row = page[page.index(f'<tr id="{anchor("p-test-runner")}"') :]
    row = row[: row.index("</tr>")]
    assert '<a class="why" href="#more-p-test-runner">resembles test.command</a>' in row
    assert (
        "add <code>test.runner</code> resembles memory 'test.command' (score 100; shared words: pytest, test): "
        '<span class="rationale">Run the tests with pytest.</span>'
    ) in row
    assert "<dt>look-alikes</dt><dd>2 selected proposals add or replace a text" in page
    lint = page[page.index(f'<tr id="{anchor("p-lint")}"') :]
    assert "resembles" not in lint[: lint.index("</tr>")]
    assert "look-alike" not in render_report(accept(rank(sealed.bundle).canonical))
