"""The order of writes in each output folder, and what is removed when a run fails.

Each protocol below holds the folder's lock (:func:`locked_folder`) and keeps
one promise at every instant (docs/outputs.md, docs/batch.md, docs/render.md):

- ``score`` (:func:`score_folder`): ``report.json``, if present, is one run's
  whole output beside the validation it names; a run that did not succeed
  leaves none;
- one bundle's folder in a batch (:func:`write_bundle_files`): one outcome,
  never two, never a report beside a validation it does not name;
- ``batch`` (:func:`batch_folder`): ``summary.json``, if present, is one whole
  run's record and names exactly the bundle folders beside it;
- ``render --batch`` (:func:`write_pages`): the page is written after the run
  views it links to.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from curator_io.canonical import canon
from curator_io.errors import ConfigError, EvidenceRankError
from ranking.running.inputs import unreadable
from ranking.running.outputs.lock import locked_folder
from ranking.running.outputs.names import (
    BUNDLE_FILES,
    BUNDLE_FOLDER,
    ERROR,
    REPORT,
    REPORTS,
    SUMMARY,
    VALIDATION,
    runs_folder,
)
from ranking.running.outputs.temporaries import (
    flush_to_disk,
    remove_if_present,
    sweep_leftovers,
    sweep_stale,
    write_file,
)

__all__ = ["ScoreFolder", "score_folder", "write_bundle_files", "BatchFolder", "batch_folder", "write_pages"]


# --- score -----------------------------------------------------------------------------


class ScoreFolder:
    """``score``'s folder while its lock is held: :meth:`write` puts the reports in it."""

    def __init__(self, out: Path) -> None:
        self.out = out

    def write(self, validation: bytes, report: bytes) -> None:
        """Step 3: the validation first: ``report.json`` names it, so it must be there before."""
        write_file(self.out / VALIDATION, validation)
        write_file(self.out / REPORT, report)


@contextlib.contextmanager
def score_folder(
    out: Path,
    *,
    refuse_inputs: Callable[[], None],
    is_input: Callable[[Path], bool],
    waiting: Callable[[str], None] | None = None,
) -> Iterator[ScoreFolder]:
    """Hold ``out`` for one ``score`` run, which computes and writes its reports in the block.

    1. Under the folder's lock, sweep a killed run's temporary files; call
       ``refuse_inputs`` (it raises when an input is one of the files this run
       replaces: before anything is removed, an input is never lost); remove
       ``report.json`` and ``error.json``, before anything that can fail.
    2. The block reads the inputs and computes both reports;
    3. and writes them with :meth:`ScoreFolder.write` (then, with ``--ledger``,
       records the report).
    4. When the block fails, remove ``report.json``, then ``validation.json``
       unless ``is_input`` says it is a file the run reads (``--validation``),
       and write ``error.json`` for an error of ours if it can be written.
    """
    with locked_folder(out, BUNDLE_FILES, waiting=waiting):
        refuse_inputs()
        # 1. Nothing stale may pass for this run's outcome, whatever happens next.
        remove_if_present(out / REPORT)
        remove_if_present(out / ERROR)
        try:
            yield ScoreFolder(out)
        except BaseException as e:
            _clear_after_failure(out, is_input)  # 4.
            if isinstance(e, EvidenceRankError):
                _write_error(out, e)
            raise


def _clear_after_failure(out: Path, is_input: Callable[[Path], bool]) -> None:
    remove_if_present(out / REPORT)  # before its validation: a report never names a missing file
    target = out / VALIDATION
    if is_input(target):
        return  # the file under check is the user's input: never delete it
    remove_if_present(target)


def _write_error(out: Path, e: EvidenceRankError) -> None:
    """``error.json``, when it can be written: on a full disk the run's own error is the one to report."""
    try:
        write_file(out / ERROR, canon(e.to_json()))
    except EvidenceRankError:
        pass  # the folder holds nothing of the run, which the protocol allows


# --- one bundle's folder in a batch ----------------------------------------------------


