"""The error hierarchy and its codes are pinned: a rename is a deliberate act."""

from __future__ import annotations

import pickle

import pytest

from curator_io.errors import (
    ConfigError,
    EvidenceRankError,
    InputError,
    InvariantError,
    PolicyError,
    SignatureError,
    TamperError,
    escape_pointer,
    pointer_of,
)


def test_the_exception_hierarchy_is_one_base_with_shallow_subclasses() -> None:
    for cls in (InputError, ConfigError, TamperError, InvariantError, PolicyError, SignatureError):
        assert cls.__mro__[1] is EvidenceRankError
    assert issubclass(EvidenceRankError, Exception)


@pytest.mark.parametrize(
    ("cls", "exit_code"),
    [(InputError, 3), (ConfigError, 2), (TamperError, 4), (InvariantError, 4), (PolicyError, 1), (SignatureError, 4)],
)
def test_each_error_class_maps_to_its_documented_exit_code(cls: type[EvidenceRankError], exit_code: int) -> None:
    assert cls.exit_code == exit_code


def test_an_error_builds_its_message_from_code_pointer_and_detail() -> None:
    err = InputError("input.schema", "expected an ID", pointer="/traces/0/id")
    assert err.message == "input.schema at '/traces/0/id': expected an ID"
    assert str(err) == err.message
    assert err.to_json() == {"code": "input.schema", "pointer": "/traces/0/id", "message": err.message}


@pytest.mark.parametrize("cls", [InputError, ConfigError, TamperError, InvariantError, PolicyError, SignatureError])
def test_an_error_sent_back_from_a_worker_process_keeps_its_class_code_pointer_and_message(
    cls: type[EvidenceRankError],
) -> None:
    err = cls("some.code", "what went wrong", pointer="/a/0")

    back = pickle.loads(pickle.dumps(err))

    assert type(back) is cls
    assert (back.code, back.detail, back.pointer) == ("some.code", "what went wrong", "/a/0")
    assert str(back) == back.message == "some.code at '/a/0': what went wrong"
    assert back.to_json() == err.to_json()


def test_json_pointer_tokens_are_escaped_as_rfc_6901_says() -> None:
    assert escape_pointer("a/b~c") == "a~1b~0c"
    assert pointer_of("memory", "instructions", 3, "key") == "/memory/instructions/3/key"
    assert pointer_of() == ""


def test_a_report_ranked_under_another_policy_is_refused_with_policy_config_mismatch() -> None:
    # The one code PolicyError carries (ranking.checking.policy.check_policy); exit 1 as a failed gate, not 4.
    err = PolicyError(
        "policy.config_mismatch", "threshold is 0 in the report, 40 in the pinned policy", pointer="/config/threshold"
    )
    assert err.message == (
        "policy.config_mismatch at '/config/threshold': threshold is 0 in the report, 40 in the pinned policy"
    )
    assert err.exit_code == 1
    assert "evidence-rank score BUNDLE --config POLICY" in err.diagnostics()
