"""The README and docs/*.md run as written (issue 41: docs that cannot drift).

Every shell and Python block of the README and of docs/*.md (docs/SPEC.md, the specification,
holds none) is run here, or says on the line before its fence why it is not:

- **Run as a reader runs it.** A page's blocks run in order, in one scratch folder per page
  laid out as a clone is (`fixtures/`, `tests/parity/cases/`, `.venv` for `make install`'s
  environment), so a later block reads what an earlier one wrote (`out/report.json`).
  `evidence-rank` and `python` are the environment's. A ```` ```sh ```` block runs as one
  `bash -e -o pipefail` script; a ```` ```python ```` block with `python -c`; a ```` ```yaml ````
  block's `run:` steps (a workflow, or an excerpt of its steps) each as a script, as the
  runner runs them. CI snippets get a fake GitHub runner: `$RUNNER_TEMP` (an empty folder),
  `$GITHUB_BASE_REF` (`main`), `$GITHUB_STEP_SUMMARY` (a file).
- **A block that fails, fails its page**: a non-zero exit, unless `<!-- exits: N -->` says the
  block ends with N (a gate that fails on purpose). Under `bash -e` a block stops at its first
  failing command, so a block marked `exits: 3` fails there.
- **Output shown is output printed.** A ```` ```console ```` block (or a plain one whose first
  line starts with `$ `) is a transcript: each `$ ` line a command (a line ending in `\\`
  continues it), run in a shell of its own, the lines up to the next `$ ` what it prints,
  stdout and stderr as a terminal interleaves them; every command but the last must exit 0.
  A plain block right after a runnable one, introduced by prose ending in "prints:" or
  "shows:", is that block's output. Compared after three normalisations only: trailing
  whitespace, `$RUNNER_TEMP`'s path written `$RUNNER_TEMP`, the scratch folder's path left
  out. In the shown text `…` stands for any text on its line, and a line of `…` alone for any
  lines.
- **What the prose takes for granted** (the reader's inbox, a pull request's checkout) is made
  by `<!-- given: NAME -->`; tests/docs/doc_givens.py holds each given (`; ` separates several).
- **Not run, said so**: `<!-- not run: REASON -->` for a block that installs or builds the
  package, needs a service (a GitHub runner, S3, a Dask scheduler) or a package this project
  does not depend on, runs this suite (`make test`), or is a fragment of code shown elsewhere;
  `<!-- run by tests/PATH.py::test_name -->` for a block another test runs as written.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, PARITY, REPO
from tests.docs.doc_blocks import PAGES, Block, read_blocks, workflow_steps
from tests.docs.doc_givens import BIN, GIVENS

RUNNABLE = {"shell", "transcript", "python", "workflow"}


def _reader_env(tmp: Path) -> dict[str, str]:
    """A reader's environment with the tool on PATH, on a fake GitHub runner."""
    own = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CI"}
    env = {k: v for k, v in os.environ.items() if k not in own and not k.startswith(("GITHUB_", "RUNNER_"))}
    (tmp / "runner-temp").mkdir()
    return {
        **env,
        "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONUNBUFFERED": "1",  # stdout and stderr interleaved as on a terminal
        "PYTHONDONTWRITEBYTECODE": "1",
        "LC_ALL": "C.UTF-8",
        "RUNNER_TEMP": str(tmp / "runner-temp"),
        "GITHUB_BASE_REF": "main",
        "GITHUB_STEP_SUMMARY": str(tmp / "step-summary.md"),
    }


def _clone(tmp: Path) -> Path:
    """A scratch folder laid out as the docs' reader's clone is."""
    folder = tmp / "clone"
    shutil.copytree(FIXTURES, folder / "fixtures")
    shutil.copytree(PARITY, folder / "tests" / "parity" / "cases")
    (folder / ".venv").symlink_to(BIN.parent)
    return folder


