"""The CI gate: :func:`ranking.checking.gate.compare_memory`, and ``evidence-rank gate`` driven as a user would.

The CLI tests use parity case 069 (the selection replaces ``ci-vendor-21`` and
adds ``test:dockerflaky-1``) and 071 (the selection removes a key), with the
memory ``apply`` permits as the Writer's honest output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from curator_io import (
    DEFAULT_CONFIG,
    InputError,
    MemoryFile,
    canon,
    check_memory,
    load_bundle,
    parse_config,
    read_memory,
    seal,
)
from curator_io.markdown.document import write_markdown_memory
from ranking.checking.acceptance import accept
from ranking.checking.apply import apply_selection, reviewable
from ranking.checking.gate import KINDS, GateResult, compare_memory, gate
from ranking.cli import main
from ranking.cli.output import emit
from ranking.pipeline import rank
from ranking.views.gate import render_github, render_step_summary, render_text
from ranking.views.terminal import Command
from tests.conftest import PARITY, base_of, run_main

REPLACE_AND_ADD = PARITY / "069-rank-conflict-same-key-different-text"
REMOVE = PARITY / "071-rank-identical-op-is-not-a-conflict"
OTHER = PARITY / "001-basic-accepted-selected"


def _inst(key: str, text: str, **extra: Any) -> dict[str, Any]:
    return seal({"key": key, "text": text, "scope": {"level": "global"}, "origin": "curated", **extra})


# The bundle's memory; the selection replaces b, removes c and adds d.
BASE = {"version": 7, "instructions": [_inst("a", "A"), _inst("b", "B"), _inst("c", "C")]}
PERMITTED = {"version": 8, "instructions": [_inst("a", "A"), _inst("b", "B2"), _inst("d", "D")]}
EDITS = {"b": ("p-1",), "c": ("p-1",), "d": ("p-2",)}


def _after(*instructions: dict[str, Any], version: Any = 8, **members: Any) -> dict[str, Any]:
    return {"version": version, "instructions": list(instructions), **members}


def _kinds(result) -> list[tuple[str, str | None, str]]:
    return [(f.kind, f.key, f.pointer) for f in result.findings]


# -- the library ----------------------------------------------------------------------------


def test_the_permitted_memory_passes_the_gate_whatever_the_order_of_its_instructions() -> None:
    shuffled = _after(*reversed(PERMITTED["instructions"]))
    result = compare_memory(PERMITTED, shuffled, BASE, EDITS)
    assert result.passed
    assert result.findings == ()
    assert render_text(result) == [
        "gate passed: memory-after is exactly what the selection permits (version 8, 3 instructions)"
    ]


def test_an_instruction_no_proposal_adds_is_an_unexpected_addition() -> None:
    after = _after(*PERMITTED["instructions"], _inst("e", "E"))
    result = compare_memory(PERMITTED, after, BASE, EDITS)
    assert not result.passed
    assert _kinds(result) == [("unexpected_addition", "e", "/instructions/3")]
    assert result.findings[0].message == "instruction 'e' was added, but no selected proposal adds it"


def test_a_change_to_an_untouched_instruction_names_the_members_that_differ() -> None:
    changed = {**_inst("a", "A"), "text": "A, edited by hand", "origin": "user"}
    after = _after(changed, *PERMITTED["instructions"][1:])
    result = compare_memory(PERMITTED, after, BASE, EDITS)
    (finding,) = result.findings
    assert (finding.kind, finding.key, finding.pointer) == ("unexpected_change", "a", "/instructions/0")
    assert finding.members == ("origin", "text")
    assert finding.message == "instruction 'a' was changed (origin, text), but no selected proposal changes it"


def test_removing_an_instruction_no_proposal_removes_is_an_unexpected_removal() -> None:
    after = _after(*PERMITTED["instructions"][1:])
    result = compare_memory(PERMITTED, after, BASE, EDITS)
    assert _kinds(result) == [("unexpected_removal", "a", "/instructions")]
    assert result.findings[0].message == "instruction 'a' was removed, but no selected proposal removes it"


def test_each_selected_edit_the_writer_left_out_is_a_missing_edit() -> None:
    # Nothing written at all: memory-after is the bundle's memory with the new version.
    after = _after(*BASE["instructions"])
    result = compare_memory(PERMITTED, after, BASE, EDITS)
    assert _kinds(result) == [
        ("missing_edit", "b", "/instructions/1"),
        ("missing_edit", "c", "/instructions/2"),
        ("missing_edit", "d", "/instructions"),
    ]
    messages = [f.message for f in result.findings]
    assert messages == [
        "the selected replace of 'b' (p-1) is missing: memory-after still has the bundle's instruction",
        "the selected remove of 'c' (p-1) is missing: memory-after still has the bundle's instruction",
        "the selected add of 'd' (p-2) is missing: memory-after does not have it",
    ]


def test_a_selected_edit_written_differently_is_an_unexpected_change_naming_the_edit() -> None:
    after = _after(PERMITTED["instructions"][0], _inst("b", "B3"), PERMITTED["instructions"][2])
    result = compare_memory(PERMITTED, after, BASE, EDITS)
    (finding,) = result.findings
    assert (finding.kind, finding.key, finding.members) == ("unexpected_change", "b", ("digest", "text"))
    assert finding.message == "instruction 'b' differs from the selected replace of 'b' (p-1) in digest, text"


def test_removing_an_instruction_the_selection_replaces_is_an_unexpected_removal() -> None:
    after = _after(PERMITTED["instructions"][0], PERMITTED["instructions"][2])
    result = compare_memory(PERMITTED, after, BASE, EDITS)
    assert _kinds(result) == [("unexpected_removal", "b", "/instructions")]
    assert result.findings[0].message == "instruction 'b' was removed, but the selected replace of 'b' (p-1) keeps it"


def test_a_version_other_than_the_permitted_one_fails_the_gate() -> None:
    result = compare_memory(PERMITTED, _after(*PERMITTED["instructions"], version=7), BASE, EDITS)
    assert _kinds(result) == [("version_mismatch", None, "/version")]
    assert result.findings[0].message == "memory-after has version 7; the selection permits 8"
    missing = compare_memory(PERMITTED, {"instructions": PERMITTED["instructions"]}, BASE, EDITS)
    assert missing.findings[0].message == "memory-after has no version; the selection permits 8"


def test_a_version_written_as_8_point_0_is_the_same_version_as_jcs_writes_both_8() -> None:
    assert compare_memory(PERMITTED, _after(*PERMITTED["instructions"], version=8.0), BASE, EDITS).passed


def test_a_repeated_key_and_a_changed_memory_member_fail_the_gate() -> None:
    after = _after(*PERMITTED["instructions"], PERMITTED["instructions"][0], owner="someone")
    result = compare_memory(PERMITTED, after, BASE, EDITS)
    assert _kinds(result) == [("unexpected_member", None, "/owner"), ("duplicate_key", "a", "/instructions/3/key")]
    assert (
        result.findings[1].message
        == "instruction key 'a' appears more than once (first at /instructions/0); memory keys are unique"
    )


def _gate_files(after: MemoryFile, case: Path = REPLACE_AND_ADD) -> GateResult:
    """The gate on ``case``'s report and bundle, memory-after ``after``, the base the bundle's memory."""
    report, bundle = (case / "expected.report.json").read_bytes(), (case / "bundle.json").read_bytes()
    base = MemoryFile(canon(json.loads(bundle)["memory"]), markdown=False)
    return gate(report, bundle, after, config=DEFAULT_CONFIG, base=base)


DUPLICATE = (
    "duplicate_key",
    "ci-vendor-21",
    "/instructions/2/key",
    "instruction key 'ci-vendor-21' appears more than once (first at /instructions/0); memory keys are unique",
)


def test_a_key_written_twice_in_a_json_memory_after_is_a_duplicate_key_finding() -> None:
    permitted = _permitted(REPLACE_AND_ADD)
    after = {**permitted, "instructions": [*permitted["instructions"], permitted["instructions"][0]]}
    result = _gate_files(MemoryFile(canon(after), markdown=False))
    assert not result.passed
    assert [(f.kind, f.key, f.pointer, f.message) for f in result.findings] == [DUPLICATE]


def test_a_key_written_twice_in_a_markdown_memory_after_is_the_same_finding_on_its_line() -> None:
    section = write_markdown_memory(_permitted(REPLACE_AND_ADD)).decode().splitlines(keepends=True)
    first = next(i for i, line in enumerate(section) if "key=ci-vendor-21" in line)
    last = max(i for i, line in enumerate(section) if line.startswith("- "))
    section.insert(last + 1, section[first])  # the item again, as the section's last
    result = _gate_files(MemoryFile("".join(section).encode(), markdown=True, source="AGENTS.md"))
    assert not result.passed
    assert [(f.kind, f.key, f.pointer, f.message) for f in result.findings] == [DUPLICATE]
    assert result.findings[0].at == (last + 2, 1)


def _changed_last() -> tuple[dict[str, Any], str]:
    """Case 069's permitted memory with its last instruction's text changed, and that instruction's pointer."""
    permitted = _permitted(REPLACE_AND_ADD)
    *kept, last = permitted["instructions"]
    changed = {**permitted, "instructions": [*kept, seal({**last, "text": last["text"] + " Now."})]}
    return changed, f"/instructions/{len(kept)}"


