"""``evidence-rank batch``: files, folders and JSONL in; one folder per bundle and summary.json out."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from curator_io import is_sealed, parse_json
from ranking.cli import main
from ranking.running.batch import Input, iter_sources
from ranking.running.outputs import LOCK_NAME
from tests.conftest import FIXTURES, PARITY, REPO
from tests.ranking.running.batch_support import SCORED, one_line, read_summary, tree_bytes, write_mixed_batch


@pytest.fixture
def batch_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_bundle_in_a_folder_gets_the_reference_reports_and_one_summary_entry(batch_dir, capsys) -> None:
    folder = batch_dir / "cases"
    folder.mkdir()
    for case in SCORED:
        shutil.copy(PARITY / case / "bundle.json", folder / f"{case}.json")

    assert main(["batch", "cases", "--out-dir", "out"]) == 0

    summary = read_summary(batch_dir / "out")
    assert is_sealed(summary)
    assert summary["schema"] == "evidence-rank-batch-v1"
    assert summary["counts"] == {"bundles": 4, "selected": 3, "no_op": 1, "error": 0}
    assert [e["source"] for e in summary["bundles"]] == [{"file": f"cases/{c}.json", "line": None} for c in SCORED]
    for index, (case, entry) in enumerate(zip(SCORED, summary["bundles"], strict=True), start=1):
        expected = json.loads((PARITY / case / "expected.report.json").read_bytes())
        assert entry["index"] == index
        assert entry["output"] == f"reports/{index:06d}-cases_{case}"
        assert (entry["outcome"], entry["selected"]) == (expected["outcome"], expected["selected"])
        assert entry["run"] == expected["run"]
        assert entry["error"] is None
        written = batch_dir / "out" / entry["output"]
        assert (written / "report.json").read_bytes() == (PARITY / case / "expected.report.json").read_bytes()
        assert (written / "validation.json").read_bytes() == (PARITY / case / "expected.validation.json").read_bytes()
        assert not (written / "error.json").exists()
    assert capsys.readouterr().err == ""


def test_each_folder_holds_the_same_bytes_as_the_score_command(batch_dir) -> None:
    shutil.copy(FIXTURES / "example.json", "example.json")
    shutil.copy(PARITY / "087-input-frozen-digest-mismatch-random" / "bundle.json", "tampered.json")

    assert main(["batch", "example.json", "tampered.json", "--out-dir", "out"]) == 3
    assert main(["score", "example.json", "--out-dir", "scored"]) == 0
    assert main(["score", "tampered.json", "--out-dir", "refused"]) == 3

    assert tree_bytes(batch_dir / "out" / "reports" / "000001-example") == tree_bytes(batch_dir / "scored")
    assert tree_bytes(batch_dir / "out" / "reports" / "000002-tampered") == tree_bytes(batch_dir / "refused")


def test_a_corrupt_file_is_recorded_with_its_code_and_the_rest_is_scored(batch_dir, capsys) -> None:
    Path("in").mkdir()
    shutil.copy(FIXTURES / "example.json", "in/a-good.json")
    Path("in/b-corrupt.json").write_bytes(b'{"schema": "curator-bundle-v1", "run": ')

    assert main(["batch", "in", "--out-dir", "out"]) == 3

    good, corrupt = read_summary(batch_dir / "out")["bundles"]
    assert good["outcome"] == "selected"
    assert corrupt["source"] == {"file": "in/b-corrupt.json", "line": None}
    assert corrupt["outcome"] == "error"
    assert (corrupt["run"], corrupt["selected"]) == (None, [])
    assert corrupt["error"]["code"] == "input.malformed_json"
    assert corrupt["error"]["pointer"] == ""
    assert corrupt["error"]["message"].startswith("input.malformed_json at '': Expecting value")
    written = batch_dir / "out" / corrupt["output"]
    assert sorted(p.name for p in written.iterdir()) == ["error.json"]
    assert json.loads((written / "error.json").read_bytes()) == corrupt["error"]
    assert "evidence-rank: 1 of 2 bundles refused" in capsys.readouterr().err


def test_an_empty_folder_gives_an_empty_summary_and_exit_0(batch_dir, capsys) -> None:
    (batch_dir / "empty" / "nested").mkdir(parents=True)
    (batch_dir / "empty" / "notes.txt").write_text("not a bundle")

    assert main(["batch", "empty", "--out-dir", "out"]) == 0

    summary = read_summary(batch_dir / "out")
    assert summary["bundles"] == []
    assert summary["counts"] == {"bundles": 0, "selected": 0, "no_op": 0, "error": 0}
    assert not (batch_dir / "out" / "reports").exists()
    assert "bundles: 0 · selected 0 · no_op 0 · error 0" in capsys.readouterr().out


def test_a_jsonl_with_one_bad_line_records_that_line_and_scores_the_rest(batch_dir) -> None:
    # Line 2 is blank (skipped), line 3 is not JSON, line 4 ends in CRLF.
    lines = [one_line(SCORED[0]), b"  ", b'{"schema": "curator-bundle-v1",,}', one_line(SCORED[1]) + b"\r"]
    Path("stream.jsonl").write_bytes(b"\n".join(lines))

    assert main(["batch", "stream.jsonl", "--out-dir", "out"]) == 3

    entries = read_summary(batch_dir / "out")["bundles"]
    assert [e["source"] for e in entries] == [{"file": "stream.jsonl", "line": n} for n in (1, 3, 4)]
    assert [e["outcome"] for e in entries] == ["selected", "error", "selected"]
    assert [e["output"] for e in entries] == [f"reports/00000{i}-stream-L{n}" for i, n in ((1, 1), (2, 3), (3, 4))]
    bad = entries[1]["error"]
    assert (bad["code"], bad["pointer"]) == ("input.malformed_json", "")
    for entry, case in ((entries[0], SCORED[0]), (entries[2], SCORED[1])):
        report = batch_dir / "out" / entry["output"] / "report.json"
        assert report.read_bytes() == (PARITY / case / "expected.report.json").read_bytes()


def test_a_schema_error_on_a_jsonl_line_names_its_pointer(batch_dir) -> None:
    doc = parse_json((FIXTURES / "example.json").read_bytes())
    del doc["memory"]
    Path("one.jsonl").write_bytes(one_line(SCORED[0]) + b"\n" + orjson.dumps(doc) + b"\n")

    assert main(["batch", "one.jsonl", "--out-dir", "out"]) == 3

    bad = read_summary(batch_dir / "out")["bundles"][1]
    assert bad["source"] == {"file": "one.jsonl", "line": 2}
    assert bad["error"]["code"] == "input.schema"
    assert bad["error"]["pointer"] == "/memory"


def test_one_worker_and_two_workers_write_the_same_bytes(batch_dir, capsys) -> None:
    paths = write_mixed_batch(batch_dir)

    assert main(["batch", *paths, "--out-dir", "one", "--workers", "1"]) == 3
    table_one = capsys.readouterr().out
    assert main(["batch", *paths, "--out-dir", "two", "--workers", "2"]) == 3
    table_two = capsys.readouterr().out

    one, two = tree_bytes(batch_dir / "one"), tree_bytes(batch_dir / "two")
    assert one == two
    assert table_one == table_two
    # 6 + 4 files in the folder, 3 good lines and 1 bad line, the lone file.
    assert read_summary(batch_dir / "one")["counts"] == {"bundles": 11, "selected": 6, "no_op": 2, "error": 3}
    assert len([name for name in one if name.endswith("/error.json")]) == 3


def test_the_summary_table_lists_the_refused_bundles_then_the_totals(batch_dir, capsys) -> None:
    # As a linter does: 308 bundles print what needs a look, not 308 rows (issue 35).
    paths = write_mixed_batch(batch_dir)

    main(["batch", *paths, "--out-dir", "out"])

    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["source", "outcome", "selected", "/", "error"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:-3]}
    assert rows["in/cases/087-input-frozen-digest-mismatch-random.json"] == ["error", "input.frozen_digest_mismatch"]
    assert rows["in/stream.jsonl:3"] == ["error", "input.malformed_json"]
    assert [outcome for outcome, *_ in rows.values()] == ["error"] * 3
    assert lines[-2:] == [
        "bundles: 11 · selected 6 · no_op 2 · error 3",
        "8 scored bundles not listed; -v lists every bundle",
    ]


def test_the_summary_table_lists_every_bundle_under_v(batch_dir, capsys) -> None:
    paths = write_mixed_batch(batch_dir)

    main(["batch", *paths, "--out-dir", "out", "-v", "--log-format", "json"])

    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["source", "outcome", "selected", "/", "error"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:-2]}
    assert rows["in/cases/001-basic-accepted-selected.json"] == ["selected", "p-env-9"]
    assert rows["in/cases/004-no-op-all-rejected-or-deferred.json"] == ["no_op", "-"]
    assert rows["in/cases/087-input-frozen-digest-mismatch-random.json"] == ["error", "input.frozen_digest_mismatch"]
    assert rows["in/stream.jsonl:3"] == ["error", "input.malformed_json"]
    assert len(rows) == 11
    assert lines[-1] == "bundles: 11 · selected 6 · no_op 2 · error 3"


def test_a_batch_with_nothing_refused_prints_the_totals_alone(batch_dir, capsys) -> None:
    shutil.copy(FIXTURES / "example.json", "example.json")

    assert main(["batch", "example.json", "--out-dir", "out"]) == 0

    out = capsys.readouterr().out
    assert out == "bundles: 1 · selected 1 · no_op 0 · error 0\n1 scored bundle not listed; -v lists every bundle\n"


def test_a_malformed_jsonl_line_is_placed_at_its_line_of_the_stream(batch_dir, capsys) -> None:
    Path("in.jsonl").write_bytes(
        orjson.dumps(parse_json((FIXTURES / "example.json").read_bytes())) + b'\n{"schema": }\n'
    )

    assert main(["batch", "in.jsonl", "--out-dir", "out"]) == 3

    assert "in.jsonl:2  error    input.malformed_json" in capsys.readouterr().out  # the file and its line
    (entry,) = [e for e in read_summary(batch_dir / "out")["bundles"] if e["error"] is not None]
    assert entry["source"] == {"file": "in.jsonl", "line": 2}
    assert entry["error"]["message"] == "input.malformed_json at '': Expecting value at line 2 column 12"
    error = json.loads((batch_dir / "out" / entry["output"] / "error.json").read_bytes())
    assert error["message"] == entry["error"]["message"]


def test_a_path_that_does_not_exist_is_a_usage_error_and_nothing_is_scored(batch_dir, capsys) -> None:
    shutil.copy(FIXTURES / "example.json", "example.json")

    assert main(["batch", "example.json", "missing.jsonl", "--out-dir", "out"]) == 2

    err = capsys.readouterr().err
    assert err == "evidence-rank: usage.unreadable: cannot read 'missing.jsonl': no such file or folder\n"
    assert [p.name for p in (batch_dir / "out").iterdir()] == [LOCK_NAME]  # the folder's lock, nothing else


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_file_gone_after_listing_stops_the_batch_with_a_usage_error_and_no_summary(
    batch_dir, capsys, workers: str
) -> None:
    Path("in").mkdir()
    for name in ("a", "c"):
        shutil.copy(FIXTURES / "example.json", f"in/{name}.json")
    Path("in/b.json").symlink_to("gone.json")  # listed, then not there to read

    assert main(["batch", "in", "--out-dir", "out", "--workers", workers]) == 2

    err = capsys.readouterr().err
    assert err == "evidence-rank: usage.unreadable: cannot read 'in/b.json': No such file or directory\n"
    assert not (batch_dir / "out" / "summary.json").exists()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_folder_that_cannot_be_written_is_a_usage_error_whichever_process_writes_it(
    batch_dir, capsys, workers: str
) -> None:
    Path("in").mkdir()
    for name in ("a", "b", "c", "d", "e"):
        shutil.copy(FIXTURES / "example.json", f"in/{name}.json")
    Path("out/reports").mkdir(parents=True)
    Path("out/reports/000001-in_a").write_bytes(b"")  # a file where the first folder goes (the pool scores it)

    assert main(["batch", "in", "--out-dir", "out", "--workers", workers]) == 2

    err = capsys.readouterr().err
    assert err.startswith("evidence-rank: usage.unwritable: cannot ")
    assert "'out/reports/000001-in_a/" in err
    assert "Traceback" not in err
    assert not (batch_dir / "out" / "summary.json").exists()


def test_the_out_dir_inside_an_input_folder_is_never_read_back(batch_dir) -> None:
    Path("in").mkdir()
    shutil.copy(FIXTURES / "example.json", "in/example.json")

    assert main(["batch", "in", "--out-dir", "in/out"]) == 0
    assert main(["batch", "in", "--out-dir", "in/out"]) == 0

    assert read_summary(batch_dir / "in" / "out")["counts"]["bundles"] == 1


def test_a_bundle_that_is_now_refused_leaves_no_stale_report(batch_dir) -> None:
    shutil.copy(FIXTURES / "example.json", "bundle.json")
    assert main(["batch", "bundle.json", "--out-dir", "out"]) == 0
    Path("bundle.json").write_bytes(b"\xff")

    assert main(["batch", "bundle.json", "--out-dir", "out"]) == 3

    folder = batch_dir / "out" / "reports" / "000001-bundle"
    assert sorted(p.name for p in folder.iterdir()) == ["error.json"]


def test_standard_input_is_read_as_a_jsonl_stream(tmp_path) -> None:
    stream = one_line(SCORED[0]) + b"\nnot json\n"
    done = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "batch", "-", "--out-dir", str(tmp_path / "out")],
        input=stream,
        capture_output=True,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 3, done.stderr
    entries = read_summary(tmp_path / "out")["bundles"]
    assert [(e["source"], e["outcome"]) for e in entries] == [
        ({"file": "-", "line": 1}, "selected"),
        ({"file": "-", "line": 2}, "error"),
    ]
    assert [e["output"] for e in entries] == ["reports/000001-stdin-L1", "reports/000002-stdin-L2"]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_file_url_is_read_through_fsspec_with_the_same_reports(batch_dir, workers: str) -> None:
    paths = write_mixed_batch(batch_dir)
    url = (batch_dir / "in").as_uri()

    assert main(["batch", url, "--out-dir", "by-url", "--workers", workers]) == 3
    assert main(["batch", paths[0], "--out-dir", "by-path"]) == 3

    by_url, by_path = read_summary(batch_dir / "by-url"), read_summary(batch_dir / "by-path")
    assert by_url["bundles"][0]["source"]["file"] == f"{url}/cases/001-basic-accepted-selected.json"
    assert [e["outcome"] for e in by_url["bundles"]] == [e["outcome"] for e in by_path["bundles"]]
    assert tree_bytes(batch_dir / "by-url" / "reports") == tree_bytes(batch_dir / "by-path" / "reports")


def test_a_scheduler_without_the_dask_engine_is_a_usage_error(batch_dir, capsys) -> None:
    shutil.copy(FIXTURES / "example.json", "example.json")

    assert main(["batch", "example.json", "--out-dir", "out", "--scheduler", "tcp://127.0.0.1:8786"]) == 2

    assert capsys.readouterr().err == "evidence-rank: usage.invalid_option: --scheduler needs --engine dask\n"


def test_the_dask_engine_without_dask_installed_is_a_usage_error_with_advice(batch_dir, capsys, monkeypatch) -> None:
    shutil.copy(FIXTURES / "example.json", "example.json")
    monkeypatch.setitem(sys.modules, "ranking.integrations.dask_engine", None)  # as if the extra were missing

    assert main(["batch", "example.json", "--out-dir", "out", "--engine", "dask"]) == 2

    assert capsys.readouterr().err == (
        "evidence-rank: usage.missing_extra: --engine dask needs Dask, an optional extra: "
        "pip install 'evidence-rank[dask]'\n"
    )


def test_a_zero_worker_count_is_refused_by_the_command_line(capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["batch", "x.json", "--out-dir", "out", "--workers", "0"])
    assert exited.value.code == 2
    assert "expected a whole number >= 1, got '0'" in capsys.readouterr().err


class _LineOnly(io.BytesIO):
    def read(self, *args: object) -> bytes:
        raise AssertionError("a JSONL file must be read line by line, never whole")


def test_a_jsonl_file_is_read_line_by_line_and_lazily() -> None:
    stream = _LineOnly(b"first\n\nthird\r\n")
    sources = iter_sources([Input("s.jsonl", True, lambda: stream)])

    first = next(sources)
    assert (first[0].label, first[1]) == ("s.jsonl:1", b"first")
    assert stream.tell() == len(b"first\n")
    assert [(s.label, raw) for s, raw in sources] == [("s.jsonl:3", b"third")]
