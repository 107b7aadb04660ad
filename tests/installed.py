"""The package as a user gets it: built from a copy of the checkout, installed
into a fresh virtual environment, and run from a folder outside any checkout.

Offline: the environment gets the project's dependencies from the test run's
own site-packages, through a ``.pth`` line. A path in a ``.pth`` file goes on
``sys.path`` without its own ``.pth`` files being run, so the editable install
of the checkout there is not seen; a test checks that every module comes from
the fresh environment.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.conftest import FIXTURES, REPO

__all__ = [
    "source_copy",
    "bare_environment",
    "fresh_environment",
    "outside_env",
    "every_command_runs_outside_the_checkout",
]

#: What a checkout holds that its files do not: tools' state, build output, the environment.
_NOT_SOURCE = {".git", ".venv", "out", "build", "dist", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}


def source_copy(dest: Path) -> Path:
    """A copy of the checkout's files, so a build leaves nothing in it."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        here = {n for n in names if n == "__pycache__" or n.endswith(".egg-info")}
        return here | (_NOT_SOURCE & set(names) if Path(folder) == REPO else here)

    shutil.copytree(REPO, dest, ignore=ignore)
    return dest


def bare_environment(folder: Path) -> Path:
    """A new virtual environment at ``folder`` that sees the test run's packages (pip, setuptools,
    the project's dependencies) but not evidence-rank. Returns its ``bin`` folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", folder], check=True)
    python = folder / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(site) / "_evidence_rank_test_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    return folder / "bin"


def fresh_environment(folder: Path, artifact: Path | str) -> Path:
    """A new virtual environment at ``folder`` with ``artifact`` (a wheel, an sdist or a pip URL)
    installed; the dependencies are the test run's. Returns its ``bin`` folder."""
    python = bare_environment(folder) / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check", "--quiet"]
    install = [*pip, "install", "--no-deps", "--no-index", "--no-build-isolation", str(artifact)]
    subprocess.run(install, check=True, capture_output=True, env=outside_env())
    return folder / "bin"


def outside_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}}
    return {**env, "PYTHONDONTWRITEBYTECODE": "1"}


def every_command_runs_outside_the_checkout(artifact: Path | str, workdir: Path) -> None:
    """Install ``artifact`` into a fresh environment and run every command, from ``workdir``."""
    bin_ = fresh_environment(workdir / "venv", artifact)
    run_in = workdir / "run"
    run_in.mkdir()
    shutil.copy(FIXTURES / "example.json", run_in / "example.json")

    def run(*args: str) -> str:
        done = subprocess.run(list(args), cwd=run_in, capture_output=True, text=True, env=outside_env())
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    where = run(
        str(bin_ / "python"),
        "-c",
        "import json, curator_io, validator, ranking; "
        "print(json.dumps([m.__file__ for m in (curator_io, validator, ranking)] + [ranking.__version__]))",
    )
    *files, version = json.loads(where)
    assert all(Path(f).is_relative_to(workdir / "venv") for f in files), files
    assert not any(Path(f).is_relative_to(REPO) for f in files)

    tool = str(bin_ / "evidence-rank")
    assert run(tool, "--version").startswith(f"evidence-rank {version} ")
    assert run(str(bin_ / "python"), "-m", "ranking", "--version") == run(tool, "--version")
    run(tool, "score", "example.json", "--out-dir", "out")
    run(tool, "validate", "example.json", "--out", "validation.json")
    run(tool, "verify", "out/report.json", "--bundle", "example.json")
    run(tool, "apply", "example.json", "out/report.json", "--out", "memory.json")
    (run_in / "base.json").write_text(json.dumps(json.loads((run_in / "example.json").read_bytes())["memory"]))
    gate = ["--report", "out/report.json", "--memory-after", "memory.json", "--memory-before", "base.json"]
    run(tool, "gate", "--bundle", "example.json", *gate)
    run(tool, "explain", "out/report.json", "p-make-test", "--bundle", "example.json")
    run(tool, "render", "out/report.json", "--bundle", "example.json", "--out", "run.html")
    run(tool, "seal", "example.json", "--check")
    assert json.loads(run(tool, "schema", "bundle"))["$schema"].startswith("https://json-schema.org/")
    run(tool, "batch", "example.json", "--out-dir", "batch", "--quiet")
    run(tool, "render", "--batch", "batch", "--out", "batch.html")
    run(tool, "ledger", "add", "ledger.db", "out/report.json")
    run(tool, "ledger", "add", "other.db", "out/report.json")
    assert "p-make-test" in run(tool, "ledger", "history", "ledger.db", "--proposal", "p-make-test")
    run(tool, "ledger", "notes", "ledger.db")
    assert len(run(tool, "ledger", "export", "ledger.db").splitlines()) == 3
    run(tool, "ledger", "merge", "ledger.db", "other.db")
    run(tool, "ledger", "verify", "ledger.db")
    run(tool, "ledger", "render", "ledger.db", "--out", "ledger.html")
    assert {"run.html", "batch.html", "ledger.html", "memory.json", "validation.json"} <= {
        p.name for p in run_in.iterdir()
    }

    # The pytest plugin is loaded in every session: a project with a `ranking` package of its own
    # still collects, as its root conftest.py imports from it (issue 35).
    own = run_in / "own"
    (own / "ranking").mkdir(parents=True)
    (own / "ranking" / "__init__.py").write_text("def by_votes(xs):\n    return sorted(xs)\n")
    (own / "conftest.py").write_text("from ranking import by_votes\n")
    (own / "test_own.py").write_text(
        "def test_it(request):\n    assert request.config.pluginmanager.has_plugin('evidence_rank')\n"
    )
    assert "1 passed" in run(str(bin_ / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "own")

    # docs/agentdescent.md's example runs from the installed package alone, its example bundle included.
    from tests.ranking.integrations.test_agentdescent_doc import doc_example

    program, printed = doc_example()
    (run_in / "agentdescent_example.py").write_text(program)
    assert run(str(bin_ / "python"), "agentdescent_example.py") == printed