def test_the_result_carries_the_line_of_a_finding_in_a_json_memory_after() -> None:
    changed, pointer = _changed_last()
    written = reviewable(changed)
    result = _gate_files(MemoryFile(written, markdown=False, source="memory.json"))
    [finding] = result.findings
    assert (finding.kind, finding.pointer) == ("unexpected_change", pointer)
    lines = written.decode().splitlines()
    line = max(n for n, text in enumerate(lines, 1) if text == "    {")  # the last instruction opens there
    assert finding.at == (line, 5)
    # JSON names a finding by its pointer: the text and the JSON say so, as they did before it had a line.
    assert finding.named_line is None and finding.to_json()["line"] is None
    assert render_text(result)[0].startswith(f"unexpected_change  {pointer}  ")
    annotation = next(c for c in render_github(result, "memory.json") if isinstance(c, Command))
    assert annotation.line().startswith(f"::error file=memory.json,line={line},col=5,title=")


def test_the_result_carries_the_line_of_a_finding_in_a_markdown_memory_after() -> None:
    changed, pointer = _changed_last()
    written = write_markdown_memory(changed)
    result = _gate_files(MemoryFile(written, markdown=True, source="AGENTS.md"))
    [finding] = result.findings
    assert (finding.kind, finding.pointer) == ("unexpected_change", pointer)
    line = max(n for n, text in enumerate(written.decode().splitlines(), 1) if text.startswith("- "))
    assert finding.at == (line, 1)
    assert finding.named_line == line and finding.to_json()["line"] == line
    assert render_text(result)[0].startswith(f"unexpected_change  line {line}  ")
    annotation = next(c for c in render_github(result, "AGENTS.md") if isinstance(c, Command))
    assert annotation.line().startswith(f"::error file=AGENTS.md,line={line},col=1,title=")


