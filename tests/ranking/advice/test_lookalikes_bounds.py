"""Look-alikes are bounded (issue 55, finding 2): a memory of many instructions that share words
lists at most PER_TEXT look-alikes an instruction and IN_ALL in all, says how many it left out,
in every output of the gate, and costs about as much per instruction at any size."""

from __future__ import annotations

import json
import time
from collections import Counter
from typing import Any

from ranking.advice.lookalikes import IN_ALL, PER_TEXT, find_lookalikes, resemblance
from ranking.checking.findings import GateResult
from ranking.views.gate import render_github, render_json, render_step_summary, render_text
from ranking.views.terminal import Command
from tests.curator_scenario import scenario

GLOBAL = {"level": "global"}


def _similar(n: int) -> dict[str, Any]:
    """A memory of ``n`` instructions that all share most of their words."""
    texts = [f"Run the unit tests of module m{i} with pytest before pushing to main." for i in range(n)]
    return {
        "version": 9,
        "instructions": [{"key": f"k.{i:05d}", "text": t, "scope": GLOBAL} for i, t in enumerate(texts)],
    }


def test_many_instructions_that_share_words_give_bounded_look_alikes_and_a_count_of_the_rest() -> None:
    found = find_lookalikes(scenario().bundle, written=_similar(400))
    per_text = Counter(f.subject.key for f in found)
    assert len(found) == IN_ALL
    assert max(per_text.values()) == PER_TEXT
    assert found.left_out >= 400 * PER_TEXT - IN_ALL  # every instruction has at least PER_TEXT of its own


def test_finding_them_costs_about_as_much_per_instruction_at_four_times_the_size() -> None:
    bundle = scenario().bundle

    def seconds(n: int) -> float:
        start = time.process_time()
        find_lookalikes(bundle, written=_similar(n))
        return time.process_time() - start

    small, large = min(seconds(250) for _ in range(2)), min(seconds(1000) for _ in range(2))
    assert large < 4 * small * 2  # linear with room for noise; quadratic would be 16 times


def _result(left_out: int) -> GateResult:
    found = find_lookalikes(scenario().bundle, written=_similar(3))
    from ranking.checking.gate import lookalike_warnings

    warnings = lookalike_warnings(scenario().bundle, _similar(3))
    assert len(warnings) == len(found)
    return GateResult((), 9, 3, warnings=warnings, lookalikes_left_out=left_out)


LINE = f"7 more look-alikes not listed (at most {PER_TEXT} an instruction, {IN_ALL} in all: docs/lookalikes.md)"


def test_every_output_of_the_gate_says_how_many_look_alikes_it_left_out() -> None:
    result = _result(7)
    assert f"warning: {LINE}" in render_text(result)
    assert render_text(result)[-1].endswith(f"{len(result.warnings) + 7} look-alikes under other keys to review")
    assert Command("warning", LINE, {"title": "evidence-rank gate: look-alike"}) in render_github(result, "m.json")
    assert LINE + "\n" in render_step_summary(result).splitlines(keepends=True)
    assert json.loads(render_json(result))["warnings_left_out"] == 7


def test_an_output_that_left_nothing_out_says_nothing_of_it() -> None:
    result = _result(0)
    assert not any("not listed" in str(line) for line in render_text(result) + render_github(result, "m.json"))
    assert "not listed" not in render_step_summary(result)
    assert json.loads(render_json(result))["warnings_left_out"] == 0


def test_a_text_of_a_megabyte_costs_what_a_long_instruction_does() -> None:
    # Two texts of 100,000 distinct words took 111 s in rapidfuzz; only the first MOST_WORDS are compared.
    words = [f"w{i:06d}" for i in range(100_000)]
    big, other = " ".join(words), " ".join(reversed(words))
    start = time.process_time()
    assert resemblance(big, big) is not None
    resemblance(big, other)
    assert time.process_time() - start < 5