def _sh(script: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script]
    return subprocess.run(argv, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _python(code: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = [str(BIN / "python"), "-c", code]
    return subprocess.run(argv, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _as_shown(printed: str, folder: Path, env: dict[str, str]) -> list[str]:
    printed = printed.replace(env["RUNNER_TEMP"], "$RUNNER_TEMP").replace(f"{folder}{os.sep}", "")
    return _lines(printed)


def _lines(text: str) -> list[str]:
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n").split("\n")


def _pattern(shown: list[str]) -> re.Pattern[str]:
    """`…` for any text on its line; a line of `…` alone for any lines."""
    parts = [
        r"(?:[^\n]*\n)*?" if line == "…" else ".*?".join(map(re.escape, line.split("…"))) + r"\n" for line in shown
    ]
    return re.compile("".join(parts))


def _check_output(block: Block, command: str, shown: list[str], printed: list[str]) -> None:
    if _pattern(shown).fullmatch("\n".join(printed) + "\n"):
        return
    diff = "\n".join(difflib.unified_diff(shown, printed, "the page shows", "the command prints", lineterm=""))
    raise AssertionError(f"{block.where}: {command}\n{diff}")


def _check_exit(block: Block, command: str, done: subprocess.CompletedProcess[str], expected: int) -> None:
    if done.returncode != expected:
        raise AssertionError(f"{block.where}: exits {done.returncode}, not {expected}: {command}\n{done.stdout}")


def _commands(block: Block) -> list[tuple[str, list[str]]]:
    """A transcript's commands, each with the lines shown after it."""
    commands: list[tuple[str, list[str]]] = []
    continued = False
    for line in block.text.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif continued:
            commands[-1] = (commands[-1][0] + "\n" + line, [])
        else:
            assert commands, f"{block.where}: a transcript starts with a `$ ` command"
            commands[-1][1].append(line)
        continued = line.endswith("\\")
    return commands


def _run_transcript(block: Block, folder: Path, env: dict[str, str]) -> None:
    commands = _commands(block)
    for i, (command, shown) in enumerate(commands):
        done = _sh(command, folder, env)
        _check_exit(block, command, done, block.exits if i == len(commands) - 1 else 0)
        _check_output(block, command, _lines("\n".join(shown)), _as_shown(done.stdout, folder, env))


def _scripts(block: Block, env: dict[str, str]) -> list[str]:
    """What a shell, Python or workflow block runs, one script after another."""
    if block.kind != "workflow":
        return [block.text]
    scripts = [step.replace("${{ runner.temp }}", env["RUNNER_TEMP"]) for step in workflow_steps(block)]
    assert not any("${{" in s for s in scripts), f"{block.where}: an expression this runner does not know"
    return scripts


def _run_block(block: Block, shown: Block | None, folder: Path, env: dict[str, str]) -> None:
    """Run one runnable block; ``shown`` is the output the page shows after it, if any."""
    if block.kind == "transcript":
        _run_transcript(block, folder, env)
        return
    printed = ""
    for script in _scripts(block, env):
        done = (_python if block.kind == "python" else _sh)(script, folder, env)
        _check_exit(block, script, done, block.exits)
        printed += done.stdout
    if shown is not None:
        _check_output(block, block.text, _lines(shown.text), _as_shown(printed, folder, env))


def run_page(blocks: list[Block], tmp: Path) -> list[Block]:
    """Run a page's blocks in order as its reader would, in a scratch clone under ``tmp``.
    Returns those run."""
    env, folder = _reader_env(tmp), _clone(tmp)
    ran = []
    for i, block in enumerate(blocks):
        if block.kind not in RUNNABLE or "not run" in block.marks or "run by" in block.marks:
            continue
        given_env = dict(env)
        for name in block.givens:
            given_env |= GIVENS[name](folder, given_env)
        after = blocks[i + 1] if i + 1 < len(blocks) else None
        _run_block(block, after if after is not None and after.kind == "output" else None, folder, given_env)
        ran.append(block)
    return ran


@pytest.mark.parametrize("page", PAGES)
def test_every_block_of_the_page_runs_as_written(page: str, tmp_path: Path) -> None:
    run_page(read_blocks(REPO / page, page), tmp_path)


def _wrong_marks(block: Block) -> str | None:
    """What is wrong with a block's marks, or None."""
    marks = block.marks
    if marks and block.kind not in RUNNABLE:
        return f"marks {sorted(marks)} on a block that is not run (its kind: {block.kind})"
    if ("not run" in marks or "run by" in marks) and ({"exits", "given"} & set(marks)):
        return "`exits` or `given` on a block this test does not run"
    if "run by" in marks:
        path, _, test = marks["run by"].partition("::")
        if not path.startswith("tests/") or not (REPO / path).is_file():
            return f"`run by` names no test file: {path}"
        if test and f"def {test}(" not in (REPO / path).read_text("utf-8"):
            return f"`run by`: {path} has no {test}"
    if "exits" in marks and not marks["exits"].isdigit():
        return f"`exits` is a number: {marks['exits']!r}"
    unknown = [name for name in block.givens if name not in GIVENS]
    return f"no given named {unknown} (tests/docs/doc_givens.py has {sorted(GIVENS)})" if unknown else None


def test_every_shell_and_python_block_runs_or_says_why_not() -> None:
    wrong = [f"{b.where}: {why}" for page in PAGES for b in read_blocks(REPO / page, page) if (why := _wrong_marks(b))]
    assert wrong == []


def test_a_mark_is_one_the_test_knows_and_run_by_names_a_test_that_exists(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match=r"^page\.md:2: <!-- skip --> is no mark; the marks are "):
        _page(tmp_path, "<!-- skip -->\n```sh\nmake test\n```\n")
    blocks = _page(
        tmp_path,
        "<!-- run by tests/test_nope.py -->\n```sh\ntrue\n```\n\n"
        "<!-- run by tests/docs/test_doc_blocks.py::test_nope -->\n```python\npass\n```\n\n"
        "<!-- given: a dragon -->\n```sh\ntrue\n```\n\n"
        "<!-- not run: a table -->\n```\n| a |\n```\n",
    )
    assert [_wrong_marks(b) for b in blocks] == [
        "`run by` names no test file: tests/test_nope.py",
        "`run by`: tests/docs/test_doc_blocks.py has no test_nope",
        f"no given named ['a dragon'] (tests/docs/doc_givens.py has {sorted(GIVENS)})",
        "marks ['not run'] on a block that is not run (its kind: other)",
    ]


def _page(tmp_path: Path, markdown: str) -> list[Block]:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "page.md").write_text(markdown, "utf-8")
    return read_blocks(tmp_path / "page.md", "page.md")


_SCORE = "evidence-rank score fixtures/example.json"


@pytest.mark.parametrize(
    ("markdown", "message"),
    [
        pytest.param(
            f"Score it:\n\n```sh\n{_SCORE}\nfalse\n```\n",
            r"^page\.md:3: exits 1, not 0: ",
            id="a block that exits non-zero",
        ),
        pytest.param(
            f"<!-- exits: 1 -->\n```sh\n{_SCORE} --quiet\n```\n",
            r"^page\.md:2: exits 0, not 1: ",
            id="a block said to fail that passes",
        ),
        pytest.param(
            f"<!-- exits: 1 -->\n```sh\n{_SCORE} --quiet --config nope.json\n```\n",
            r"^page\.md:2: exits 2, not 1: ",
            id="a block said to fail that fails otherwise",
        ),
        pytest.param(
            f"```console\n$ {_SCORE} --summary\noutcome: no_op\n```\n",
            r"(?m)^-outcome: no_op\n\+outcome: selected · selected 1 of 3 ",
            id="a transcript showing what the command does not print",
        ),
        pytest.param(
            "```python\nprint('p-make-test')\n```\n\nThis prints:\n\n```\np-sleep-flaky\n```\n",
            r"(?m)^-p-sleep-flaky\n\+p-make-test$",
            id="a block after 'prints:' that is not what the block before prints",
        ),
    ],
)
def test_a_page_fails_where_its_reader_would_see_it_go_wrong(markdown: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match=message):
        run_page(_page(tmp_path, markdown), tmp_path)


def test_an_ellipsis_stands_for_any_text_on_its_line_and_alone_for_any_lines(tmp_path: Path) -> None:
    elided = (
        "```console\n$ evidence-rank score fixtures/example.json --out-dir out\nid  …\n…\noutcome: selected · …\n```\n"
    )
    (ran,) = run_page(_page(tmp_path, elided), tmp_path)
    assert ran.kind == "transcript"


def test_a_later_block_reads_what_an_earlier_one_wrote_in_the_pages_clone(tmp_path: Path) -> None:
    blocks = _page(
        tmp_path,
        "```sh\nevidence-rank score fixtures/example.json --out-dir out --quiet\n```\n\n"
        "```console\n$ evidence-rank verify out/report.json\nout/report.json: invariants hold …\n```\n",
    )
    assert [b.line for b in run_page(blocks, tmp_path)] == [1, 5]