def test_a_finding_compared_without_its_file_has_no_place() -> None:
    # compare_memory is given parsed objects: no text to find a place in, and no annotation names a line.
    result = compare_memory(PERMITTED, _after(_inst("a", "A!")), BASE, EDITS)
    assert all(f.at is None for f in result.findings)
    assert all("line=" not in c.line() for c in render_github(result, "m.json") if isinstance(c, Command))


def test_every_other_reader_of_a_markdown_memory_still_refuses_a_key_written_twice() -> None:
    section = write_markdown_memory(_permitted(REPLACE_AND_ADD)).decode().splitlines(keepends=True)
    first = next(i for i, line in enumerate(section) if "key=ci-vendor-21" in line)
    section.insert(first + 1, section[first])
    with pytest.raises(InputError, match="appears twice") as refused:
        read_memory("".join(section).encode(), markdown=True)
    assert refused.value.code == "input.markdown_duplicate_key"


def test_findings_come_in_the_order_of_their_kinds() -> None:
    after = _after(_inst("a", "A!"), _inst("e", "E"), version=9)
    result = compare_memory(PERMITTED, after, BASE, EDITS)
    order = [KINDS.index(f.kind) for f in result.findings]
    assert order == sorted(order)
    assert {f.kind for f in result.findings} == {
        "version_mismatch",
        "unexpected_addition",
        "unexpected_change",
        "unexpected_removal",
        "missing_edit",
    }


