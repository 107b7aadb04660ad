"""What the command line imports before it runs a command: a short batch is mostly start-up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from curator_io.published import SCHEMA_IDS
from ranking.cli import main
from ranking.cli.commands import COMMANDS, schema
from tests.conftest import REPO

EXAMPLE = REPO / "fixtures" / "example.json"

_HEAVY = ("jsonschema", "pydantic")


def test_a_batch_runs_without_importing_jsonschema_or_pydantic(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    script = (
        "import json, sys\n"
        "from ranking.cli import main\n"
        f"code = main(['batch', {str(tmp_path / 'in')!r}, '--out-dir', {str(tmp_path / 'out')!r}])\n"
        f"print(json.dumps([code, [m for m in {_HEAVY!r} if m in sys.modules]]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)

    assert json.loads(done.stdout.splitlines()[-1]) == [0, []]


def test_the_schema_command_offers_exactly_the_published_schemas() -> None:
    assert schema.NAMES == tuple(SCHEMA_IDS)


def test_score_at_the_default_level_imports_no_logging_and_no_other_commands_library(tmp_path: Path) -> None:
    # Nothing is logged below -v, and score has no use for batch's process pools or gate's renderers.
    unwanted = ("structlog", "asyncio", "ssl", "jsonschema", "pydantic", "multiprocessing")
    unwanted += ("ranking.batch", "ranking.engines", "ranking.explain", "ranking.gate", "ranking.apply")
    # Nor the standard modules it needs only on rare paths (bench/RESULTS.md, "Start-up").
    unwanted += ("tempfile", "fractions", "decimal", "rfc8785")
    script = (
        "import json, sys\n"
        "from ranking.cli import main\n"
        f"code = main(['score', {str(EXAMPLE)!r}, '--out-dir', {str(tmp_path)!r}])\n"
        f"print(json.dumps([code, [m for m in {unwanted!r} if m in sys.modules]]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)

    assert json.loads(done.stdout.splitlines()[-1]) == [0, []]
    assert (tmp_path / "report.json").exists()


def test_every_command_is_listed_by_help_and_declares_its_arguments_when_chosen(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    listing = capsys.readouterr().out
    for name, line in COMMANDS.items():
        assert name in listing
        assert line.split()[0] in listing
        with pytest.raises(SystemExit) as done:
            main([name, "--help"])
        assert done.value.code == 0
        assert f"usage: evidence-rank {name}" in capsys.readouterr().out
