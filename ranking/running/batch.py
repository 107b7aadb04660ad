"""Batch scoring: many bundles in, one folder per bundle and a summary out.

    find inputs -> iter sources -> score each (on an engine) -> summary

A *source* is where one bundle came from: a file, or one line of a JSONL file.
Each bundle is scored on its own by :func:`score_one`, which takes bytes and
returns bytes, so the output is the same whatever engine or worker count
produced it. An input error refuses one bundle (SPEC §1, "Input errors") and is
a result like any other, never the end of the batch.

Reading and writing files are the impure parts, kept to the section "File
access" below, to :mod:`ranking.running.batch_inputs` (what each PATH stands for) and
to :mod:`ranking.running.outputs` (the names and order of writes of each bundle's
folder and of the batch folder): folders are listed eagerly (names only), bundles are read lazily, a JSONL file
is read line by line, never whole, and a local engine's workers read each
bundle file and write each bundle's folder where they score it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, cast

from curator_io.canonical import canon, seal
from curator_io.catalogue import SUMMARY_SCHEMA
from curator_io.config import Config
from curator_io.errors import InputError
from curator_io.jsonio import iter_jsonl_lines
from ranking.pipeline import rank_bytes
from ranking.running.batch_inputs import Input, find_inputs
from ranking.running.batch_summary import BATCH_OUTCOMES
from ranking.running.inputs import bounded_lines, read_stream, unreadable
from ranking.running.outputs import ERROR, REPORT, VALIDATION, bundle_folder, write_bundle_files

if TYPE_CHECKING:
    from ranking.ledger.records import Recording

__all__ = [
    "SUMMARY_SCHEMA",
    "BundleSource",
    "Input",
    "Deferred",
    "Raw",
    "BundleResult",
    "find_inputs",
    "iter_sources",
    "score_one",
    "score_item",
    "score_and_write",
    "output_folder",
    "summary_entry",
    "build_summary",
    "render_summary",
]


@dataclass(frozen=True, slots=True)
class BundleSource:
    file: str
    """The path as given on the command line, or joined to the folder it was found in."""
    line: int | None = None
    """1-based line number in a JSONL file; None for a one-document file."""
    name: str | None = None
    """What the bundle's folder is named after (:func:`output_folder`); not in the summary."""

    @property
    def label(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"

    def to_json(self) -> dict[str, str | int | None]:
        return {"file": self.file, "line": self.line}


@dataclass(frozen=True, slots=True)
class Deferred:
    """A one-document file, read by the process that scores it, not by the one that lists inputs.

    A local engine's workers read their own inputs: no bytes pass through a pipe,
    and the process handing out work does not read every file for every worker.
    """

    display: str
    opener: Callable[[], AbstractContextManager[BinaryIO]]
    size: int | None = None
    """The file's size, when the batch's progress counts bytes (:attr:`Input.size`)."""

    def read(self) -> bytes:
        try:
            with self.opener() as stream:
                return read_stream(stream, self.display)
        except OSError as e:
            raise unreadable(self.display, e) from e


Raw = bytes | Deferred
"""A bundle's bytes, or where to read them."""


@dataclass(frozen=True, slots=True)
class BundleResult:
    """What scoring one bundle gives: picklable, bytes ready to write."""

    source: BundleSource
    outcome: str
    """``selected`` or ``no_op`` (SPEC §5.5), or ``error`` when the bundle was refused."""
    run: str | None
    selected: tuple[str, ...]
    error: Mapping[str, str | None] | None
    """``{"code", "pointer", "message"}`` of the input error, as in ``error.json``."""
    files: tuple[tuple[str, bytes], ...]
    """(file name, canonical bytes) for the bundle's folder."""
    recording: Recording | None = None
    """What the ledger stores of the report, made where the bundle was scored when asked for
    (:func:`score_one`'s ``record``, ``batch --ledger``); None otherwise, and for an error."""


# --- File access: the only place this module touches files ------------------------


def iter_sources(inputs: Iterable[Input], *, defer: bool = False) -> Iterator[tuple[BundleSource, Raw]]:
    """Each bundle's source and bytes, lazily: one document, or one JSONL line, at a time.

    With ``defer``, a one-document file is not read here: its bytes are a
    :class:`Deferred`, read where the bundle is scored. A JSONL line is always
    bytes (the stream must be read to find it).
    """
    for item in inputs:
        if defer and not item.jsonl:
            yield BundleSource(item.display, None, item.name), Deferred(item.display, item.opener, item.size)
            continue
        try:
            with item.opener() as stream:
                if not item.jsonl:
                    yield BundleSource(item.display, None, item.name), read_stream(stream, item.display)
                    continue
                for number, line in iter_jsonl_lines(cast("BinaryIO", bounded_lines(stream, item.display))):
                    yield BundleSource(item.display, number, item.name), line
        except OSError as e:
            raise unreadable(item.display, e) from e


# --- Scoring one bundle (pure) ------------------------------------------------------


def score_one(source: BundleSource, raw: bytes, config: Config, record: bool = False) -> BundleResult:
    """The two reports of one bundle, or its input error; the same bytes as ``evidence-rank score``.

    With ``record``, the result also carries its :attr:`~BundleResult.recording`
    (``batch --ledger``): the ledger's rows are derived where the bundle was
    scored, not in the one process that collects results and writes them.
    """
    try:
        result = rank_bytes(raw, config)
    except InputError as e:
        # SPEC §1: an input error refuses this bundle only; it is recorded, not raised.
        error = _in_stream(e, source).to_json()
        return BundleResult(source, "error", None, (), error, ((ERROR, canon(error)),))
    files = ((VALIDATION, result.validation.canonical), (REPORT, result.canonical))
    recording = None
    if record:
        from ranking.ledger.records import recording_of_run  # only with a ledger: the ledger imports sqlite3

        recording = recording_of_run(result, bundle=raw)
    return BundleResult(source, result.outcome, result.validation.run, result.selected, None, files, recording)


def _in_stream(error: InputError, source: BundleSource) -> InputError:
    """A JSONL line's malformed JSON, placed in its stream: the parser saw the line alone, so its
    "line 1" is the line's own, and the detail says the stream's line instead. (Not the file's
    name: a bundle's files depend on its bytes alone, however the file was named, and the
    summary's source and the folder's name say which file it was.)"""
    if source.line is None or error.code != "input.malformed_json":
        return error
    detail = re.sub(r" at line 1 column (\d+)$", rf" at line {source.line} column \1", error.detail)
    return InputError(error.code, detail, pointer=error.pointer)


def score_item(item: tuple[int, BundleSource, Raw], config: Config, record: bool = False) -> BundleResult:
    """:func:`score_one` on one ``(index, source, bytes)`` item, the unit a remote engine maps."""
    return score_one(item[1], _bytes_of(item[2]), config, record)


def score_and_write(
    item: tuple[int, BundleSource, Raw], config: Config, out: Path, record: bool = False
) -> BundleResult:
    """Score one item and write its folder where it was scored; the result without its bytes.

    The unit a local engine maps: each worker writes its own folders, so the
    file-system calls (most of a small bundle's cost in the kernel) run in
    parallel instead of in the one process that collects results.
    """
    index, source, raw = item
    result = score_one(source, _bytes_of(raw), config, record)
    write_bundle_files(out / output_folder(index, source), result.files)
    return replace(result, files=())


def _bytes_of(raw: Raw) -> bytes:
    # An unreadable file stops the batch (exit 2) wherever it is read: a ConfigError,
    # raised in input order by every engine (a pool's worker sends it back).
    return raw.read() if isinstance(raw, Deferred) else raw


# --- Output layout and summary (pure) -------------------------------------------------


def output_folder(index: int, source: BundleSource) -> str:
    """``reports/<index>-<name>[-L<line>]`` (``ranking.running.outputs.bundle_folder``), after the source,
    so a user can find it: its path from the PATH it was found under (the PATH's last part,
    then the path inside a folder)."""
    name = source.name if source.name is not None else Path(source.file).name
    return bundle_folder(index, name, source.line)


def summary_entry(index: int, folder: str, result: BundleResult) -> dict[str, Any]:
    return {
        "index": index,
        "source": result.source.to_json(),
        "run": result.run,
        "outcome": result.outcome,
        "selected": list(result.selected),
        "error": None if result.error is None else dict(result.error),
        "output": folder,
    }


def build_summary(entries: list[dict[str, Any]], config: Config) -> dict[str, Any]:
    """The sealed summary: one entry per bundle, in input order, whatever engine scored them."""
    outcomes = [e["outcome"] for e in entries]
    counts = {"bundles": len(entries), **{name: outcomes.count(name) for name in BATCH_OUTCOMES}}
    return seal({"schema": SUMMARY_SCHEMA, "config": config.to_json(), "counts": counts, "bundles": entries})


def render_summary(summary: Mapping[str, Any], *, every: bool = False) -> list[str]:
    """The totals, under a table of the bundles refused, or of every bundle with ``every``
    (``batch -v``): as a linter does, a batch of thousands shows what needs a look. A row is
    the source, the outcome, the selected ids or the error code; the CLI escapes each line
    as it prints it (a file name can hold any character)."""
    shown = [e for e in summary["bundles"] if every or e["outcome"] == "error"]
    lines = []
    if shown:
        rows = [("source", "outcome", "selected / error")]
        for e in shown:
            source = BundleSource(e["source"]["file"], e["source"]["line"]).label
            detail = e["error"]["code"] if e["error"] is not None else ", ".join(e["selected"]) or "-"
            rows.append((source, e["outcome"], detail))
        widths = [max(len(r[i]) for r in rows) for i in range(2)]
        lines = [f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]}".rstrip() for r in rows]
        lines.append("")
    c = summary["counts"]
    lines.append(f"bundles: {c['bundles']} · selected {c['selected']} · no_op {c['no_op']} · error {c['error']}")
    hidden = len(summary["bundles"]) - len(shown)
    if hidden:
        lines.append(f"{hidden} scored {'bundle' if hidden == 1 else 'bundles'} not listed; -v lists every bundle")
    return lines
