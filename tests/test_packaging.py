"""What a non-editable install (pip install ., pre-commit) ships."""

from __future__ import annotations

import tomllib

from setuptools import find_packages

from tests.conftest import REPO


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
    assert config["tool"]["setuptools"]["package-data"]["curator_io"] == ["schemas/*.json"]
