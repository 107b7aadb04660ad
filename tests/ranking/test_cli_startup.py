"""What the command line imports before it runs a command: a short batch is mostly start-up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from curator_io.reports import SCHEMA_MODELS
from ranking.cli.commands import schema
from tests.conftest import REPO

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
    assert schema.NAMES == tuple(SCHEMA_MODELS)
