"""The pytest plugin's ``rank_bundle`` fixture, and the README's syrupy example that uses it,
run as a user runs them: in a scratch project, in a pytest subprocess that finds the plugin
through its entry point, from the project's root and from its ``tests/`` folder."""

from __future__ import annotations

import re
import shutil
from importlib.metadata import entry_points

import pytest

from curator_io import parse_config
from ranking.testing import score_file, snapshot_lines
from tests.conftest import FIXTURES, REPO

EXAMPLE = FIXTURES / "example.json"


def _readme_example() -> tuple[str, str]:
    """The README's snapshot test: the file it names, and its code."""
    blocks = re.findall(
        r"```python\n(# tests/test_curator_decisions\.py\n.*?)```", (REPO / "README.md").read_text(), re.S
    )
    (code,) = blocks
    return code.splitlines()[0].removeprefix("# "), code


def test_the_plugin_is_registered_under_pytest11() -> None:
    (plugin,) = [e for e in entry_points(group="pytest11") if e.name == "evidence_rank"]
    assert plugin.value == "ranking.pytest_plugin"


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
    name, code = _readme_example()
    bundle = re.search(r'rank_bundle\("([^"]+)"\)', code)
    assert bundle is not None
    test_file = pytester.path / name
    test_file.parent.mkdir(parents=True)
    test_file.write_text(code)
    (test_file.parent / bundle.group(1)).parent.mkdir(parents=True)
    shutil.copy(EXAMPLE, test_file.parent / bundle.group(1))

    monkeypatch.chdir(test_file.parent)  # the case: pytest run from tests/
    written = pytester.runpytest_subprocess("--snapshot-update", "-p", "no:cacheprovider")
    written.assert_outcomes(passed=1)
    (snapshot,) = (test_file.parent / "__snapshots__").glob("*.ambr")
    readme = (REPO / "README.md").read_text()
    shown = re.search(r"a one-line diff:\n\n```\n(.*?)```", readme, re.S)
    assert shown is not None
    assert [line.strip() for line in shown.group(1).splitlines()] == snapshot_lines(score_file(EXAMPLE)).splitlines()
    assert all(line in snapshot.read_text() for line in shown.group(1).splitlines())

    monkeypatch.chdir(pytester.path)  # and from the root, against the snapshot written from tests/
    again = pytester.runpytest_subprocess(name, "-p", "no:cacheprovider")
    again.assert_outcomes(passed=1)
