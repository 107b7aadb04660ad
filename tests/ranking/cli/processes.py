"""Running a command as another user, or on a full disk, from a test that runs as root
(issue 24). Root reads and writes through any mode bits, so a read-only folder is only
read-only to a child that has given up root."""

from __future__ import annotations

import importlib
import os
import pkgutil
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ranking.cli import main
from tests.conftest import REPO

NOBODY = 65534


@contextmanager
def shared_folder() -> Iterator[Path]:
    """A folder another user can reach (pytest's tmp_path sits under a root-only folder)."""
    folder = Path(tempfile.mkdtemp(prefix="ledger-hostile-", dir="/tmp"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for p in sorted(folder.rglob("*"), reverse=True):
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o755)
                p.rmdir()
            else:
                p.unlink()
        folder.rmdir()


def as_nobody(*argv: str) -> tuple[int, str, str]:
    """``main(argv)`` in a forked child that has become ``nobody``: (exit code, stdout, stderr).

    Forked, not executed: the interpreter lives in a folder only root can reach, so
    everything the command imports lazily is imported here first.
    """
    _import_everything()

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 99
            try:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                sys.stdout = open(out.fileno(), "w", closefd=False)  # noqa: SIM115
                sys.stderr = open(err.fileno(), "w", closefd=False)  # noqa: SIM115
                code = main(list(argv))
            except BaseException:  # noqa: BLE001 (the child reports whatever escapes, then exits)
                traceback.print_exc(file=sys.stderr)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        out.seek(0), err.seek(0)
        return os.waitstatus_to_exitcode(status), out.read().decode(), err.read().decode()


def _import_everything() -> None:
    """Every module of the packages a command may import lazily (the optional integrations aside)."""
    import ctypes  # noqa: F401  (batch's engines; the rest of the standard library they need comes with them)

    import curator_io
    import ranking
    import validator

    for package in (curator_io, ranking, validator):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if ".integrations" not in module.name and not module.name.endswith("__main__"):
                importlib.import_module(module.name)
    # And the HTML views' templates, package data read from the checkout, which the other user
    # may not reach (a clone inside a private, 0700, folder): loaded once, they are not read again.
    from ranking.views.html import page

    for name in page._environment().list_templates():
        page._environment().get_template(name)
    page.content_security_policy()


def read_only(path: Path) -> None:
    path.chmod(stat.S_IMODE(path.stat().st_mode) & ~0o222)


def on_a_full_disk(*argv: str, limit: int = 0) -> subprocess.CompletedProcess[str]:
    """The command in a process that may not write more than ``limit`` bytes to any file
    (``RLIMIT_FSIZE``; SIGXFSZ ignored, so a write fails with EFBIG as on a full disk)."""

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "ranking.cli", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        preexec_fn=limited,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
