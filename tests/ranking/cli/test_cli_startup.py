"""What the command line imports before it runs a command: a short batch is mostly start-up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator_io.published import SCHEMA_IDS
from ranking.cli import main
from ranking.cli.commands import COMMANDS, schema
from tests.conftest import REPO
from tests.startup import imported_by

EXAMPLE = REPO / "fixtures" / "example.json"

_HEAVY = ("jsonschema", "pydantic")


def test_a_batch_runs_without_importing_jsonschema_or_pydantic(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()

    assert imported_by(["batch", str(tmp_path / "in"), "--out-dir", str(tmp_path / "out")], _HEAVY) == (0, [])


def test_batch_ledger_records_without_importing_the_verifier(tmp_path: Path) -> None:
    # It records only reports its own pipeline produced; ledger add and merge verify theirs.
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "example.json").write_bytes(EXAMPLE.read_bytes())
    argv = ["batch", str(tmp_path / "in"), "--out-dir", str(tmp_path / "out"), "--ledger", str(tmp_path / "l.db")]

    assert imported_by(argv, ("ranking.checking.verification", *_HEAVY)) == (0, [])
    assert (tmp_path / "l.db").exists()


def test_the_schema_command_offers_exactly_the_published_schemas() -> None:
    assert schema.NAMES == tuple(SCHEMA_IDS)


@pytest.mark.parametrize("name", schema.NAMES)
def test_the_schema_command_prints_the_shipped_file_without_importing_pydantic(name: str) -> None:
    # The files are generated (python -m curator_io.schema_generator); printing one needs no model.
    assert imported_by(["schema", name], ("pydantic", "jsonschema", "curator_io.schema_generator")) == (0, [])


def test_score_at_the_default_level_imports_no_logging_and_no_other_commands_library(tmp_path: Path) -> None:
    # Nothing is logged below -v, and score has no use for batch's process pools or gate's renderers.
    unwanted = ("structlog", "asyncio", "ssl", "jsonschema", "pydantic", "multiprocessing")
    unwanted += (
        "ranking.running.batch",
        "ranking.running.engines",
        "ranking.checking.explain",
        "ranking.checking.gate",
        "ranking.views.gate",
        "ranking.checking.apply",
    )
    # Nor the standard modules it needs only on rare paths (bench/RESULTS.md, "Start-up").
    unwanted += ("tempfile", "fractions", "decimal", "rfc8785")
    assert imported_by(["score", str(EXAMPLE), "--out-dir", str(tmp_path)], unwanted) == (0, [])
    assert (tmp_path / "report.json").exists()


def test_every_command_is_listed_by_help_and_declares_its_arguments_when_chosen(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    listing = capsys.readouterr().out
    for name, command in COMMANDS.items():
        assert name in listing
        assert command.help.split()[0] in listing
        with pytest.raises(SystemExit) as done:
            main([name, "--help"])
        assert done.value.code == 0
        assert f"usage: evidence-rank {name}" in capsys.readouterr().out


def test_score_imports_cryptography_only_with_trust_and_then_not_its_serialization(tmp_path: Path) -> None:
    # Verifying needs the key types alone (ranking.signing.keys); the serialization module loads SSH and PKCS#12 too.
    from tests.signing import envelope, signing_key, trust_file

    key = signing_key("curator")
    (tmp_path / "trust").write_bytes(trust_file((key, "Curator CI")))
    (tmp_path / "sig").write_bytes(envelope(key, "bundle", json.loads(EXAMPLE.read_bytes())["frozen"]["digest"]))
    watched = ("cryptography", "cryptography.hazmat.primitives.serialization", "ranking.signing.trust")
    score = ["score", str(EXAMPLE), "--out-dir", str(tmp_path / "out")]

    assert imported_by(score, watched) == (0, [])
    trusted = [*score, "--trust", str(tmp_path / "trust"), "--signature", str(tmp_path / "sig")]
    assert imported_by(trusted, watched) == (0, ["cryptography", "ranking.signing.trust"])


def test_score_quiet_and_batch_neither_import_rapidfuzz_nor_look_for_look_alikes(tmp_path: Path) -> None:
    # Look-alikes are advice for a person: computed only where shown (the table), never for -q or batch.
    unwanted = ("rapidfuzz", "ranking.advice.lookalikes")
    assert imported_by(["score", str(EXAMPLE), "--out-dir", str(tmp_path / "q"), "-q"], unwanted) == (0, [])
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "example.json").write_bytes(EXAMPLE.read_bytes())
    assert imported_by(["batch", str(tmp_path / "in"), "--out-dir", str(tmp_path / "b")], unwanted) == (0, [])
