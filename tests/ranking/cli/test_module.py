"""At home in Python: ``python -m ranking`` is the command line, and ``ranking.__version__`` the version."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import ranking
from ranking.cli import version_line
from tests.conftest import FIXTURES


def _python(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, check=False)


def test_python_dash_m_ranking_runs_the_command_line(tmp_path: Path) -> None:
    example = str(FIXTURES / "example.json")
    done = _python("-m", "ranking", "score", example, "--out-dir", "out", "--summary", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("outcome: selected")
    assert (tmp_path / "out" / "report.json").is_file()


def test_python_dash_m_ranking_exits_with_the_command_lines_codes(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{")
    done = _python("-m", "ranking", "score", "bad.json", "--out-dir", "out", cwd=tmp_path)

    assert done.returncode == 3
    assert done.stderr.startswith("evidence-rank: bad.json: input.malformed_json")


def test_the_version_is_the_installed_distributions() -> None:
    assert ranking.__version__ == version("evidence-rank")
    assert version_line().startswith(f"evidence-rank {ranking.__version__} (")
    assert "__version__" in ranking.__all__


def test_importing_ranking_reads_no_metadata_until_the_version_is_asked_for(tmp_path: Path) -> None:
    script = (
        "import sys, ranking\n"
        "before = 'importlib.metadata' in sys.modules\n"
        "v = ranking.__version__\n"
        "print(before, 'importlib.metadata' in sys.modules, v)\n"
    )
    done = _python("-c", script, cwd=tmp_path)

    assert done.stdout.split() == ["False", "True", version("evidence-rank")]
