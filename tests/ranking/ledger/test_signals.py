"""Nothing waits for ever (issue 24): a ledger another process holds is waited for as long as
the busy timeout, then refused in one line. That SIGTERM and Ctrl-C end every command waiting
for one is tests/ranking/cli/test_cli_ledger_signals.py's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from curator_io.errors import ConfigError
from ranking.ledger.connection import Connection
from tests.ranking.ledger.crafted import good_ledger, held_ledger


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Path]:
    with held_ledger(good_ledger(tmp_path / "ledger.db")) as ledger:
        yield ledger


def test_a_ledger_held_past_the_busy_timeout_is_one_line_naming_it(held: Path) -> None:
    connection = Connection.open(held, mode="ro")
    connection.busy_timeout = 0.2
    try:
        with pytest.raises(ConfigError, match=r"another process held it for 0\.2 s") as caught:
            connection.run("SELECT count(*) FROM reports")
    finally:
        connection.close()
    assert (caught.value.code, caught.value.source) == ("usage.unreadable", str(held))
