"""The short, seeded fuzz run of ``make test`` (issue 13): the same mutants on every run.

Each target gets mutants of the seed corpus (fixtures and parity cases), one to
three byte- or structure-level mutations each, re-sealed, from a fixed seed.
The long, coverage-guided campaign is ``make fuzz`` (docs/fuzzing.md).
"""

from __future__ import annotations

import pytest

from curator_io import InputError
from fuzz.mutate import SEP, decode, encode
from fuzz.prop import CODES, Violation, check_error
from fuzz.registry import TARGETS, generated_cases

#: Mutants per target: a few seconds for the whole run.
COUNT = {"report": 20, "cli-batch": 20, "cli-ledger": 30}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_no_seeded_mutant_breaks_the_property(name: str) -> None:
    for case in generated_cases(name, COUNT.get(name, 40)):
        TARGETS[name].run(case)


def test_the_seeded_mutants_are_the_same_on_every_run() -> None:
    assert list(generated_cases("bundle", 5)) == list(generated_cases("bundle", 5))


def test_a_case_survives_its_encoding_for_a_target() -> None:
    case = {"bundle": b"{}", "report": b"[]"}
    data = encode(case, TARGETS["cli-verify"].slots)
    assert data.count(SEP) == 2
    assert decode(data, TARGETS["cli-verify"].slots) == case


def test_an_error_whose_pointer_names_nothing_breaks_the_property() -> None:
    error = InputError("input.schema", "expected an object", pointer="/memory/instructions/3")
    with pytest.raises(Violation, match="names no place"):
        check_error(error, b'{"memory": {"instructions": []}}')
    check_error(error, b'{"memory": {"instructions": [0, 1, 2, 3]}}')


def test_a_missing_member_of_an_object_that_resolves_is_a_place() -> None:
    check_error(InputError("input.schema", "missing", pointer="/memory/version"), b'{"memory": {}}')


def test_a_code_outside_the_documented_set_breaks_the_property() -> None:
    assert "input.schema" in CODES and "invariant.conflict_free" in CODES
    with pytest.raises(Violation, match="unknown code"):
        check_error(InputError("input.bogus", "x", pointer=""), b"{}")