def test_without_the_bundle_memory_every_difference_counts_as_not_accounted_for() -> None:
    result = compare_memory(PERMITTED, _after(*BASE["instructions"]))
    assert _kinds(result) == [
        ("unexpected_addition", "c", "/instructions/2"),
        ("unexpected_change", "b", "/instructions/1"),
        ("unexpected_removal", "d", "/instructions"),
    ]


@pytest.mark.parametrize(
    ("doc", "pointer", "detail"),
    [
        ([], "", "expected a memory object {version, instructions}"),
        (
            {"schema": "curator-bundle-v1", "memory": {}, "instructions": []},
            "/memory",
            'memory-after is a whole document; pass its memory object (the "memory" member)',
        ),
        ({"version": 8}, "/instructions", "missing member 'instructions'"),
        ({"version": 8, "instructions": {}}, "/instructions", "expected an array of instructions"),
        ({"version": 8, "instructions": ["a"]}, "/instructions/0", "expected an instruction object"),
        ({"version": 8, "instructions": [{"text": "A"}]}, "/instructions/0/key", "expected a string key"),
    ],
)
def test_memory_after_that_is_not_a_memory_object_is_an_input_error(doc: Any, pointer: str, detail: str) -> None:
    with pytest.raises(InputError, match=r"^input\.schema") as caught:
        compare_memory(PERMITTED, doc, BASE)
    assert (caught.value.code, caught.value.pointer, caught.value.detail) == ("input.schema", pointer, detail)
    assert caught.value.exit_code == 3


@pytest.mark.parametrize(
    "doc",
    [[], {"version": "8", "instructions": []}, {"version": 8}, {"version": 8, "instructions": ["a"]}],
    ids=["not an object", "a version that is not an INT", "no instructions", "an instruction not an object"],
)
def test_a_fault_of_a_memory_object_has_one_message_whoever_reads_the_memory(doc: Any) -> None:
    with pytest.raises(InputError) as gated:
        compare_memory(PERMITTED, doc, BASE)
    with pytest.raises(InputError) as checked:
        check_memory(doc)
    assert (gated.value.code, gated.value.pointer, gated.value.detail) == (
        checked.value.code,
        checked.value.pointer,
        checked.value.detail,
    )


def test_github_output_escapes_messages_and_the_summary_escapes_table_cells(
    capsys: pytest.CaptureFixture[str],
) -> None:
    after = _after({**PERMITTED["instructions"][0], "text": "50% | two\nlines"}, *PERMITTED["instructions"][1:])
    result = compare_memory(PERMITTED, after, BASE, EDITS)
    emit(render_github(result, file="mem,ory.json"))
    (line, verdict) = capsys.readouterr().out.splitlines()
    assert line == (
        "::error file=mem%2Cory.json,title=evidence-rank gate::instruction 'a' was changed (text), "
        "but no selected proposal changes it (/instructions/0)"
    )
    assert verdict == "gate failed: 1 finding(s) (1 unexpected_change)"
    summary = render_step_summary(result)
    assert summary.startswith("### evidence-rank gate: failed\n")
    assert (
        "| unexpected_change | a | /instructions/0 | "
        "instruction 'a' was changed (text), but no selected proposal changes it |" in summary
    )


# -- the command ----------------------------------------------------------------------------


def _permitted(case: Path) -> dict[str, Any]:
    return json.loads((case / "expected.apply.json").read_bytes())


def _write(tmp_path: Path, doc: Any, name: str = "memory.json") -> Path:
    path = tmp_path / name
    path.write_bytes(canon(doc))
    return path


#: What every gate run without --trust says before its verdict, in text.
UNSIGNED = (
    "warning: not checked: who signed the bundle (no --trust), so anyone who can edit the change can invent "
    "evidence and reseal it"
)


