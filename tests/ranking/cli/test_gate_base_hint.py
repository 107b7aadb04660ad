"""The gate's advice when the base is missing works where CI runs it: in a shallow checkout of a
pull request, as actions/checkout leaves it, which has no ref of the base branch."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from ranking.cli import main
from tests.conftest import FIXTURES

GIT = ["git", "-c", "user.name=evidence-rank tests", "-c", "user.email=tests@example.invalid"]
GIT += ["-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "advice.detachedHead=false"]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True)


def _shallow_pull_request(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    """A depth-1 clone of a pull request's branch, and the memory its base branch holds."""
    origin = tmp_path / "origin"
    (origin / "agent").mkdir(parents=True)
    base = json.loads((FIXTURES / "example.json").read_bytes())["memory"]
    (origin / "agent" / "memory.json").write_text(json.dumps(base, indent=2))
    _git(origin, "init", "-q")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-qm", "the base")
    _git(origin, "checkout", "-qb", "pull-request")
    (origin / "curator").mkdir()
    (origin / "curator" / "bundle.json").write_bytes((FIXTURES / "example.json").read_bytes())
    _git(origin, "add", "-A")
    _git(origin, "commit", "-qm", "a curator run")
    _git(tmp_path, "clone", "-q", "--depth=1", "--branch", "pull-request", origin.as_uri(), "checkout")
    return tmp_path / "checkout", base


def test_the_hint_for_a_missing_base_reads_it_from_the_base_branch_in_a_shallow_checkout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout, base = _shallow_pull_request(tmp_path)
    monkeypatch.chdir(checkout)
    assert main(["score", "curator/bundle.json", "--out-dir", "curator", "--quiet"]) == 0
    gate = ["gate", "--bundle", "curator/bundle.json", "--report", "curator/report.json"]
    assert main([*gate, "--memory-after", "agent/memory.json"]) == 2
    hint = capsys.readouterr().err.splitlines()[-1]

    advice = re.fullmatch(
        r"hint: Read the memory from the base branch, e\.g\. (.+), and pass --memory-before (\S+) .*", hint
    )
    assert advice is not None, hint
    subprocess.run(["bash", "-e", "-o", "pipefail", "-c", advice[1]], cwd=checkout, check=True, capture_output=True)
    assert json.loads((checkout / advice[2]).read_bytes()) == base
