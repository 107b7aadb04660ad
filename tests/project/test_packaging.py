"""What a non-editable install (pip install ., pre-commit) ships."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from setuptools import find_packages

from tests.conftest import PARITY, REPO
from tests.installed import bare_environment, every_command_runs_outside_the_checkout, outside_env, source_copy

LAYERS = ("curator_io", "validator", "ranking")


def test_every_package_of_the_three_layers_is_shipped() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    shipped = set(find_packages(where=str(REPO), include=include))
    on_disk = {
        str(init.parent.relative_to(REPO)).replace("/", ".")
        for layer in ("curator_io", "validator", "ranking")
        for init in (REPO / layer).rglob("__init__.py")
    }
    assert on_disk <= shipped
    assert {"ranking.cli", "ranking.cli.commands", "ranking.integrations"} <= shipped


def test_the_console_script_and_schemas_are_declared() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert config["project"]["scripts"]["evidence-rank"] == "ranking.cli:main"
    assert "schemas/*.json" in config["tool"]["setuptools"]["package-data"]["curator_io"]


def test_the_installed_wheel_carries_a_py_typed_marker_in_each_package(tmp_path: Path) -> None:
    # PEP 561: without the marker an importer's type checker treats the packages as untyped.
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "evidence_rank_pytest.py"):
        shutil.copy(REPO / name, source / name)
    for layer in LAYERS:  # a copy, so the build leaves nothing in the checkout
        shutil.copytree(REPO / layer, source / layer, ignore=shutil.ignore_patterns("__pycache__"))
    wheels, site = tmp_path / "wheels", tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", wheels, source], check=True)
    (wheel,) = wheels.glob("evidence_rank-*.whl")
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", site, wheel], check=True)

    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    assert {f"{layer}/py.typed" for layer in LAYERS} <= shipped
    assert "evidence_rank_pytest.py" in shipped  # the pytest plugin's entry point
    assert all((site / layer / "py.typed").is_file() for layer in LAYERS)
    assert (site / "curator_io" / "schemas" / "evidence-ranking-v1.json").is_file()


#: sha256 of the Apache License 2.0 as the ASF publishes it (https://www.apache.org/licenses/LICENSE-2.0.txt).
APACHE_2_0_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"


def test_the_licence_is_the_apache_2_0_text_as_published() -> None:
    assert hashlib.sha256((REPO / "LICENSE").read_bytes()).hexdigest() == APACHE_2_0_SHA256


def test_the_metadata_names_the_licence_readme_keywords_and_classifiers() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    assert project["readme"] == "README.md"
    assert project["keywords"]
    # PEP 639: the expression replaces the licence classifier; setuptools refuses both.
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    versions = [
        c.rsplit(" ", 1)[-1] for c in project["classifiers"] if c.startswith("Programming Language :: Python :: 3.")
    ]
    assert versions == ["3.11"] and project["requires-python"] == ">=3.11"


@pytest.mark.slow
def test_the_sdist_carries_the_licence_the_spec_the_tests_and_the_corpus(tmp_path: Path) -> None:
    source = source_copy(tmp_path / "source")
    dist = tmp_path / "dist"
    build = [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", dist, source]
    subprocess.run(build, check=True, capture_output=True)
    (sdist,) = dist.glob("evidence_rank-*.tar.gz")

    with tarfile.open(sdist) as tar:
        root = tar.getnames()[0].split("/")[0]
        files = {m.name.removeprefix(f"{root}/"): m for m in tar.getmembers() if m.isfile()}

        def read(name: str) -> bytes:
            member = tar.extractfile(files[name])
            assert member is not None
            return member.read()

        for name in ("LICENSE", "docs/SPEC.md", "README.md", "tests/parity/test_parity.py", "tests/parity/README.md"):
            assert read(name) == (REPO / name).read_bytes(), name
        corpus = {f"tests/parity/cases/{p.relative_to(PARITY).as_posix()}" for p in PARITY.rglob("*") if p.is_file()}
        assert corpus <= files.keys()
        assert all(read(name) == (REPO / name).read_bytes() for name in sorted(corpus))
        pkg_info = read("PKG-INFO").decode()
    assert "License-Expression: Apache-2.0" in pkg_info.splitlines()
    assert "License-File: LICENSE" in pkg_info.splitlines()
    assert {"fixtures/example.json", "tests/conftest.py", "Makefile", "action.yml"} <= files.keys()
    assert not [name for name in files if "__pycache__" in name or name.endswith(".pyc")]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_the_built_wheel_and_sdist_run_every_command_from_outside_the_checkout(tmp_path: Path, kind: str) -> None:
    source = source_copy(tmp_path / "source")
    dist = tmp_path / "dist"
    build = [sys.executable, "-m", "build", f"--{kind}", "--no-isolation", "--outdir", dist, source]
    subprocess.run(build, check=True, capture_output=True)
    (built,) = dist.glob("evidence_rank-*")
    shutil.rmtree(source)  # nothing of the checkout is left to import from by mistake
    every_command_runs_outside_the_checkout(built, tmp_path / "elsewhere")


@pytest.mark.slow
def test_an_editable_install_prints_no_warning_about_the_layout(tmp_path: Path) -> None:
    # `make install`'s pip install -e: setuptools' boxed "Editable installation ... same name as
    # your package" warning alarms a newcomer (issue 35); the declared package-dir avoids it.
    source = source_copy(tmp_path / "source")
    python = bare_environment(tmp_path / "venv") / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check", "--quiet"]
    install = [*pip, "install", "--no-deps", "--no-index", "--no-build-isolation", "-e", str(source)]
    done = subprocess.run(install, capture_output=True, text=True, env=outside_env(), check=False)
    assert done.returncode == 0, done.stderr
    assert "same name" not in done.stdout + done.stderr and "!!" not in done.stderr, done.stderr
    where = [str(python), "-c", "import ranking, evidence_rank_pytest as p; print(ranking.__file__, p.__file__)"]
    files = subprocess.run(where, capture_output=True, text=True, env=outside_env(), cwd=tmp_path, check=True)
    assert all(Path(f).is_relative_to(source) for f in files.stdout.split()), files.stdout