def test_hostile_characters_in_a_text_are_compared_as_words_and_shown_as_written() -> None:
    hostile = "\ufeff##[error]Run the tests\r\nbefore you push ::set-output name=x\x00"
    memory = {
        "version": 9,
        "instructions": [
            {"key": "a.hostile", "text": hostile, "scope": GLOBAL},
            {"key": "b.plain", "text": "##[group]Run the tests before you push: set the output x", "scope": GLOBAL},
        ],
    }
    found = find_lookalikes(scenario().bundle, written=memory)
    assert [(f.subject.key, f.other.key) for f in found] == [("a.hostile", "b.plain"), ("b.plain", "a.hostile")]
    assert found[0].text == hostile  # the text as written: the escaper, not this module, makes it safe to print
    assert all(w.isalnum() for f in found for w in f.words)


def test_scores_count_of_look_alikes_says_how_many_the_bounds_left_out() -> None:
    from ranking.advice.lookalikes import Lookalikes
    from ranking.views.tables import render_lookalike_count

    found = find_lookalikes(scenario().bundle)
    assert "not listed" not in render_lookalike_count(found)[0]
    (line,) = render_lookalike_count(Lookalikes(found, 12))
    assert "an instruction under another key (12 more look-alikes not listed); evidence-rank explain" in line


def test_explain_lists_at_most_per_text_look_alikes_of_an_edit_and_counts_the_rest() -> None:
    from curator_io import Add, BundleBuilder
    from ranking.checking.acceptance import accept
    from ranking.checking.explain import explain
    from ranking.pipeline import rank
    from tests.curator_scenario import SHOP

    b = BundleBuilder(memory_version=1, curator="c", frozen_at="2026-12-08T09:00:00Z")
    for i in range(PER_TEXT + 4):  # nine reworded copies of one rule, under nine keys
        b.memory_instruction(f"deps.copy{i}", f"Install the dependencies with uv sync, copy {i}.", scope=SHOP)
    b.materialization("mat-0", repository="acme/shop", source_revision="r0")
    b.trace("tr-0", lineage="task-0", materialization="mat-0", steps=2)
    b.evidence("ev-0", trace="tr-0", step=1, signal="deterministic", observed_at="2026-12-08T08:00:00Z")
    b.lesson("les", text="l", evidence=["ev-0"])
    add = Add("deps.install", "Install the dependencies with uv sync.")
    b.propose("p-1", lesson="les", scope=SHOP, confidence=0.5, operations=[add], support=["ev-0"])
    built = b.build("run-1")
    lines = explain(accept(rank(built.bundle).canonical, bundle=built.canonical), "p-1").render()
    assert sum(1 for line in lines if line.startswith("  add deps.install resembles")) == PER_TEXT
    assert f"  and 4 more not listed (at most {PER_TEXT} a text: docs/lookalikes.md)" in lines


def test_the_run_view_counts_the_look_alikes_its_lists_leave_out() -> None:
    from curator_io import Add, BundleBuilder
    from ranking.checking.acceptance import accept
    from ranking.pipeline import rank
    from ranking.views.html.run import render_report
    from tests.curator_scenario import SHOP

    b = BundleBuilder(memory_version=1, curator="c", frozen_at="2026-12-08T09:00:00Z")
    for i in range(PER_TEXT + 4):  # nine reworded copies of one rule, under nine keys
        b.memory_instruction(f"deps.copy{i}", f"Install the dependencies with uv sync, copy {i}.", scope=SHOP)
    for n in range(2):  # two lineages: the proposal is selected
        b.materialization(f"mat-{n}", repository="acme/shop", source_revision="r0")
        b.trace(f"tr-{n}", lineage=f"task-{n}", materialization=f"mat-{n}", steps=2)
        b.evidence(f"ev-{n}", trace=f"tr-{n}", step=1, signal="deterministic", observed_at="2026-12-08T08:00:00Z")
    b.lesson("les", text="l", evidence=["ev-0", "ev-1"])
    add = Add("deps.install", "Install the dependencies with uv sync.")
    b.propose("p-1", lesson="les", scope=SHOP, confidence=0.9, operations=[add], support=["ev-0", "ev-1"])
    built = b.build("run-1")
    page = render_report(accept(rank(built.bundle).canonical, bundle=built.canonical))
    assert page.count("<code>deps.install</code> resembles") == PER_TEXT
    assert f"4 more look-alikes not listed (at most {PER_TEXT} a text, {IN_ALL} in all)" in page
