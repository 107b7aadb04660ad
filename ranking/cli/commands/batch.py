"""``evidence-rank batch PATH... --out-dir DIR``: score many bundles, one folder each, and a summary.

Each bundle's files depend on its bytes and the config alone, and summary.json
lists the bundles in input order, so DIR holds the same bytes whatever the
engine (local processes or Dask) and the number of workers. Local workers read
and write their bundles' files themselves; a Dask engine gets bytes and gives
back bytes, which this command writes.

The output folder's protocol (docs/batch.md) is ``ranking.running.outputs.batch_folder``:
under DIR's lock, the earlier summary is removed before anything that can fail;
this command reads the config, lists the inputs and scores each bundle into its
folder (``ranking.running.outputs.write_bundle_files``); then the earlier run's other
folders are removed and, everything flushed to disk, ``summary.json`` written.

So ``summary.json``, if present, is one whole run's record and names exactly
the bundle folders beside it; a run that failed or was interrupted leaves none.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, closing, nullcontext
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from curator_io.canonical import canon
from curator_io.errors import ConfigError
from ranking.cli.collector import collector_off
from ranking.cli.common import read_config
from ranking.cli.logs import get_logger
from ranking.cli.output import emit, say
from ranking.cli.progress import Progress
from ranking.cli.targets import Named, ledger_files, refuse_input_as_output, refuse_input_inside
from ranking.running.batch import (
    BundleResult,
    BundleSource,
    Deferred,
    Input,
    Raw,
    build_summary,
    find_inputs,
    iter_sources,
    output_folder,
    render_summary,
    score_and_write,
    score_item,
    summary_entry,
)
from ranking.running.batch_inputs import Selection
from ranking.running.engines import Engine, ProcessEngine, SerialEngine
from ranking.running.outputs import REPORTS, SUMMARY, batch_folder, write_bundle_files

_DASK_WORKERS = 2


def _positive_int(text: str) -> int:
    # Every refusal is an ArgumentTypeError, so argparse says what was expected
    # (for a ValueError it would print the function's name).
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def max_workers() -> int:
    """The most ``--workers`` a run may ask for: the machine's cores, or 64 on a smaller one. More
    processes than that only wait for a core, and each is forked before the run can be stopped:
    ``--workers 100000`` forked thousands, and a C int overflowed past 2**31."""
    return max(64, os.cpu_count() or 1)


def _worker_count(text: str) -> int:
    value = _positive_int(text)
    if value > max_workers():
        raise argparse.ArgumentTypeError(
            f"expected at most {max_workers()} (this machine's cores, or 64), got {text!r}"
        )
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds > 0, got {text!r}")
    return value


def _pattern(text: str) -> str:
    if not text.strip("/"):
        raise argparse.ArgumentTypeError(f"expected a pattern such as '*.json' or 'cases/**/bundle.json', got {text!r}")
    return text


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "batch",
        description="Score every bundle found in PATH... : files, folders (recursively, *.json and *.jsonl) and "
        "JSONL streams (one bundle per line; '-' is standard input). Writes DIR/reports/<index>-<name>/ "
        "(validation.json and report.json, or error.json) and DIR/summary.json. A refused bundle is recorded "
        "and the batch goes on. Exits 0 when every bundle was scored, 3 when any was refused.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="a bundle file, a JSONL file, a folder, a URL, or -")
    p.add_argument("--out-dir", metavar="DIR", required=True, help="where to write the reports and summary.json")
    p.add_argument("--config", metavar="CONFIG.json", help="ranking config for every bundle (SPEC §2)")
    p.add_argument(
        "--workers",
        metavar="N",
        type=_worker_count,
        default=None,
        help=f"local engine: processes (default 1); dask engine: LocalCluster workers (default {_DASK_WORKERS})",
    )
    p.add_argument("--engine", choices=("local", "dask"), default="local", help="where to score (default: local)")
    p.add_argument("--scheduler", metavar="tcp://HOST:8786", help="dask engine: connect to this scheduler")
    p.add_argument(
        "--connect-timeout",
        metavar="SECONDS",
        type=_positive_float,
        default=10.0,
        help="dask engine: give up connecting to --scheduler after this long (default 10)",
    )
    p.add_argument(
        "--glob",
        metavar="PATTERN",
        action="append",
        type=_pattern,
        help="in a folder, read the files that match (repeatable; default *.json and *.jsonl). A pattern without / "
        "matches a file's name at any depth, one with / its path inside the folder; ** crosses folders",
    )
    p.add_argument(
        "--exclude",
        metavar="PATTERN",
        action="append",
        type=_pattern,
        help="in a folder, skip the files and folders that match (repeatable; patterns as --glob)",
    )
    p.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress on stderr and no table: summary.json says it all"
        + " (the table lists the bundles refused; -v lists every bundle)",
    )
    p.add_argument(
        "--ledger", metavar="PATH", help="record every report written in this ledger, in input order (docs/ledger.md)"
    )
    p.set_defaults(run=run)


@collector_off
def run(args: argparse.Namespace) -> int:
    out = Path(args.out_dir)
    _refuse_own_outputs(args, out)  # before anything is removed: an input is never lost
    with batch_folder(out, waiting=say) as folder:
        summary = _score_all(args, out)
        folder.finish(canon(summary), (e["output"] for e in summary["bundles"]))
    if not args.quiet:
        emit(render_summary(summary, every=args.verbose > 0))
    counts = summary["counts"]
    get_logger().info("batch.done", out_dir=str(out), **counts)
    if counts["error"]:
        say(f"evidence-rank: {counts['error']} of {counts['bundles']} bundles refused; see {out / SUMMARY}")
        return 3
    return 0


def _refuse_own_outputs(args: argparse.Namespace, out: Path) -> None:
    """A file this run reads that is ``summary.json`` or lies under ``reports/`` would be removed:
    refuse it first. (A folder given is scanned without its own output, docs/batch.md.)"""
    named: list[Named] = [("PATH", p) for p in args.paths if os.path.isfile(p)]
    named += [("--config", args.config)] + (ledger_files(args.ledger) if args.ledger else [])
    refuse_input_as_output(out / SUMMARY, named, option="--out-dir")
    refuse_input_inside(out / REPORTS, named, option="--out-dir")
    if args.ledger:
        _refuse_ledger_scanned(args, Selection(args.glob or (), args.exclude or ()))


def _refuse_ledger_scanned(args: argparse.Namespace, select: Selection) -> None:
    """A ledger (or a file SQLite keeps beside it) that a PATH folder's scan takes is an input the
    ledger would be written over: an empty ``in/notes.json`` became a ledger, then a bundle refused."""
    for folder in (p for p in args.paths if os.path.isdir(p)):
        root = os.path.realpath(folder)
        for path in (str(p) for _, p in ledger_files(args.ledger)):
            rel = os.path.relpath(os.path.realpath(path), root).replace(os.sep, "/")
            if rel.startswith("../") or rel == "..":
                continue
            parents = rel.split("/")[:-1]
            if select.takes(rel) and all(select.enters("/".join(parents[: i + 1])) for i in range(len(parents))):
                raise ConfigError(
                    "usage.invalid_option",
                    f"--ledger {path!r} is a file of PATH {folder!r}, which this run reads: writing it "
                    "would replace the input; choose another --ledger, or --exclude it",
                )


def _score_all(args: argparse.Namespace, out: Path) -> dict[str, Any]:
    """Score every bundle into its folder; the summary, not yet written."""
    config = read_config(args.config)
    select = Selection(args.glob or (), args.exclude or ())
    inputs = find_inputs(args.paths, exclude=out, warn=_warn, select=select)
    progress = Progress(sys.stderr, quiet=args.quiet)
    if not any(i.jsonl for i in inputs):
        progress.total = len(inputs)  # else known only once every stream is read to its end,
    elif not args.quiet:
        inputs = _sized(inputs, progress)  # and until then, the share done is counted in bytes
    # A local engine's workers write their own folders; a remote one's results come back as bytes.
    local = args.engine == "local"
    record = bool(args.ledger)  # the ledger's rows are derived where each bundle is scored
    fn = (
        partial(score_and_write, config=config, out=out, record=record)
        if local
        else partial(score_item, config=config, record=record)
    )
    # Local workers read their own files; a remote engine's get the bytes (they may not see our disk).
    sources = iter_sources(inputs, defer=local)
    with _engine(args) as engine:
        results = engine.map(fn, _numbered(sources, progress))
        if not args.ledger:
            entries = _write_all(results, out, progress)
        else:
            from ranking.running.recorder import recorded  # imported when asked for: sqlite3 costs start-up

            # Closed here, whatever stops the batch: the reports it holds are recorded now, not
            # whenever the generator would be collected (after the exit code is decided).
            with closing(recorded(results, args.ledger)) as recording:
                entries = _write_all(recording, out, progress)
    return build_summary(entries, config)


def _numbered(
    sources: Iterable[tuple[BundleSource, Raw]], progress: Progress
) -> Iterator[tuple[int, BundleSource, Raw]]:
    """``(index, source, raw)`` items; the progress learns the total when the last is read."""
    index = 0
    for index, (source, raw) in enumerate(sources, start=1):
        # A JSONL line's bytes and its line break; a file's own size.
        progress.read((raw.size or 0) if isinstance(raw, Deferred) else len(raw) + (source.line is not None))
        yield index, source, raw
    progress.total = index


def _sized(inputs: list[Input], progress: Progress) -> list[Input]:
    """The inputs with their sizes, and the progress told their sum, when every input is a file on
    disk; else as they are (a stream's size is not known before its end)."""
    if any(i.path is None for i in inputs):
        return inputs
    try:
        sized = [replace(i, size=os.stat(i.path).st_size) for i in inputs if i.path is not None]
    except OSError:
        return inputs  # reading it will say what is wrong
    progress.bytes_total = sum(i.size or 0 for i in sized)
    return sized


def _warn(message: str) -> None:
    say(f"evidence-rank: warning: {message}")


def _engine(args: argparse.Namespace) -> AbstractContextManager[Engine]:
    if args.engine == "local":
        if args.scheduler is not None:
            raise ConfigError("usage.invalid_option", "--scheduler needs --engine dask")
        workers = args.workers or 1
        return nullcontext(SerialEngine() if workers == 1 else ProcessEngine(workers))
    if args.scheduler is not None and args.workers is not None:
        raise ConfigError(
            "usage.invalid_option", "--workers sizes a LocalCluster; with --scheduler the cluster decides"
        )
    try:
        # Imported only here: Dask is an optional extra.
        from ranking.integrations.dask_engine import dask_engine
    except ImportError as e:
        raise ConfigError(
            "usage.missing_extra", "--engine dask needs Dask, an optional extra: pip install 'evidence-rank[dask]'"
        ) from e
    return dask_engine(args.scheduler, workers=args.workers or _DASK_WORKERS, connect_timeout=args.connect_timeout)


def _write_all(results: Iterable[BundleResult], out: Path, progress: Progress) -> list[dict[str, Any]]:
    """Collect results in input order, writing the folders a remote engine sent back as bytes;
    the summary entries, in order.

    Files are written atomically but not flushed one by one; the caller
    flushes everything once before it writes summary.json, the record of the
    run, so the summary never names a file that is not on disk.
    """
    log = get_logger()
    entries: list[dict[str, Any]] = []
    with progress:
        for index, result in enumerate(results, start=1):
            folder = output_folder(index, result.source)
            if result.files:
                write_bundle_files(out / folder, result.files)
            if result.error is not None:
                log.info("bundle.refused", source=result.source.label, code=result.error["code"])
            entries.append(summary_entry(index, folder, result))
            progress.update(result)
    return entries
