"""``batch --glob/--exclude``: which files of a folder are bundles; and the bundle
folders named after their source, so a user can find them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ranking.cli import main
from ranking.running.batch import BundleSource, output_folder
from tests.conftest import PARITY
from tests.ranking.running.batch_support import EXAMPLE, example_line, read_summary

CASES = ("001-basic-accepted-selected", "002-mixed-dispositions", "004-no-op-all-rejected-or-deferred")


def sources(out: Path) -> list[str]:
    return [e["source"]["file"] for e in read_summary(out)["bundles"]]


@pytest.fixture
def cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Parity case folders as they ship: bundle.json beside expected.*.json."""
    monkeypatch.chdir(tmp_path)
    for case in CASES:
        shutil.copytree(PARITY / case, tmp_path / "cases" / case)
    return tmp_path / "cases"


def test_a_folder_of_cases_takes_every_json_without_a_glob(cases) -> None:
    # The default: 3 bundles and 9 expected.*.json that are not bundles.
    assert main(["batch", "cases", "--out-dir", "out"]) == 3

    assert read_summary(Path("out"))["counts"]["bundles"] == 12


def test_a_glob_without_a_slash_matches_a_files_name_at_any_depth(cases) -> None:
    assert main(["batch", "cases", "--glob", "bundle.json", "--out-dir", "out"]) == 0

    assert sources(Path("out")) == [f"cases/{case}/bundle.json" for case in CASES]
    assert [e["output"] for e in read_summary(Path("out"))["bundles"]] == [
        "reports/000001-cases_001-basic-accepted-selected_bundle",
        "reports/000002-cases_002-mixed-dispositions_bundle",
        "reports/000003-cases_004-no-op-all-rejected-or-deferred_bundle",
    ]


def test_excludes_drop_files_by_name_and_whole_folders(cases) -> None:
    argv = ["batch", "cases", "--exclude", "expected*.json", "--exclude", "002-mixed-dispositions/"]

    assert main([*argv, "--out-dir", "out"]) == 0

    assert sources(Path("out")) == [f"cases/{case}/bundle.json" for case in CASES if not case.startswith("002")]


@pytest.mark.parametrize(
    ("pattern", "taken"),
    [
        ("*/bundle.json", CASES),  # with a slash: the path inside the folder, * stops at /
        ("bundle.json", CASES),
        ("**/bundle.json", CASES),
        ("00[12]-*/bundle.json", CASES[:2]),
        ("cases/*/bundle.json", ()),  # the path inside the folder does not start with the folder's name
        ("*.json", CASES),  # no slash: the name, so the expected.*.json too
    ],
)
def test_a_glob_with_a_slash_matches_the_path_inside_the_folder(cases, pattern: str, taken: tuple[str, ...]) -> None:
    assert main(["batch", "cases", "--glob", pattern, "--exclude", "expected.*", "--out-dir", "out"]) in (0, 3)

    assert sources(Path("out")) == [f"cases/{case}/bundle.json" for case in taken]


def test_several_globs_take_a_file_that_matches_any(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("in/deep/er").mkdir(parents=True)
    shutil.copy(EXAMPLE, "in/a.bundle")
    shutil.copy(EXAMPLE, "in/deep/er/b.json")
    Path("in/deep/s.jsonl").write_bytes(example_line() + b"\n")

    assert main(["batch", "in", "--glob", "*.bundle", "--glob", "deep/**/*.json*", "--out-dir", "out"]) == 0

    assert [e["output"] for e in read_summary(Path("out"))["bundles"]] == [
        "reports/000001-in_a",
        "reports/000002-in_deep_er_b",
        "reports/000003-in_deep_s-L1",
    ]


def test_a_file_given_as_a_path_is_read_whatever_the_glob(cases) -> None:
    shutil.copy(EXAMPLE, "lone.txt")

    assert main(["batch", "lone.txt", "cases", "--glob", "bundle.json", "--out-dir", "out"]) == 0

    assert sources(Path("out"))[0] == "lone.txt"
    assert read_summary(Path("out"))["bundles"][0]["output"] == "reports/000001-lone"


def test_a_file_url_folder_takes_the_same_files_and_names_as_its_path(cases) -> None:
    argv = ["--glob", "bundle.json", "--exclude", "004-*"]
    assert main(["batch", cases.as_uri(), *argv, "--out-dir", "by-url"]) == 0
    assert main(["batch", "cases", *argv, "--out-dir", "by-path"]) == 0

    by_url, by_path = read_summary(Path("by-url")), read_summary(Path("by-path"))
    assert [e["output"] for e in by_url["bundles"]] == [e["output"] for e in by_path["bundles"]]
    assert len(by_url["bundles"]) == 2


@pytest.mark.parametrize("option", ["--glob", "--exclude"])
def test_an_empty_pattern_is_refused_by_the_command_line(option: str, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["batch", "x", "--out-dir", "out", option, ""])
    assert exited.value.code == 2
    assert "expected a pattern such as '*.json'" in capsys.readouterr().err


LONG = "x/" + "a" * 100 + "/tail.json"


@pytest.mark.parametrize(
    ("name", "line", "folder"),
    [
        ("cases/001/bundle.json", None, "000007-cases_001_bundle"),
        ("nightly.jsonl", 12, "000007-nightly-L12"),
        ("stdin", 3, "000007-stdin-L3"),
        ("fd63", 1, "000007-fd63-L1"),
        ("in/.hidden.json", None, "000007-in_.hidden"),
        (".hidden.json", None, "000007-hidden"),  # never a hidden folder
        ("in/caf\\xe9 \u00e9t\u00e9.json", None, "000007-in_caf_xe9_t"),
        (LONG, None, "000007-" + "a" * 59 + "_tail"),  # the last 64 characters: the file's own name says most
        ("in/.json", None, "000007-in_.json"),  # a dotfile has no suffix
        ("!!!.json", None, "000007-bundle"),
    ],
)
def test_a_bundles_folder_is_named_after_its_source_safely(name: str, line: int | None, folder: str) -> None:
    assert output_folder(7, BundleSource(f"/given/{name}", line, name)) == f"reports/{folder}"


def test_a_source_without_a_name_is_named_after_its_files_stem() -> None:
    assert output_folder(7, BundleSource("old/style.json")) == "reports/000007-style"
