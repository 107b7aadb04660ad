"""What a command imports: ``main(argv)`` run in a fresh interpreter, for the tests that hold
start-up to what a command needs (tests/ranking/cli/test_cli_startup.py, the look-alikes')."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO

__all__ = ["imported_by"]


def imported_by(argv: list[str], modules: tuple[str, ...]) -> tuple[int, list[str]]:
    """Run ``main(argv)`` in a fresh interpreter, its output swallowed: its exit code, and which of
    ``modules`` it imported."""
    script = (
        "import contextlib, io, json, sys\n"
        "from ranking.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    code = main({argv!r})\n"
        f"print(json.dumps([code, [m for m in {modules!r} if m in sys.modules]]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    code, imported = json.loads(done.stdout.splitlines()[-1])
    return code, imported
