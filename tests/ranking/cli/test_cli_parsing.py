"""How the command line reads what is typed: whole option names only, a mistyped command
answered with the nearest one, and every argument and global option in ``--help``."""

from __future__ import annotations

import argparse
import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ranking.cli import _UsageError, build_parser
from ranking.cli.commands import COMMANDS
from tests.conftest import FIXTURES, REPO, run_main

EXAMPLE = FIXTURES / "example.json"


def _every_parser() -> Iterator[argparse.ArgumentParser]:
    """The top-level parser and every command's and subcommand's, each command declared as
    choosing it declares it."""
    top = build_parser()
    for name in COMMANDS:
        with contextlib.suppress(_UsageError):  # the missing arguments of a command chosen alone
            top.parse_known_args([name])
    pending = [top]
    while pending:
        parser = pending.pop()
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                pending.extend(action.choices.values())


def test_no_parser_accepts_an_abbreviated_option() -> None:
    parsers = list(_every_parser())
    # the ledger's eight subcommands; memory's two, transcript's two, hook's three
    assert len(parsers) == 1 + len(COMMANDS) + 8 + 2 + 2 + 3
    assert [p.prog for p in parsers if p.allow_abbrev] == []


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["gate", "--memory", "m.json", "--bundle", "b.json", "--report", "r.json"], "--memory-after"),
        (["ledger", "notes", "x.db", "--lim", "3"], "unrecognized arguments: --lim 3"),
        (["--log-f", "json", "score", "x.json"], "unknown command 'json'"),  # --log-f is not --log-format
    ],
)
def test_an_abbreviated_option_is_a_usage_error(argv: list[str], says: str, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        run_main(capsys, *argv)
    assert caught.value.code == 2
    assert says in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["scroe"], "evidence-rank: error: unknown command 'scroe'; did you mean 'score'? (choose from score, "),
        (
            ["ledger", "histroy", "x.db"],
            "evidence-rank ledger: error: unknown command 'histroy'; did you mean 'history'?",
        ),
        (["qqq"], "evidence-rank: error: unknown command 'qqq' (choose from score, validate, "),
    ],
)
def test_a_mistyped_command_gets_the_nearest_one_suggested(argv: list[str], says: str, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        run_main(capsys, *argv)
    assert caught.value.code == 2
    assert says in capsys.readouterr().err


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as caught:
        run_main(capsys, *argv, "--help")
    assert caught.value.code == 0
    return capsys.readouterr().out


def test_every_argument_of_every_command_has_help_text(capsys) -> None:
    bare = []
    for parser in _every_parser():
        for action in parser._actions:
            if action.help is None and not isinstance(action, argparse._SubParsersAction):
                bare.append(f"{parser.prog} {action.metavar or '/'.join(action.option_strings)}")
    assert "evidence-rank validate BUNDLE" not in bare and "evidence-rank validate --config" not in bare
    shown = _help(capsys, "validate")
    assert re.search(r"BUNDLE +a curator-bundle-v1 JSON file", shown)
    assert re.search(r"--config CONFIG.json +ranking config", shown)


@pytest.mark.parametrize("sub", ["add", "history", "notes", "export", "verify", "merge", "render"])
def test_the_ledgers_subcommands_show_and_take_the_global_options(sub: str, capsys) -> None:
    shown = _help(capsys, "ledger", sub)
    assert "--log-format {console,json}" in shown and "-v, --verbose" in shown


def test_a_global_option_after_a_ledger_subcommand_is_taken(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert run_main(capsys, "score", EXAMPLE, "--out-dir", out, "-q")[0] == 0
    added = run_main(capsys, "ledger", "add", tmp_path / "l.db", out / "report.json", "-vv", "--log-format", "json")
    assert added[0] == 0
    with pytest.raises(SystemExit) as caught:
        run_main(capsys, "ledger", "notes", tmp_path / "l.db", "--log-format", "xml")
    assert caught.value.code == 2
    assert "evidence-rank ledger notes: error: argument --log-format: invalid choice: 'xml'" in capsys.readouterr().err


README = (REPO / "README.md").read_text()


def _long_options(parser: argparse.ArgumentParser) -> set[str]:
    given = {o for a in parser._actions for o in a.option_strings if o.startswith("--")}
    return given - {"--help", "--log-format", "--verbose", "--version"}


@pytest.mark.parametrize("command", ["batch", "validate"])
def test_the_readmes_command_row_names_every_option_the_command_takes(command: str) -> None:
    (parser,) = [p for p in _every_parser() if p.prog == f"evidence-rank {command}"]
    (row,) = [line for line in README.splitlines() if line.startswith(f"| `evidence-rank {command} ")]
    assert [o for o in sorted(_long_options(parser)) if f"{o} " not in row and f"{o}]" not in row] == []


def test_an_error_prints_its_line_and_a_hint_line_as_the_readme_says(tmp_path: Path, capsys) -> None:
    doc = json.loads(EXAMPLE.read_bytes())
    doc["run"]["curator"] = "curator@9"  # edited, not resealed
    (tmp_path / "b.json").write_text(json.dumps(doc))

    code, _, err = run_main(capsys, "score", tmp_path / "b.json", "--out-dir", tmp_path / "out")

    assert code == 3
    first, hint = err.splitlines()
    assert first.startswith(f"evidence-rank: {tmp_path / 'b.json'}: input.frozen_digest_mismatch at '/frozen/digest': ")
    assert hint == "hint: If you edited the bundle by hand, reseal it: evidence-rank seal BUNDLE"
    assert (
        "a second line, `hint: ...` (`hint: If you edited the bundle by hand,\nreseal it: evidence-rank seal BUNDLE`)"
        in README
    )
