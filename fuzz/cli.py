"""The command-line targets: ``ranking.cli.main([...])`` in-process, on files in a fresh folder.

The property (README, "Exit codes"): an exit code in {0, 1, 2, 3, 4}, 1 only
where a command documents it; no traceback; on an error exactly one line
``evidence-rank: [FILE: ]CODE at 'POINTER': detail`` on stderr, optionally a
``hint:`` line, whose code exits as its family does and whose pointer names a
place in FILE (or, without one, in the file the code is about).
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from curator_io.errors import EvidenceRankError
from curator_io.jsonio import parse_json
from fuzz.prop import CODES, Violation, check_pointer, exit_code_of
from fuzz.seeds import Case
from fuzz.targets import Target
from ranking.cli import main

__all__ = ["CLI_TARGETS", "run_main"]

_LINE = re.compile(
    r"evidence-rank: (?:(?P<source>/\S+): )?(?P<code>[a-z_]+\.[a-z_]+)"
    r"(?: at (?P<pointer>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"))?: "
)
#: Without a file named, the slot whose document an error's code is about.
_SLOT_OF_FAMILY = {"input": "bundle", "config": "config", "report": "report", "invariant": "report", "policy": "report"}
_SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def run_main(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` with stdout and stderr captured as bytes streams, as a pipe would take them."""
    out, err = io.TextIOWrapper(io.BytesIO(), "utf-8"), io.TextIOWrapper(io.BytesIO(), "utf-8")
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(argv)
    finally:
        sys.stdout, sys.stderr = saved
    out.flush(), err.flush()
    return code, out.buffer.getvalue().decode("utf-8", "replace"), err.buffer.getvalue().decode("utf-8", "replace")


class _Run:
    """One case's files in a fresh folder, and the check of a command's outcome."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.dir = Path(tempfile.mkdtemp(prefix="fuzz-", dir=_SCRATCH))
        self.paths: dict[str, str] = {}
        #: Every file the command was given, by path: what a pointer in an error line points into.
        self.files: dict[str, bytes] = {}
        for slot, data in case.items():
            self.write(slot, self.dir / f"{slot}.json", data)

    def write(self, slot: str, path: Path, data: bytes) -> None:
        path.write_bytes(data)
        self.paths[slot] = str(path)
        self.files[str(path)] = data

    def path(self, slot: str) -> str:
        """The slot's file; an empty file when the case does not give it."""
        if slot not in self.paths:
            self.write(slot, self.dir / f"{slot}.json", b"")
        return self.paths[slot]

    def raw_of(self, source: str | None, code: str) -> bytes | None:
        if source is not None:
            if source not in self.files:
                raise Violation(f"{code} names a file the command was not given: {source}")
            return self.files[source]
        slot = "validation" if code == "validation.tampered" else _SLOT_OF_FAMILY.get(code.partition(".")[0])
        return self.files.get(self.paths[slot]) if slot in self.paths else None

    def check(self, rc: int, err: str, *, may_fail: bool = False) -> tuple[str, str | None] | None:
        """The code and pointer of the error line, when the command refused."""
        if rc not in (0, 1, 2, 3, 4) or (rc == 1 and not may_fail):
            raise Violation(f"exit code {rc}")
        if "Traceback" in err:
            raise Violation("a traceback on stderr")
        lines = err.split("\n")
        lines = lines[:-1] if lines[-1] == "" else lines
        if rc == 0 or (rc == 1 and not lines):  # a gate's or seal --check's findings are on stdout
            if lines:
                raise Violation(f"exit {rc} with stderr {err[:200]!r}")
            return None
        if not 1 <= len(lines) <= 2 or (len(lines) == 2 and not lines[1].startswith("hint: ")):
            raise Violation(f"exit {rc}: stderr is not one error line (and a hint): {err[:300]!r}")
        m = _LINE.match(lines[0])
        if m is None:
            raise Violation(f"exit {rc}: not an error line: {lines[0][:200]!r}")
        code = m["code"]
        if code not in CODES:
            raise Violation(f"unknown code {code!r}")
        if exit_code_of(code) != rc:
            raise Violation(f"{code} exits {rc}, its family exits {exit_code_of(code)}")
        pointer = ast.literal_eval(m["pointer"]) if m["pointer"] else None
        check_pointer(pointer, code, self.raw_of(m["source"], code))
        return code, pointer

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def _cli(build: Callable[[_Run], list[str]], *, may_fail: Callable[[list[str]], bool] = lambda argv: False):
    def run(case: Case) -> None:
        r = _Run(case)
        try:
            argv = build(r)
            rc, _, err = run_main(argv)
            if argv[0] == "batch" and rc in (0, 3):
                _check_batch(r.dir / "out", rc, err)
                return
            refused = r.check(rc, err, may_fail=may_fail(argv))
            if argv[0] == "score":
                _check_score_folder(r.dir / "out", rc, refused)
        finally:
            r.close()

    return run


def _options(r: _Run, *pairs: tuple[str, str]) -> list[str]:
    return [a for flag, slot in pairs if slot in r.case for a in (flag, r.path(slot))]


