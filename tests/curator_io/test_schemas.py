"""The published JSON Schemas: generated from the models, valid Draft 2020-12,
and satisfied by every report the pipeline writes."""

from __future__ import annotations

import json

import jsonschema
import pytest
from pydantic import TypeAdapter

from curator_io import canon, load_bundle, parse_config, parse_json
from curator_io.published import SCHEMA_IDS
from curator_io.report_model import RankingReport, ValidationReport, ranking_report_of
from curator_io.schema_generator import generate_schema, published_schema
from ranking.pipeline import rank
from tests.conftest import FIXTURES, parity_cases


@pytest.mark.parametrize("name", sorted(SCHEMA_IDS))
def test_the_published_schema_is_the_one_its_source_generates(name: str) -> None:
    # On failure: python -m curator_io.schema_generator, and review the diff.
    assert published_schema(name) == generate_schema(name)


@pytest.mark.parametrize("name", sorted(SCHEMA_IDS))
def test_the_published_schema_is_valid_draft_2020_12(name: str) -> None:
    schema = published_schema(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def _emitted_reports():
    for case in parity_cases():
        if (case / "expected.report.json").exists():
            config_file = case / "config.json"
            config = parse_config(parse_json(config_file.read_bytes()) if config_file.exists() else {})
            yield case, (case / "bundle.json").read_bytes(), config
    for fixture in sorted(FIXTURES.glob("*.json")):
        yield fixture, fixture.read_bytes(), parse_config({})


def test_every_report_the_pipeline_emits_validates_against_its_schema_and_type() -> None:
    validators = {name: jsonschema.Draft202012Validator(published_schema(name)) for name in SCHEMA_IDS}
    as_validation, as_report = TypeAdapter(ValidationReport), TypeAdapter(RankingReport)
    count = 0
    for source, raw, config in _emitted_reports():
        # The bundles themselves: tests/curator_io/test_authoring_schema.py.
        result = rank(load_bundle(raw), config)
        # What we write, we parse back and compare.
        validation = json.loads(canon(result.validation.report))
        report = json.loads(canon(result.report))
        validators["validation"].validate(validation)
        validators["report"].validate(report)
        # pydantic reads them into the types the schemas come from, and back, unchanged.
        assert as_validation.dump_python(as_validation.validate_python(validation)) == _lists(validation), source
        parsed = as_report.validate_python(report)
        assert as_report.dump_python(parsed) == _lists(report), source
        # The fast reader, which checks nothing, builds the same model pydantic does.
        assert ranking_report_of(report) == parsed, source
        count += 1
    assert count >= 75


def _lists(x: object) -> object:
    """``x`` with every list a tuple, as the models hold arrays."""
    if isinstance(x, dict):
        return {k: _lists(v) for k, v in x.items()}
    if isinstance(x, list):
        return tuple(_lists(v) for v in x)
    return x


def test_the_report_schema_refuses_an_unknown_member_and_a_sixth_selection() -> None:
    validator = jsonschema.Draft202012Validator(published_schema("report"))
    report = json.loads(canon(rank(load_bundle((FIXTURES / "example.json").read_bytes())).report))
    assert validator.is_valid(report)
    assert not validator.is_valid({**report, "extra": 1})
    assert not validator.is_valid({**report, "selected": ["a", "b", "c", "d", "e", "f"]})
