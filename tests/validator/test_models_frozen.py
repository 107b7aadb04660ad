"""The models a run builds are immutable (named tuples): nothing downstream can change a bundle."""

from __future__ import annotations

from typing import Any

import pytest

from curator_io import load_bundle
from curator_io.config import DEFAULT_CONFIG
from tests.conftest import FIXTURES
from validator import validate


def _models() -> list[Any]:
    bundle = load_bundle((FIXTURES / "example.json").read_bytes())
    entry = next(e for e in validate(bundle, config=DEFAULT_CONFIG).entries if e.support is not None)
    assert entry.proposal is not None and entry.support is not None
    return [
        next(iter(bundle.evidence.values())),
        next(iter(bundle.traces.values())),
        next(iter(bundle.lessons.values())),
        next(iter(bundle.materializations.values())),
        next(iter(bundle.memory_instructions.values())).scope,
        entry,
        entry.proposal,
        entry.proposal.operations[0],
        entry.proposal.scope,
        entry.support,
    ]


@pytest.mark.parametrize("model", _models(), ids=lambda m: type(m).__name__)
def test_no_field_of_a_model_can_be_set(model: Any) -> None:
    for name in model._fields:
        with pytest.raises(AttributeError):
            setattr(model, name, "changed")
    with pytest.raises(AttributeError):
        model.extra = "added"
