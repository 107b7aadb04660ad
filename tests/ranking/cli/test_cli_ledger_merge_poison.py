"""``ledger merge`` never poisons the target (issue 24): what another ledger holds is
checked for type and range on the way in, and refused (exit 4, naming the row) before
anything is written; the target stays readable and verifiable. These are the command's
exit codes and lines; ``Ledger.merge``'s rules are tests/ranking/ledger/test_merge_poison.py's."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator_io import parse_json
from ranking.cli import main
from ranking.ledger.records import Outcome, outcome_key
from tests.ranking.ledger.crafted import BASIC, MIXED, add_outcome_row, edited, good_ledger, snapshot

REPORT = parse_json(MIXED.read_bytes())["digest"]
SELECTED = "p_hook-9"  # the selected entry of MIXED
REFUSED = "p_retry-build-37"  # a rejected one


def _outcome(**changes: object) -> Outcome:
    fields: dict[str, object] = {
        "report": REPORT,
        "proposal": SELECTED,
        "fingerprint": None,
        "diff": "diff-1",
        "version": 3,
        "category": "committed",
        "p_improve": 0.97,
        "observed_delta": 0.04,
    }
    return Outcome(**{**fields, **changes})  # type: ignore[arg-type]


def _target(tmp_path: Path) -> Path:
    target = tmp_path / "target.db"
    assert main(["ledger", "add", str(target), str(BASIC)]) == 0
    return target


def _exported(ledger: Path, capsys) -> str:
    capsys.readouterr()
    assert main(["ledger", "export", str(ledger)]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"p_improve": "high"}, "p_improve is the text 'high', not a finite number from 0 to 1, or null"),
        ({"p_improve": float("inf")}, "p_improve is inf, not a finite number from 0 to 1, or null"),
        ({"p_improve": 1.5}, "p_improve is 1.5, not a finite number from 0 to 1, or null"),
        ({"observed_delta": float("-inf")}, "observed_delta is -inf, not a finite number from -1 to 1, or null"),
        ({"diff": b"\x00diff"}, "diff is a BLOB of 5 bytes, not text"),
        ({"version": "three"}, "version is the text 'three', not an integer from 0 to 2^53 - 1, or null"),
        ({"version": 2**63 - 1}, "version is 9223372036854775807, not an integer from 0 to 2^53 - 1, or null"),
        ({"category": b"committed"}, "category is a BLOB of 9 bytes, not text"),
    ],
)
def test_an_outcome_of_the_wrong_type_or_range_is_refused_naming_its_row(
    tmp_path: Path, capsys, changes: dict[str, object], said: str
) -> None:
    other = good_ledger(tmp_path / "other.db")
    try:  # the outcome's own digest where it has one: ledger verify of the day passed such a row
        key = outcome_key(_outcome(**changes))
    except (TypeError, ValueError):  # bytes, infinities: no RFC 8785 digest
        key = "sha256:crafted"
    add_outcome_row(other, _outcome(**changes), key=key)
    target = _target(tmp_path)
    before, exported = snapshot(target), _exported(target, capsys)

    assert main(["ledger", "merge", str(target), str(other)]) == 4

    err = capsys.readouterr().err
    assert err == f"evidence-rank: {other}: ledger.damaged: outcomes row {key}: {said}\n"
    assert snapshot(target) == before
    assert _exported(target, capsys) == exported
    assert main(["ledger", "verify", str(target)]) == 0
    assert main(["ledger", "verify", str(other)]) == 4


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"proposal": REFUSED}, f"a committed outcome of {REFUSED}, which its report rejected"),
        ({"report": "sha256:" + "0" * 64}, "a decision the ledger does not hold"),
    ],
)
def test_an_outcome_no_selected_decision_backs_is_refused_by_merge_and_named_by_verify(
    tmp_path: Path, capsys, changes: dict[str, object], said: str
) -> None:
    other = good_ledger(tmp_path / "other.db")
    key = add_outcome_row(other, _outcome(**changes))  # its key matches: ledger verify of the day passed it
    target = _target(tmp_path)
    before = snapshot(target)

    assert main(["ledger", "merge", str(target), str(other)]) == 4

    err = capsys.readouterr().err
    assert err.startswith(f"evidence-rank: {other}: ledger.tampered: outcomes row {key}: ")
    assert err.rstrip().endswith(said)
    assert snapshot(target) == before
    assert main(["ledger", "verify", str(target)]) == 0
    capsys.readouterr()

    assert main(["ledger", "verify", str(other)]) == 4

    out = capsys.readouterr().out
    assert out.startswith(f"tampered: outcome {key}: ") and out.rstrip().endswith(said)


def test_a_numeric_column_declared_as_text_in_the_other_ledger_is_refused(tmp_path: Path, capsys) -> None:
    other = good_ledger(tmp_path / "other.db")
    edited(
        other,
        "UPDATE sqlite_schema SET sql = replace(sql, 'p_improve REAL', 'p_improve TEXT') WHERE name = 'outcomes'",
    )
    target = _target(tmp_path)
    before = snapshot(target)

    assert main(["ledger", "merge", str(target), str(other)]) == 4

    assert "ledger.damaged: not the schema of a ledger: the table 'outcomes'" in capsys.readouterr().err
    assert snapshot(target) == before


def test_a_sound_outcome_merges_and_the_target_verifies(tmp_path: Path, capsys) -> None:
    other = good_ledger(tmp_path / "other.db")
    add_outcome_row(other, _outcome())
    target = _target(tmp_path)

    assert main(["ledger", "merge", str(target), str(other)]) == 0
    capsys.readouterr()

    assert main(["ledger", "verify", str(target)]) == 0
    assert "7 decisions derived from them, 1 outcomes matching their keys" in capsys.readouterr().out
    assert main(["ledger", "history", str(target), "--proposal", SELECTED]) == 0
    assert "selected → committed (p_improve 0.97, Δ +0.04)" in capsys.readouterr().out


def test_merge_with_a_missing_other_creates_nothing(tmp_path: Path, capsys) -> None:
    target = tmp_path / "new.db"

    assert (
        main(["ledger", "merge", str(target), str(good_ledger(tmp_path / "a.db")), str(tmp_path / "missing.db")]) == 2
    )

    assert "usage.unreadable" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("new.db")) == []
