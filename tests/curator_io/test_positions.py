"""Annotations land on the changed line: the line and column of a JSON Pointer in a document's text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from curator_io.errors import InputError
from curator_io.positions import JsonPlaces, position_of, refusal_position
from ranking.cli import main
from tests.conftest import PARITY, base_of

TEXT = """{
  "version": 8,
  "instructions": [
    {"key": "a", "text": "A"},
    {
      "key": "b/c~d",
      "text": "B"
    }
  ],
  "x y": {"": [1, [2, 3]]}
}"""


@pytest.mark.parametrize(
    ("pointer", "where"),
    [
        ("", (1, 1)),
        ("/version", (2, 14)),
        ("/instructions", (3, 19)),
        ("/instructions/0", (4, 5)),
        ("/instructions/1", (5, 5)),
        ("/instructions/1/key", (6, 14)),
        ("/x y//1/1", (10, 23)),
        ("/instructions/7", (3, 19)),  # no such element: the array it would be in
        ("/gone", (1, 1)),  # no such member: the object
    ],
)
def test_a_pointer_is_found_at_the_line_and_column_of_its_value(pointer: str, where: tuple[int, int]) -> None:
    assert position_of(TEXT, pointer) == where


def test_one_text_asked_many_pointers_in_any_order_answers_each_as_if_asked_alone() -> None:
    # A memory with many findings is read once (JsonPlaces remembers what it skipped), not once a finding.
    pointers = ["/instructions/1/key", "/x y//1/1", "/instructions/0", "/instructions/7", "/gone", "/version", ""]
    places = JsonPlaces(TEXT)
    for pointer in [*pointers, *reversed(pointers)]:
        assert places.position(pointer) == position_of(TEXT, pointer)
    broken = '{"a": [1, 2 3], "a": 4}'  # an array that stops being JSON, a name written twice
    places = JsonPlaces(broken)
    assert [places.position(p) for p in ("/a/2", "/a/1", "/a/0", "/a")] == [(1, 7), (1, 11), (1, 8), (1, 7)]


def test_escaped_tokens_and_member_names_are_matched_as_rfc_6901_and_json_read_them() -> None:
    text = '{"b/c~d": 1, "\\u00e9": 2}'
    assert position_of(text, "/b~1c~0d") == (1, 11)
    assert position_of(text, "/é") == (1, 24)


def test_text_that_is_not_json_along_the_path_has_no_deeper_position() -> None:
    assert position_of("", "/a") is None
    assert position_of('{"a": }', "/a/b") == (1, 7)
    assert position_of('{"a" 1}', "/a") == (1, 1)


@given(st.recursive(st.integers() | st.text(), lambda c: st.lists(c) | st.dictionaries(st.text(), c), max_leaves=20))
def test_every_pointer_of_an_indented_document_lands_on_its_value(doc: object) -> None:
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    lines = text.split("\n")

    def walk(value: object, pointer: str) -> None:
        line, col = position_of(text, pointer)  # type: ignore[misc]
        rest = "\n".join([lines[line - 1][col - 1 :], *lines[line:]])
        assert json.JSONDecoder().raw_decode(rest)[0] == value
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, child in items:
            walk(child, pointer + "/" + str(key).replace("~", "~0").replace("/", "~1"))

    walk(doc, "")


def test_a_github_annotation_names_the_line_of_the_instruction_no_proposal_adds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    case = PARITY / "069-rank-conflict-same-key-different-text"
    memory = json.loads((case / "expected.apply.json").read_bytes())
    memory["instructions"].append({**memory["instructions"][0], "key": "zz-unreviewed"})
    after = tmp_path / "memory.json"
    after.write_text(json.dumps(memory, indent=2))
    lines = after.read_text().splitlines()
    key = next(i for i, text in enumerate(lines) if '"zz-unreviewed"' in text)
    opens = max(i for i in range(key) if lines[i] == "    {") + 1  # the line of the instruction's "{"
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)

    argv = ["gate", "--bundle", str(case / "bundle.json"), "--report", str(case / "expected.report.json")]
    assert main([*argv, "--memory-after", str(after), *base_of(case / "bundle.json"), "--format", "github"]) == 1
    (annotation,) = [a for a in capsys.readouterr().out.splitlines() if a.startswith("::error ")]
    assert annotation.startswith(f"::error file={after},line={opens},col=5,title=evidence-rank gate::")


def test_a_refusal_annotation_names_the_line_of_the_place_in_the_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    case = PARITY / "069-rank-conflict-same-key-different-text"
    doc = json.loads((case / "bundle.json").read_bytes())
    doc["run"]["frozen_at"] = "yesterday"
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(doc, indent=2))
    line = next(i for i, text in enumerate(bundle.read_text().splitlines(), 1) if '"yesterday"' in text)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)

    argv = ["gate", "--bundle", str(bundle), "--report", str(case / "expected.report.json")]
    argv += ["--memory-after", str(case / "expected.apply.json"), "--skip-base-check", "--format", "github"]
    assert main(argv) == 3
    (annotation,) = [a for a in capsys.readouterr().out.splitlines() if a.startswith("::error ")]
    assert annotation.startswith(f"::error file={bundle},line={line},col=")
    assert "input.schema at '/run/frozen_at'" in annotation


def test_a_refusal_is_placed_at_its_own_line_else_where_its_pointer_is_in_the_bytes_read() -> None:
    markdown = InputError("input.markdown_item", "an empty item", source="AGENTS.md", at=(4, 1))
    assert refusal_position(markdown, {}) == (4, 1)
    json_error = InputError("input.malformed_json", "not an integer", pointer="/a/1", source="m.json")
    assert refusal_position(json_error, {"m.json": b'{\n  "a": [1,\n    2]}'}) == (3, 5)
    assert refusal_position(json_error, {}) is None  # the file was not read: the refusal is on the file