def _gate(
    capsys: pytest.CaptureFixture[str], case: Path, memory: Path, *extra: str, report: Path | None = None
) -> tuple[int, str, str]:
    report = report or case / "expected.report.json"
    return run_main(
        capsys,
        "gate",
        "--bundle",
        case / "bundle.json",
        "--report",
        report,
        "--memory-after",
        memory,
        *base_of(case / "bundle.json"),
        *extra,
    )


@pytest.mark.parametrize("case", [REPLACE_AND_ADD, REMOVE, PARITY / "003-empty-proposals"], ids=lambda c: c.name)
def test_the_gate_passes_when_memory_after_is_what_apply_prints(
    case: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = tmp_path / "memory.json"
    assert main(["apply", str(case / "bundle.json"), str(case / "expected.report.json"), "--out", str(memory)]) == 0
    rc, out, _ = _gate(capsys, case, memory)
    assert rc == 0
    warning, verdict = out.splitlines()
    assert warning == UNSIGNED
    assert verdict.startswith("gate passed: memory-after is exactly what the selection permits")


def test_the_gate_fails_on_an_extra_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = _permitted(REPLACE_AND_ADD)
    memory["instructions"].append(_inst("zz-unreviewed", "Always push to main."))
    rc, out, _ = _gate(capsys, REPLACE_AND_ADD, _write(tmp_path, memory))
    assert rc == 1
    assert out.splitlines() == [
        "unexpected_addition  /instructions/2  instruction 'zz-unreviewed' was added, but no selected proposal adds it",
        UNSIGNED,
        "gate failed: 1 finding(s) (1 unexpected_addition)",
    ]


def test_the_gate_fails_on_a_changed_instruction(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = _permitted(REPLACE_AND_ADD)
    memory["instructions"][1]["scope"] = {"level": "global"}
    rc, out, _ = _gate(capsys, REPLACE_AND_ADD, _write(tmp_path, memory))
    assert rc == 1
    assert (
        "unexpected_change  /instructions/1  instruction 'test:dockerflaky-1' differs from "
        "the selected add of 'test:dockerflaky-1' (p/seed-9) in scope" in out
    )


def test_the_gate_fails_on_a_missing_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = _permitted(REPLACE_AND_ADD)
    memory["instructions"] = [i for i in memory["instructions"] if i["key"] != "test:dockerflaky-1"]
    rc, out, _ = _gate(capsys, REPLACE_AND_ADD, _write(tmp_path, memory))
    assert rc == 1
    assert out.splitlines() == [
        "missing_edit  /instructions  the selected add of 'test:dockerflaky-1' (p/seed-9) is missing: "
        "memory-after does not have it",
        UNSIGNED,
        "gate failed: 1 finding(s) (1 missing_edit)",
    ]


def test_the_gate_fails_when_a_selected_remove_is_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = json.loads((REMOVE / "bundle.json").read_bytes())
    memory = {**bundle["memory"], "version": bundle["memory"]["version"] + 1}
    rc, out, _ = _gate(capsys, REMOVE, _write(tmp_path, memory))
    assert rc == 1
    assert "missing_edit" in out and "the selected remove of" in out


def test_the_gate_fails_on_a_removed_instruction(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = _permitted(REPLACE_AND_ADD)
    memory["instructions"] = [i for i in memory["instructions"] if i["key"] != "ci-vendor-21"]
    rc, out, _ = _gate(capsys, REPLACE_AND_ADD, _write(tmp_path, memory))
    assert rc == 1
    assert out.splitlines()[0] == (
        "unexpected_removal  /instructions  instruction 'ci-vendor-21' was removed, "
        "but the selected replace of 'ci-vendor-21' (p/modulealpha-29) keeps it"
    )


def test_the_gate_fails_on_a_version_mismatch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = _permitted(REPLACE_AND_ADD)
    memory["version"] += 1
    rc, out, _ = _gate(capsys, REPLACE_AND_ADD, _write(tmp_path, memory))
    assert rc == 1
    assert out.splitlines()[0] == "version_mismatch  /version  memory-after has version 815; the selection permits 814"


def test_the_json_format_is_canonical_and_parses_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = _permitted(REPLACE_AND_ADD)
    memory["version"] = 1
    rc, out, _ = _gate(capsys, REPLACE_AND_ADD, _write(tmp_path, memory), "--format", "json")
    assert rc == 1
    doc = json.loads(out)
    assert out == canon(doc).decode("utf-8") + "\n"
    assert doc["passed"] is False and doc["version"] == 814 and doc["instructions"] == 2
    assert doc["findings"] == [
        {
            "kind": "version_mismatch",
            "key": None,
            "document": "memory-after",
            "pointer": "/version",
            "line": None,
            "members": [],
            "message": "memory-after has version 1; the selection permits 814",
        },
    ]


def test_the_github_format_annotates_and_appends_to_the_step_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("## earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    memory = _permitted(REPLACE_AND_ADD)
    memory["instructions"].append(_inst("zz-unreviewed", "Always push to main."))
    path = _write(tmp_path, memory)
    rc, out, _ = _gate(capsys, REPLACE_AND_ADD, path, "--format", "github")
    assert rc == 1
    written = path.read_text()  # one line: the annotation is at the column where the instruction opens
    col = written.rindex("{", 0, written.index('"zz-unreviewed"')) + 1
    assert out.splitlines()[0] == (
        f"::error file={path},line=1,col={col},title=evidence-rank gate::instruction 'zz-unreviewed' was added, "
        "but no selected proposal adds it (/instructions/2)"
    )
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## earlier step\n### evidence-rank gate: failed\n")
    assert "| kind | key | pointer | message |" in text
    assert "| unexpected_addition | zz-unreviewed | /instructions/2 |" in text


def test_the_github_format_passes_with_a_notice_and_writes_no_summary_when_unset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    rc, out, _ = _gate(capsys, REPLACE_AND_ADD, REPLACE_AND_ADD / "expected.apply.json", "--format", "github")
    assert rc == 0
    warning, notice, verdict = out.splitlines()
    assert warning == "::warning title=evidence-rank gate::" + UNSIGNED.removeprefix("warning: ")
    assert notice.startswith("::notice title=evidence-rank gate::gate passed")
    assert verdict.startswith("gate passed")
    assert list(tmp_path.iterdir()) == []


def test_malformed_memory_after_is_an_input_error_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "memory.json"
    path.write_bytes(b'{"version": 814, "version": 815, "instructions": []}')
    rc, out, err = _gate(capsys, REPLACE_AND_ADD, path)
    assert rc == 3
    assert out == ""
    assert f"evidence-rank: {path}: input.malformed_json at '': duplicate member name 'version'" in err


def test_memory_after_that_is_a_whole_bundle_is_refused_with_a_pointer(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _gate(capsys, REPLACE_AND_ADD, REPLACE_AND_ADD / "bundle.json")
    assert rc == 3
    assert f"evidence-rank: {REPLACE_AND_ADD / 'bundle.json'}: input.schema at '/memory': " in err
    assert "memory-after is a whole document; pass its memory object" in err


def test_memory_after_without_instructions_is_refused_with_a_pointer(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _gate(capsys, REPLACE_AND_ADD, REPLACE_AND_ADD / "expected.report.json")
    assert rc == 3
    assert f"evidence-rank: {REPLACE_AND_ADD / 'expected.report.json'}: input.schema at '/instructions': " in err
    assert "missing member 'instructions'" in err


def test_the_gate_refuses_a_report_from_another_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _gate(
        capsys, REPLACE_AND_ADD, REPLACE_AND_ADD / "expected.apply.json", report=OTHER / "expected.report.json"
    )
    assert rc == 4
    assert out == ""
    assert (
        f"{OTHER / 'expected.report.json'}: report.tampered at '/input_digest': the report is not this bundle's" in err
    )


def test_the_gate_refuses_a_malformed_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = PARITY / "087-input-frozen-digest-mismatch-random"
    rc = main(
        [
            "gate",
            "--bundle",
            str(bad / "bundle.json"),
            "--report",
            str(OTHER / "expected.report.json"),
            "--memory-after",
            str(OTHER / "expected.apply.json"),
            "--skip-base-check",
        ]
    )
    assert rc == 3
    err = capsys.readouterr().err
    assert f"evidence-rank: {bad / 'bundle.json'}: input.frozen_digest_mismatch at '/frozen/digest'" in err


def test_the_gate_names_an_unreadable_memory_file_as_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, _, err = _gate(capsys, REPLACE_AND_ADD, tmp_path / "absent.json")
    assert rc == 2
    assert "evidence-rank: usage.unreadable: cannot read" in err


def test_the_gate_without_memory_after_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["gate", "--bundle", str(OTHER / "bundle.json"), "--report", str(OTHER / "expected.report.json")])
    assert caught.value.code == 2
    assert "the following arguments are required: --memory-after" in capsys.readouterr().err


# -- the pinned policy ----------------------------------------------------------------------
#
# Parity case 002 ranked with {"threshold": 0, "min_lineages": 1} selects five proposals, where
# the SPEC §2 defaults select one: a genuine report that replays byte for byte under its own config.

MIXED = PARITY / "002-mixed-dispositions"
LOOSE = {"threshold": 0, "min_lineages": 1}
LOOSE_FINDINGS = [
    "config_mismatch  /config/min_lineages  config member 'min_lineages' is 1 in the report; the pinned policy has 2",
    "config_mismatch  /config/threshold  config member 'threshold' is 0 in the report; the pinned policy has 40",
    UNSIGNED,
    "gate failed: 2 finding(s) (2 config_mismatch); the report was not ranked with the pinned policy, "
    "so memory-after was not compared",
]


@pytest.fixture
def loosened(tmp_path: Path) -> tuple[Path, Path]:
    """The loosened report, and the memory it permits: five edits."""
    bundle = load_bundle((MIXED / "bundle.json").read_bytes())
    report = rank(bundle, parse_config(LOOSE)).report
    memory = apply_selection(accept(report, bundle=bundle))
    before = {i["key"]: i for i in bundle.memory["instructions"]}
    after = {i["key"]: i for i in memory["instructions"]}
    assert len([k for k in before.keys() | after.keys() if before.get(k) != after.get(k)]) == 5
    return _write(tmp_path, report, "report.json"), _write(tmp_path, memory)


def test_a_report_ranked_with_a_loosened_config_fails_the_gate_pinned_to_the_defaults(
    loosened: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    report, memory = loosened
    rc, out, _ = _gate(capsys, MIXED, memory, report=report)
    assert rc == 1
    assert out.splitlines() == LOOSE_FINDINGS


def test_the_five_edits_of_the_loosened_report_fail_against_the_defaults_own_report(
    loosened: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, memory = loosened
    rc, out, _ = _gate(capsys, MIXED, memory)
    assert rc == 1
    assert out.splitlines()[-1] == "gate failed: 4 finding(s) (4 unexpected_addition)"


def test_a_report_ranked_with_the_pinned_config_passes_the_gate(
    loosened: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, memory = loosened
    policy = _write(tmp_path, LOOSE, "policy.json")
    rc, out, _ = _gate(capsys, MIXED, memory, "--config", str(policy), report=report)
    assert rc == 0
    assert out.splitlines()[-1].startswith("gate passed: memory-after is exactly what the selection permits")


def test_an_explicit_policy_of_the_defaults_passes_a_report_ranked_with_the_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _write(tmp_path, {"threshold": 40, "min_lineages": 2}, "policy.json")
    rc, out, _ = _gate(capsys, REPLACE_AND_ADD, REPLACE_AND_ADD / "expected.apply.json", "--config", str(policy))
    assert rc == 0
    assert out.splitlines()[-1].startswith("gate passed")


def test_a_stricter_pinned_policy_fails_a_report_ranked_with_the_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _write(tmp_path, {"threshold": 80.5}, "policy.json")
    rc, out, _ = _gate(capsys, REPLACE_AND_ADD, REPLACE_AND_ADD / "expected.apply.json", "--config", str(policy))
    assert rc == 1
    assert out.splitlines()[0] == (
        "config_mismatch  /config/threshold  config member 'threshold' is 40 in the report; the pinned policy has 80.5"
    )


def test_config_mismatches_in_json_name_the_report_the_member_and_both_values(
    loosened: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    report, memory = loosened
    rc, out, _ = _gate(capsys, MIXED, memory, "--format", "json", report=report)
    assert rc == 1
    doc = json.loads(out)
    assert out == canon(doc).decode("utf-8") + "\n"
    assert (doc["passed"], doc["version"], doc["instructions"]) == (False, None, None)
    assert doc["findings"] == [
        {
            "kind": "config_mismatch",
            "key": None,
            "document": "report",
            "pointer": "/config/min_lineages",
            "line": None,
            "members": ["min_lineages"],
            "pinned": 2,
            "report": 1,
            "message": "config member 'min_lineages' is 1 in the report; the pinned policy has 2",
        },
        {
            "kind": "config_mismatch",
            "key": None,
            "document": "report",
            "pointer": "/config/threshold",
            "line": None,
            "members": ["threshold"],
            "pinned": 40,
            "report": 0,
            "message": "config member 'threshold' is 0 in the report; the pinned policy has 40",
        },
    ]


def test_config_mismatches_in_github_format_annotate_the_report_and_fill_the_summary(
    loosened: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    report, memory = loosened
    rc, out, _ = _gate(capsys, MIXED, memory, "--format", "github", report=report)
    assert rc == 1
    ranked = report.read_text()
    at = {m: ranked.index(f'"{m}":') + len(m) + 4 for m in ("min_lineages", "threshold")}  # the value's column
    assert out.splitlines() == [
        f"::error file={report},line=1,col={at['min_lineages']},title=evidence-rank gate::config member "
        "'min_lineages' is 1 in the report; the pinned policy has 2 (/config/min_lineages)",
        f"::error file={report},line=1,col={at['threshold']},title=evidence-rank gate::config member "
        "'threshold' is 0 in the report; the pinned policy has 40 (/config/threshold)",
        "::warning title=evidence-rank gate::" + UNSIGNED.removeprefix("warning: "),
        LOOSE_FINDINGS[-1],
    ]
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("### evidence-rank gate: failed\n")
    assert (
        "| config_mismatch |  | /config/threshold | "
        "config member 'threshold' is 0 in the report; the pinned policy has 40 |" in text
    )


def test_a_forged_report_with_a_loosened_config_is_refused_as_tampered_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = load_bundle((MIXED / "bundle.json").read_bytes())
    report = rank(bundle, parse_config(LOOSE)).report
    report["selected"] = report["selected"][:1]  # edited, then resealed: not what the bundle produces
    forged = _write(tmp_path, seal(report), "report.json")
    rc, out, err = _gate(capsys, MIXED, MIXED / "expected.apply.json", report=forged)
    assert rc == 4
    assert out == ""
    assert f"evidence-rank: {forged}: report.tampered at '/selected" in err


def test_a_pinned_policy_outside_spec_2_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = _write(tmp_path, {"max_selected": 6}, "policy.json")
    rc, _, err = _gate(capsys, REPLACE_AND_ADD, REPLACE_AND_ADD / "expected.apply.json", "--config", str(policy))
    assert rc == 2
    assert f"evidence-rank: {policy}: config.invalid at '/max_selected': max_selected: the limit of five is hard" in err


def test_the_gate_as_a_library_refuses_to_run_without_a_pinned_policy(tmp_path: Path) -> None:
    # A report ranked with threshold 0 and min_lineages 1 would pass with config=None taken as
    # "believe the report's own": the door fails closed on the caller's mistake (issue 48, finding 9).
    from curator_io.errors import ConfigError

    bundle = (PARITY / "002-mixed-dispositions" / "bundle.json").read_bytes()
    lax = rank(load_bundle(bundle), parse_config({"threshold": 0, "min_lineages": 1}))
    after = MemoryFile(canon(apply_selection(accept(lax.canonical, bundle=bundle))), markdown=False)

    with pytest.raises(ConfigError) as refused:
        gate(lax.canonical, bundle, after, config=None)  # type: ignore[arg-type]

    assert refused.value.code == "usage.invalid_option"
    assert refused.value.detail.startswith("gate needs the pinned policy: config=")
