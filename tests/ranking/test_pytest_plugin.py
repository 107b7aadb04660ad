"""The pytest plugin's ``rank_bundle`` fixture, and the README's syrupy example that uses it,
run as a user runs them: in a scratch project, in a pytest subprocess that finds the plugin
through its entry point, from the project's root and from its ``tests/`` folder."""

from __future__ import annotations

import json
import re
import shutil
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from curator_io import parse_config
from ranking.cli import main
from ranking.testing import score_file, snapshot_lines
from tests.conftest import FIXTURES, REPO

EXAMPLE = FIXTURES / "example.json"
README = (REPO / "README.md").read_text()
SECTION = README[README.index("## Snapshot tests") : README.index("## The admission ledger")]


def _readme_example() -> tuple[str, str]:
    """The README's snapshot test: the file it names, and its code."""
    blocks = re.findall(r"```python\n(# tests/test_curator_decisions\.py\n.*?)```", README, re.S)
    (code,) = blocks
    return code.splitlines()[0].removeprefix("# "), code


def _shown_after(words: str) -> list[str]:
    """The lines of the README section's code block that follows ``words``."""
    shown = re.search(re.escape(words) + r"\n\n```\n(.*?)```", SECTION, re.S)
    assert shown is not None, words
    return shown.group(1).splitlines()


def _readme_project(pytester: pytest.Pytester) -> tuple[str, Path]:
    """The README's example in a scratch project: the test file's name, and the bundle's path."""
    name, code = _readme_example()
    bundle = re.search(r'rank_bundle\("([^"]+)"\)', code)
    assert bundle is not None
    test_file = pytester.path / name
    test_file.parent.mkdir(parents=True)
    test_file.write_text(code)
    (test_file.parent / bundle.group(1)).parent.mkdir(parents=True)
    shutil.copy(EXAMPLE, test_file.parent / bundle.group(1))
    return name, test_file.parent / bundle.group(1)


def _contains_run(lines: list[str], run: list[str]) -> bool:
    return any(lines[i : i + len(run)] == run for i in range(len(lines)))


def test_the_plugin_is_registered_under_pytest11_as_a_module_of_its_own() -> None:
    (plugin,) = [e for e in entry_points(group="pytest11") if e.name == "evidence_rank"]
    assert plugin.value == "evidence_rank_pytest"


def test_loading_the_plugin_imports_none_of_evidence_ranks_packages(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_loaded="""
        import sys

        def test_nothing_of_ours_is_imported(request):
            assert request.config.pluginmanager.has_plugin("evidence_rank")
            ours = sorted(m for m in sys.modules if m.split(".")[0] in {"ranking", "curator_io", "validator"})
            assert ours == []
        """
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_project_with_its_own_ranking_package_collects_and_passes(pytester: pytest.Pytester) -> None:
    # The case: the plugin is loaded before the root conftest.py, which imports the project's own `ranking`.
    (pytester.path / "ranking").mkdir()
    (pytester.path / "ranking" / "__init__.py").write_text("def by_votes(xs):\n    return sorted(xs)\n")
    pytester.makeconftest("from ranking import by_votes\n")
    pytester.makepyfile(
        test_own="""
        from ranking import by_votes

        def test_the_projects_ranking(request):
            assert request.config.pluginmanager.has_plugin("evidence_rank")
            assert by_votes([2, 1]) == [1, 2]
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "ImportError" not in result.stdout.str() + result.stderr.str()


def test_the_fixture_ranks_a_bundle_relative_to_the_test_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    (pytester.path / "tests" / "bundles").mkdir(parents=True)
    shutil.copy(EXAMPLE, pytester.path / "tests" / "bundles" / "run.json")
    pytester.makepyfile(
        **{
            "tests/test_mine": f"""
            def test_default(rank_bundle):
                assert rank_bundle("bundles/run.json") == {snapshot_lines(score_file(EXAMPLE))!r}

            def test_config(rank_bundle):
                lines = rank_bundle("bundles/run.json", config={{"threshold": 90}})
                assert lines == {snapshot_lines(score_file(EXAMPLE, parse_config({"threshold": 90})))!r}
            """
        }
    )
    (pytester.path / "elsewhere").mkdir()
    monkeypatch.chdir(pytester.path / "elsewhere")
    result = pytester.runpytest_subprocess(str(pytester.path / "tests" / "test_mine.py"), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_the_readme_example_passes_from_the_root_and_from_tests(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, bundle = _readme_project(pytester)
    monkeypatch.chdir(bundle.parent.parent)  # the case: pytest run from tests/
    written = pytester.runpytest_subprocess("--snapshot-update", "-p", "no:cacheprovider")
    written.assert_outcomes(passed=1)
    (snapshot,) = (pytester.path / "tests" / "__snapshots__").glob("*.ambr")
    shown = _shown_after("review it and commit it:")
    assert shown == snapshot_lines(score_file(EXAMPLE)).splitlines()
    assert all(line in snapshot.read_text() for line in shown)

    monkeypatch.chdir(pytester.path)  # and from the root, against the snapshot written from tests/
    again = pytester.runpytest_subprocess(name, "-p", "no:cacheprovider")
    again.assert_outcomes(passed=1)


def test_a_changed_decision_shows_the_diff_the_readme_shows(pytester: pytest.Pytester) -> None:
    name, _ = _readme_project(pytester)
    pytester.runpytest_subprocess("--snapshot-update", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    test_file = pytester.path / name
    raised = test_file.read_text().replace('.json")', '.json", config={"threshold": 90})')
    test_file.write_text(raised)  # "a raised threshold that defers p-make-test"

    failed = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    failed.assert_outcomes(failed=1)
    shown = _shown_after("A raised threshold\nthat defers `p-make-test` shows:")
    assert _contains_run(failed.stdout.lines, shown), failed.stdout.str()


def test_an_edited_bundle_fails_in_three_lines_and_its_snapshot_survives_an_update(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    _, bundle = _readme_project(pytester)
    pytester.runpytest_subprocess("--snapshot-update", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    (snapshot,) = (pytester.path / "tests" / "__snapshots__").glob("*.ambr")
    reviewed = snapshot.read_bytes()
    doc = json.loads(bundle.read_bytes())
    doc["run"]["curator"] = "curator@9"  # edited by hand, not resealed
    bundle.write_text(json.dumps(doc, indent=2))

    refused = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert refused.ret == pytest.ExitCode.TESTS_FAILED
    refused.assert_outcomes(skipped=1, errors=1)
    readme = _shown_after("the error is the refusal:")
    shown = [line.replace("…", "*") for line in readme]
    refused.stdout.fnmatch_lines(shown, consecutive=True)
    assert "unused" not in refused.stdout.str()
    assert "Traceback" not in refused.stdout.str() and "bundle.py" not in refused.stdout.str()

    # What syrupy's advice would have led to: the reviewed snapshot is still there, unchanged.
    pytester.runpytest_subprocess("--snapshot-update", "-p", "no:cacheprovider").assert_outcomes(skipped=1, errors=1)
    assert snapshot.read_bytes() == reviewed

    # The README's cycle: reseal, and the test passes against the reviewed snapshot.
    assert main(["seal", str(bundle)]) == 0
    capsys.readouterr()
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert snapshot.read_bytes() == reviewed
