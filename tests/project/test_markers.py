"""The markers `browser`, `slow` and `ace` are registered, carried by the tests they name, and
deselect exactly those; CI (`make test`) still runs every test (the `ace` ones in .venv-ace,
on Python 3.12 or newer)."""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
import tomllib

from tests.conftest import REPO

#: The files that hold the browser tests and the slow ones, and a file with neither.
FILES = (
    "tests/ranking/views/html/test_browser.py",
    "tests/ranking/views/html/test_ledger_view.py",
    "tests/project/test_packaging.py",
)


@functools.cache
def _collected(expression: str) -> set[str]:
    """The test functions (without parameters) pytest collects from FILES under ``-m expression``."""
    args = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", expression, *FILES]
    done = subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: nothing collected
    return {line.split("::")[-1].split("[")[0] for line in done.stdout.splitlines() if "::" in line}


def _tests_asking_for(fixture: str) -> set[str]:
    names = set()
    for file in FILES:
        for node in ast.walk(ast.parse((REPO / file).read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                if fixture in {a.arg for a in node.args.args}:
                    names.add(node.name)
    return names


def test_the_markers_are_registered_and_strictly_checked() -> None:
    options = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in options["addopts"]
    assert {line.split(":")[0] for line in options["markers"]} == {"browser", "slow", "ace"}


def test_not_browser_leaves_out_exactly_the_tests_that_drive_chromium() -> None:
    browser_tests = _tests_asking_for("browser")
    assert len(browser_tests) >= 6
    everything = _collected("")
    assert browser_tests <= everything
    assert _collected("not browser") == everything - browser_tests


def test_not_slow_leaves_out_the_builds_and_installs() -> None:
    slow = _collected("") - _collected("not slow")
    assert "test_the_sdist_carries_the_licence_the_spec_the_tests_and_the_corpus" in slow
    assert "test_the_licence_is_the_apache_2_0_text_as_published" not in slow


def test_ci_runs_every_test_whatever_its_marker() -> None:
    options = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert " -m" not in f" {options['addopts']}"
    commands = _make_test("ACE_PYTHON=python3.12")
    assert _suite_line(commands).endswith('/python -m pytest -m "not ace"')  # every marker but ace runs here
    assert _ace_line(commands).startswith(".venv-ace/bin/python -m pytest -q -m ace tests/")  # and ace there
    assert "make test" in (REPO / ".ci" / "run").read_text()
    assert "BROWSER" not in (REPO / ".ci" / "run").read_text()


def test_without_python_3_12_make_test_says_so_in_one_line_and_runs_the_rest() -> None:
    commands = _make_test("ACE_PYTHON=")
    assert _suite_line(commands).endswith('/python -m pytest -m "not ace"')
    assert ".venv-ace" not in commands
    (said,) = [c for c in commands.splitlines() if "no Python 3.12" in c]
    assert said.startswith('echo "make test: no Python 3.12 or newer found (python3.12, python3.13, python3.14, pyenv)')


def _suite_line(commands: str) -> str:
    """The command that runs the whole suite (the reference path's run after it takes named files)."""
    (line,) = [c for c in commands.splitlines() if "/python -m pytest -m" in c]
    return line


def _ace_line(commands: str) -> str:
    """The command that runs the ACE tests in their own environment."""
    (line,) = [c for c in commands.splitlines() if "-m pytest -q -m ace" in c]
    return line


def _make_test(*variables: str) -> str:
    """The commands ``make test`` would run, unrun (``make -n``), with only ``variables`` set: not
    those of a ``make`` this suite runs under (``make test BROWSER=0`` exports BROWSER=0 to its
    commands, and MAKEFLAGS carries it to any make they start)."""
    unset = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "BROWSER", "ACE_PYTHON")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    done = subprocess.run(
        ["make", "-n", "test", *variables], cwd=REPO, capture_output=True, text=True, check=True, env=env
    )
    return done.stdout


def test_make_test_announces_the_chromium_install_in_one_line_before_it_runs() -> None:
    commands = _make_test()
    assert commands.index('echo "make browser: installing Chromium with') < commands.index("apt-get update")


def test_make_test_browser_0_installs_no_chromium_and_leaves_the_browser_tests_out() -> None:
    commands = _make_test("BROWSER=0")
    assert "apt-get" not in commands and "chromium" not in commands
    assert _suite_line(commands).endswith('/python -m pytest -m "not ace and not browser"')
