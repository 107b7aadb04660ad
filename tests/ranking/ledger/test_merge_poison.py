"""``Ledger.merge`` never poisons the target (issue 24): what another ledger holds is
checked for type and range on the way in, and refused (naming the row) before anything
is written; the target stays readable and passes its audit. The command's exit codes and
lines are tests/ranking/cli/test_cli_ledger_merge_poison.py's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from curator_io import parse_json
from curator_io.errors import EvidenceRankError
from ranking.checking.acceptance import accept
from ranking.ledger import Ledger
from ranking.ledger.history import render_history
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
    with Ledger.open(target) as opened:
        opened.add_report(accept(BASIC.read_bytes()))
    return target


def _exported(ledger: Path) -> list[object]:
    with Ledger.open(ledger, read_only=True) as opened:
        return list(opened.export())


def _findings(ledger: Path) -> tuple[tuple[int, int, int], list[str]]:
    with Ledger.open(ledger, read_only=True) as opened:
        counts, findings = opened.audit()
    return counts, [str(f) for f in findings]


def _refused_merge(target: Path, other: Path) -> EvidenceRankError:
    with (
        pytest.raises(EvidenceRankError) as caught,
        Ledger.open(target) as into,
        Ledger.open(other, read_only=True) as source,
    ):
        into.merge(source)
    return caught.value


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
    tmp_path: Path, changes: dict[str, object], said: str
) -> None:
    other = good_ledger(tmp_path / "other.db")
    try:  # the outcome's own digest where it has one: ledger verify of the day passed such a row
        key = outcome_key(_outcome(**changes))
    except (TypeError, ValueError):  # bytes, infinities: no RFC 8785 digest
        key = "sha256:crafted"
    add_outcome_row(other, _outcome(**changes), key=key)
    target = _target(tmp_path)
    before, exported = snapshot(target), _exported(target)

    refused = _refused_merge(target, other)

    assert (refused.code, refused.source, str(refused)) == (
        "ledger.damaged",
        str(other),
        f"ledger.damaged: outcomes row {key}: {said}",
    )
    assert snapshot(target) == before
    assert _exported(target) == exported
    assert _findings(target)[1] == []
    with pytest.raises(EvidenceRankError, match=f"outcomes row {re.escape(key)}: {re.escape(said)}"):
        _findings(other)


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"proposal": REFUSED}, f"a committed outcome of {REFUSED}, which its report rejected"),
        ({"report": "sha256:" + "0" * 64}, "a decision the ledger does not hold"),
    ],
)
def test_an_outcome_no_selected_decision_backs_is_refused_by_merge_and_named_by_the_audit(
    tmp_path: Path, changes: dict[str, object], said: str
) -> None:
    other = good_ledger(tmp_path / "other.db")
    key = add_outcome_row(other, _outcome(**changes))  # its key matches: ledger verify of the day passed it
    target = _target(tmp_path)
    before = snapshot(target)

    refused = _refused_merge(target, other)

    assert (refused.code, refused.source) == ("ledger.tampered", str(other))
    assert str(refused).startswith(f"ledger.tampered: outcomes row {key}: ")
    assert str(refused).endswith(said)
    assert snapshot(target) == before
    assert _findings(target)[1] == []
    (finding,) = _findings(other)[1]
    assert finding.startswith(f"outcome {key}: ") and finding.endswith(said)


def test_a_numeric_column_declared_as_text_in_the_other_ledger_is_refused(tmp_path: Path) -> None:
    other = good_ledger(tmp_path / "other.db")
    edited(
        other,
        "UPDATE sqlite_schema SET sql = replace(sql, 'p_improve REAL', 'p_improve TEXT') WHERE name = 'outcomes'",
    )
    target = _target(tmp_path)
    before = snapshot(target)

    refused = _refused_merge(target, other)

    assert "ledger.damaged: not the schema of a ledger: the table 'outcomes'" in str(refused)
    assert snapshot(target) == before


def test_a_sound_outcome_merges_and_the_target_passes_its_audit(tmp_path: Path) -> None:
    other = good_ledger(tmp_path / "other.db")
    add_outcome_row(other, _outcome())
    target = _target(tmp_path)

    with Ledger.open(target) as into, Ledger.open(other, read_only=True) as source:
        into.merge(source)

    assert _findings(target) == ((2, 7, 1), [])
    with Ledger.open(target, read_only=True) as opened:
        found = opened.same_edit_as(SELECTED)
        outcomes = opened.outcomes_of(found)
        history = render_history([(d, outcomes[(d.report, d.proposal)]) for d in found], opened.signers_of())
    assert any("selected → committed (p_improve 0.97, Δ +0.04)" in line for line in history)