def _check_score_folder(out: Path, rc: int, refused: tuple[str, str | None] | None) -> None:
    if rc == 0 and not (out / "report.json").is_file():
        raise Violation("score exited 0 without report.json")
    if refused is not None and not refused[0].startswith("usage."):
        error = json.loads((out / "error.json").read_bytes())
        if (error["code"], error["pointer"]) != refused:
            raise Violation(f"error.json says {error['code']} at {error['pointer']!r}, stderr {refused}")


_REFUSED = re.compile(r"evidence-rank: [0-9]+ of [0-9]+ bundles refused; see \S+\n")


def _check_batch(out: Path, rc: int, err: str) -> None:
    """Exit 0, or 3 and one line; every refused bundle is recorded with an input code and a pointer into
    its own line."""
    if "Traceback" in err or (err if rc == 0 else _REFUSED.fullmatch(err) is None):
        raise Violation(f"batch exit {rc} with stderr {err[:300]!r}")
    summary = json.loads((out / "summary.json").read_bytes())
    for entry in summary["bundles"]:
        error = entry["error"]
        if error is None:
            continue
        if not error["code"].startswith("input.") or error["code"] not in CODES:
            raise Violation(f"batch records {error['code']}")
        source = entry["source"]
        data = Path(source["file"]).read_bytes()
        if source["line"] is not None:
            data = data.split(b"\n")[source["line"] - 1].removesuffix(b"\r")
        check_pointer(error["pointer"], error["code"], data)


def _one_line(raw: bytes) -> bytes:
    """A bundle as one JSONL line: compacted when it parses, else its bytes without line breaks."""
    try:
        return json.dumps(parse_json(raw), ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    except (EvidenceRankError, ValueError, RecursionError):
        return raw.replace(b"\n", b" ")


def _batch(r: _Run) -> list[str]:
    folder = r.dir / "in"
    folder.mkdir()
    raw = r.case.get("bundle", b"")
    r.write("bundle-a", folder / "a.json", raw)
    r.write("bundle-b", folder / "b.jsonl", _one_line(raw) + b"\n\n" + _one_line(raw)[::-1] + b"\r\n")
    return ["batch", str(folder), "--out-dir", str(r.dir / "out"), *_options(r, ("--config", "config"))]


def _explain(r: _Run) -> list[str]:
    pid = "@0"
    try:
        doc = parse_json(r.case.get("report", b""))
        entries = doc.get("proposals") if type(doc) is dict else None
        ids = [e.get("id") for e in entries if type(e) is dict] if type(entries) is list else []
        ids = [i for i in ids if type(i) is str and i and not i.startswith("-")]
        if ids:
            pid = ids[len(r.case.get("report", b"")) % len(ids)]
    except EvidenceRankError:
        pass
    return ["explain", r.path("report"), pid, *_options(r, ("--bundle", "bundle"))]


def _gate(r: _Run) -> list[str]:
    fmt = ("text", "json", "github")[len(r.case.get("memory", b"")) % 3]
    # The memory as the base too, half the time: a base_mismatch, or (a no_op) the comparison.
    base = ["--memory-before", r.path("memory")] if len(r.case.get("bundle", b"")) % 2 else ["--skip-base-check"]
    return [
        "gate", "--bundle", r.path("bundle"), "--report", r.path("report"),
        "--memory-after", r.path("memory"), *base, "--format", fmt,
    ]  # fmt: skip


def _seal(r: _Run) -> list[str]:
    return ["seal", r.path("bundle"), *(["--check"] if len(r.case.get("bundle", b"")) % 2 else [])]


CLI_TARGETS = {
    "cli-score": Target(
        ("bundle", "config", "validation"),
        _cli(
            lambda r: (
                ["score", r.path("bundle"), "--out-dir", str(r.dir / "out")]
                + _options(r, ("--config", "config"), ("--validation", "validation"))
            )
        ),
    ),
    "cli-validate": Target(
        ("bundle", "config"),
        _cli(
            lambda r: [
                "validate",
                r.path("bundle"),
                "--out",
                str(r.dir / "v.json"),
                *_options(r, ("--config", "config")),
            ]
        ),
    ),
    "cli-verify": Target(
        ("report", "bundle", "config"),
        _cli(
            lambda r: ["verify", r.path("report"), *_options(r, ("--bundle", "bundle"), ("--config", "config"))],
            may_fail=lambda argv: "--config" in argv,  # the pinned policy: policy.config_mismatch, exit 1
        ),
    ),
    "cli-explain": Target(("report", "bundle"), _cli(_explain)),
    "cli-apply": Target(
        ("bundle", "report"),
        _cli(lambda r: ["apply", r.path("bundle"), r.path("report"), "--out", str(r.dir / "m.json")]),
    ),
    "cli-gate": Target(("memory", "bundle", "report"), _cli(_gate, may_fail=lambda argv: True)),
    "cli-seal": Target(("bundle",), _cli(_seal, may_fail=lambda argv: "--check" in argv)),
    "cli-batch": Target(("bundle", "config"), _cli(_batch)),
}
