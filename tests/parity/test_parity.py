"""Parity is the first test: every case of tests/parity/cases, byte for byte.

Each case folder holds a bundle, an optional config and either the two
expected reports (and the memory ``apply`` permits) as canonical RFC 8785
bytes, or the code of the input error the bundle is refused with.

The corpus and docs/SPEC.md are copies of the reference's (tests/parity/README.md).
Where the reference's own copy sits beside the checkout (``../shared``), one test
per copy checks the two are identical byte for byte; in a clone with nothing
beside it, the same test checks what the copy can show on its own (every case
whole, every expected report sealed; every section of the SPEC there), so the
suite has no skips and the test never passes vacuously.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator_io import InputError, canon, is_sealed, load_bundle, parse_config, parse_json
from ranking.checking.acceptance import accept
from ranking.checking.apply import apply_selection
from ranking.pipeline import rank
from tests.conftest import PARITY, REPO, SHARED, parity_cases

CASES = parity_cases()
SPEC = REPO / "docs" / "SPEC.md"
#: The sections SPEC.md numbers, §0 to §8; tests/docs/test_spec_references.py checks every "SPEC §N" against them.
SPEC_SECTIONS = range(9)


def _tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root``, by its path inside it, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _check_cases_stand_alone(cases: Path) -> None:
    for case in sorted(p for p in cases.iterdir() if p.is_dir()):
        names = {p.name for p in case.iterdir()} - {"config.json"}
        if "expected.error.json" in names:
            assert names == {"bundle.json", "expected.error.json"}, case.name
            assert json.loads((case / "expected.error.json").read_bytes())["code"].startswith("input."), case.name
            continue
        assert names == {"bundle.json", "expected.validation.json", "expected.report.json", "expected.apply.json"}, case
        for name in ("expected.validation.json", "expected.report.json"):
            raw = (case / name).read_bytes()
            report = parse_json(raw)
            assert canon(report) == raw and is_sealed(report), f"{case.name}/{name}"


def _check_spec_stands_alone(spec: Path) -> None:
    headings = [line for line in spec.read_text(encoding="utf-8").splitlines() if line.startswith("## ")]
    assert [h.split(".")[0] for h in headings] == [f"## {n}" for n in SPEC_SECTIONS]


@pytest.mark.parametrize(
    ("copy", "reference", "check_alone"),
    [
        (PARITY, SHARED / "parity" / "cases", _check_cases_stand_alone),
        (SPEC, SHARED / "SPEC.md", _check_spec_stands_alone),
    ],
    ids=["parity-cases", "SPEC.md"],
)
def test_the_in_repo_copy_is_the_references_byte_for_byte(copy: Path, reference: Path, check_alone) -> None:
    if reference.exists():  # the project's working tree: the reference's copy is beside it
        if copy.is_dir():
            assert _tree(copy) == _tree(reference)
        else:
            assert copy.read_bytes() == reference.read_bytes()
    else:  # a clone with nothing beside it: the copy must hold together on its own
        check_alone(copy)


def test_the_parity_corpus_is_all_there() -> None:
    # The corpus README: 93 cases at the time of writing; a refresh may add more, never fewer.
    assert len(CASES) >= 93


def _config(case: Path):
    path = case / "config.json"
    return parse_config(parse_json(path.read_bytes()) if path.exists() else {})


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_parity_case_matches_the_reference_byte_for_byte(case: Path) -> None:
    raw = (case / "bundle.json").read_bytes()
    config = _config(case)
    error_file = case / "expected.error.json"
    if error_file.exists():
        expected_code = json.loads(error_file.read_bytes())["code"]
        with pytest.raises(InputError) as caught:
            load_bundle(raw)
        assert caught.value.code == expected_code
        assert caught.value.pointer is not None and (caught.value.pointer == "" or caught.value.pointer.startswith("/"))
        return

    bundle = load_bundle(raw)
    result = rank(bundle, config)
    # What is written (made with the seal) and what canon() makes of the report both match.
    assert (
        result.validation.canonical
        == canon(result.validation.report)
        == (case / "expected.validation.json").read_bytes()
    )
    assert result.canonical == canon(result.report) == (case / "expected.report.json").read_bytes()
    # The typed facts a caller reads without the dict are the reference report's.
    expected = parse_json(result.canonical)
    assert (list(result.selected), result.outcome) == (expected["selected"], expected["outcome"])
    assert canon(apply_selection(accept(result.report, bundle=bundle))) == (case / "expected.apply.json").read_bytes()


@pytest.mark.parametrize(
    ("copy", "check_alone"),
    [(PARITY, _check_cases_stand_alone), (SPEC, _check_spec_stands_alone)],
    ids=["parity-cases", "SPEC.md"],
)
def test_the_in_repo_copy_holds_together_on_its_own(copy: Path, check_alone) -> None:
    # What the test above checks in a clone with nothing beside it, checked here too, so it runs everywhere.
    check_alone(copy)
