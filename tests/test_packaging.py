"""What a non-editable install (pip install ., pre-commit) ships."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from setuptools import find_packages

from tests.conftest import REPO

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
    for name in ("pyproject.toml", "README.md"):
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
    assert all((site / layer / "py.typed").is_file() for layer in LAYERS)
    assert (site / "curator_io" / "schemas" / "evidence-ranking-v1.json").is_file()