def write_bundle_files(folder: Path, files: Iterable[tuple[str, bytes]]) -> None:
    """A bundle's files (``(name, bytes)``, in the order given: validation before report),
    atomically but not yet flushed (the batch flushes once, before the summary).

    As ``score`` does: first remove what an earlier run left that could pass for
    this outcome (the other outcome's files, and report.json), then write
    validation.json before the report.json that names it. So the folder never
    holds two outcomes, nor a report beside a validation it does not name.
    """
    files = tuple(files)
    written = {name for name, _ in files}
    for name in BUNDLE_FILES:
        if name not in written or name == REPORT:
            remove_if_present(folder / name)
    for name, data in files:
        write_file(folder / name, data, durable=False, sweep=False)  # a folder of its own, settled by the run


# --- batch -----------------------------------------------------------------------------


class BatchFolder:
    """``batch``'s folder while its lock is held; :meth:`finish` ends the run."""

    def __init__(self, out: Path, earlier: set[str]) -> None:
        self.out = out
        self.earlier = earlier
        """The bundle folders under ``reports/`` before this run wrote: an earlier run's."""

    def finish(self, summary: bytes, outputs: Iterable[str]) -> None:
        """Steps 3 and 4: settle the bundle folders (``outputs``: the summary's ``output``
        members, ``reports/NAME``), flush everything, then write ``summary.json``."""
        self._settle(name.rpartition("/")[2] for name in outputs)
        flush_to_disk()  # every bundle's folder is on disk before the summary that names them
        write_file(self.out / SUMMARY, summary)

    def _settle(self, written: Iterable[str]) -> None:
        """Remove the earlier run's folders this run did not write, and the temporary files a
        killed writer left in those it did. Other names are not ours to touch."""
        mine = set(written)
        for name in sorted(self.earlier):
            folder = self.out / REPORTS / name
            if name in mine:
                sweep_leftovers(folder, BUNDLE_FILES)
                continue
            try:
                shutil.rmtree(folder)
            except OSError as e:
                raise ConfigError("usage.unwritable", f"cannot remove {os.fspath(folder)!r}: {e.strerror or e}") from e


@contextlib.contextmanager
def batch_folder(out: Path, *, waiting: Callable[[str], None] | None = None) -> Iterator[BatchFolder]:
    """Hold ``out`` for one ``batch`` run, which scores every bundle into its folder in the block
    and ends with :meth:`BatchFolder.finish`.

    1. Under the folder's lock, sweep a killed run's temporary summary, and
       remove ``summary.json``, before anything that can fail; note the bundle
       folders an earlier run left.
    2. The block scores each bundle into its folder (:func:`write_bundle_files`);
    3. then :meth:`BatchFolder.finish` removes the earlier run's folders this
       run did not write, and the temporary files a killed writer left in
       those it did;
    4. flushes everything to disk, then writes ``summary.json``.
    """
    with locked_folder(out, (SUMMARY,), waiting=waiting):
        remove_if_present(out / SUMMARY)  # 1. nothing stale may pass for this run's record
        yield BatchFolder(out, _earlier_folders(out))


def _earlier_folders(out: Path) -> set[str]:
    try:
        with os.scandir(out / REPORTS) as entries:
            return {e.name for e in entries if BUNDLE_FOLDER.fullmatch(e.name) and e.is_dir(follow_symlinks=False)}
    except FileNotFoundError:
        return set()
    except OSError as e:
        raise unreadable(os.fspath(out / REPORTS), e) from e


# --- render --batch --------------------------------------------------------------------


def write_pages(page: Path, html: bytes, views: Iterable[tuple[str, bytes]]) -> None:
    """``render --batch``'s files: each run view ``(name, bytes)`` in :func:`runs_folder`, then
    the batch page that links to them, last.

    A killed run's stale temporary files in the runs folder are swept once, not
    once per view; the views are flushed to disk together before the page. A run
    that fails removes the runs folder again if it created it.
    """
    runs = runs_folder(page)
    created = not runs.exists()
    sweep_stale(runs)
    try:
        for name, data in views:
            write_file(runs / name, data, durable=False, sweep=False)
        flush_to_disk()
        write_file(page, html)
    except BaseException:
        if created:  # this run made the folder: a failed run leaves none behind, empty or half written
            shutil.rmtree(runs, ignore_errors=True)
        raise
