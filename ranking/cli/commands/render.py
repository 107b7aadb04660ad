"""``evidence-rank render``: a self-contained HTML view of a report, or of a batch folder.

    render REPORT [--bundle B] --out run.html
    render --batch DIR --out batch.html

Every report is verified before it is drawn (SPEC §7), so a page never shows a
tampered report as if it were real. A batch's run views are written beside the
batch page, in ``<name>-runs/``, before the page that links to them
(``ranking.running.outputs.write_pages``).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from curator_io.errors import ConfigError, InputError
from curator_io.jsonio import parse_json
from ranking.checking.acceptance import Sources, accept, accept_batch
from ranking.cli.collector import collector_off
from ranking.cli.output import emit
from ranking.cli.targets import refuse_input_as_output
from ranking.running.batch_summary import check_summary_form
from ranking.running.inputs import read_input
from ranking.running.outputs import REPORT, SUMMARY, runs_folder, write_file, write_pages
from ranking.running.outputs.atomic import refuse_folder_name
from ranking.views.html import render_batch, render_report

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "render",
        description="Write one self-contained HTML page (inline CSS and script, no request leaves it): the run "
        "view of REPORT (outcome, counts, every proposal with its score components, reasons as sentences, "
        "supersessions), or with --batch DIR the view of a batch folder (outcomes per bundle, the reason codes "
        "that refuse most, a run view per bundle in OUT's folder under <name>-runs/). The report is verified "
        "first: its SPEC §7 invariants, or with --bundle a byte-for-byte replay (exit 4 when it does not hold).",
    )
    p.add_argument("report", metavar="REPORT", nargs="?", help="an evidence-ranking-v1 report")
    p.add_argument("--bundle", metavar="BUNDLE", help="the report's curator-bundle-v1: replay it, show operations")
    p.add_argument("--batch", metavar="DIR", help="a folder written by evidence-rank batch (DIR/summary.json)")
    p.add_argument("--out", metavar="FILE.html", required=True, help="where to write the page")
    p.set_defaults(run=run)


@collector_off
def run(args: argparse.Namespace) -> int:
    if (args.report is None) == (args.batch is None):
        raise ConfigError("usage.invalid_option", "give either REPORT or --batch DIR, not both or neither")
    if args.batch is not None and args.bundle is not None:
        raise ConfigError("usage.invalid_option", "--bundle renders one report; a batch's reports are checked alone")
    # Imported here, not with the command line: only this command needs Jinja2.
    refuse_folder_name(args.out)  # before Path() drops the slash
    out = Path(args.out)
    if args.batch is None:
        refuse_input_as_output(out, [("REPORT", args.report), ("--bundle", args.bundle)])
        report = read_input(args.report)
        bundle = read_input(args.bundle) if args.bundle else None
        accepted = accept(report, bundle=bundle, sources=Sources(report=args.report, bundle=args.bundle))
        write_file(out, render_report(accepted).encode("utf-8"))
        model = accepted.report
        emit(f"{out}: run view of {model.run} ({model.counts.proposals} proposals, {model.outcome})")
        return 0
    folder = Path(args.batch)
    refuse_input_as_output(out, [("the batch summary", folder / SUMMARY)])
    summary = _read_summary(folder / SUMMARY)
    read = [("a report of the batch", folder / e["output"] / REPORT) for e in summary["bundles"]]
    refuse_input_as_output(out, read)
    scored = [e for e in summary["bundles"] if e["outcome"] != "error"]
    paths = {e["index"]: str(folder / e["output"] / REPORT) for e in scored}
    batch = accept_batch(summary, {index: read_input(path) for index, path in paths.items()}, sources=paths)
    runs = runs_folder(out)
    names = {e["index"]: _page_name(e) for e in summary["bundles"]}
    links = {index: f"{quote(runs.name)}/{quote(names[index])}" for index in batch.reports}
    page = render_batch(batch, links=links)
    views = ((names[index], render_report(accepted).encode("utf-8")) for index, accepted in batch.reports.items())
    write_pages(out, page.encode("utf-8"), views)  # the page last: it links to the run views
    emit(f"{out}: batch view of {summary['counts']['bundles']} bundles; {len(batch.reports)} run views in {runs}/")
    return 0


def _read_summary(path: Path) -> dict[str, Any]:
    raw = read_input(path)
    try:
        doc = parse_json(raw)
    except InputError as e:
        raise e.in_file(str(path)) from e
    try:
        check_summary_form(doc)  # before any member is read: a summary can come from anyone
    except InputError as e:
        raise e.in_file(str(path)) from e
    return doc  # type: ignore[no-any-return]  # checked: a summary object


def _page_name(entry: Mapping[str, Any]) -> str:
    """``000001-acme-api.html``: the bundle's folder name (``ranking.running.batch.output_folder``), which its
    index makes unique; just the index for a folder named otherwise."""
    prefix = f"{entry['index']:06d}"
    name = PurePosixPath(str(entry["output"])).name
    return (name if name.startswith(prefix + "-") else prefix) + ".html"
