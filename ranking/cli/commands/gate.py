"""``evidence-rank gate``: fail CI when a memory write is not what the selection permits (SPEC §8),
when the bundle was not curated against the base's memory, or when the report was not ranked
with the pinned policy (``ranking.checking.policy``).

The steps, in order; each refusal comes before any later file is read:

1. the command line: ``--memory-before`` or an explicit ``--skip-base-check``;
2. the pinned policy and the trust file (usage errors, exit 2);
3. the bundle, and its signature under ``--trust`` (exit 3, 4);
4. the base: the bundle's ``memory`` must be the base's (``base_mismatch``);
5. the report: replayed from the bundle (exit 4), its config pinned (``config_mismatch``);
6. memory-after, compared with the memory the selection permits, unless 4 or 5 found something.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import os
from collections.abc import Sequence

from curator_io import grammar as g
from curator_io.canonical import canon
from curator_io.errors import ConfigError, EvidenceRankError, InputError
from curator_io.jsonio import parse_json
from curator_io.report_model import ranking_report_of
from ranking.checking.apply import apply_selection
from ranking.checking.gate import UNCHECKED, GateResult, base_mismatch, compare_memory, policy_result, selected_edits
from ranking.checking.policy import config_mismatches
from ranking.checking.verification import replay_report
from ranking.cli.collector import collector_off
from ranking.cli.common import read_bundle, read_config, read_report
from ranking.cli.output import emit, write_stdout
from ranking.cli.signed import add_trust_options, check_signed, read_trust
from ranking.running.inputs import read_if_present, read_input
from ranking.views.gate import (
    escape_data,
    escape_markdown,
    escape_property,
    render_github,
    render_json,
    render_step_summary,
    render_text,
)
from ranking.views.positions import position_of

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "gate",
        description="Compare the memory a Writer produced with the memory the selection permits (SPEC §8). "
        "Exits 1 and lists every instruction added, changed or removed that the selection does not account "
        "for, and every selected edit that is missing. MEMORY is a memory object: "
        '{"version": INT, "instructions": [...]}. '
        "The bundle must have been curated against the base's memory (--memory-before): otherwise a "
        "base_mismatch finding. The report must have been ranked with the pinned policy (--config, default "
        "the SPEC §2 defaults): each config member that differs is a config_mismatch finding. After either, "
        "MEMORY is not compared.",
    )
    p.add_argument("--bundle", required=True, metavar="BUNDLE", help="the curator-bundle-v1 JSON file")
    p.add_argument("--report", required=True, metavar="REPORT", help="the evidence-ranking-v1 report of BUNDLE")
    p.add_argument("--memory-after", required=True, metavar="MEMORY", help="the memory object the Writer produced")
    p.add_argument(
        "--memory-before",
        metavar="BASE",
        help="the memory object on the base branch, the one the change is applied to: the bundle's memory must "
        "be exactly it, so an old signed bundle cannot roll memory back. Required unless --skip-base-check",
    )
    p.add_argument(
        "--skip-base-check",
        action="store_true",
        help="do not check the bundle's memory against the base (a local check, such as pre-commit, that has no "
        "base): every run says so, and a pass then says nothing about rollback",
    )
    p.add_argument(
        "--config",
        metavar="POLICY",
        help="the pinned ranking policy, a config file (default: the SPEC §2 defaults). Keep it where the change "
        "being gated cannot edit it unnoticed",
    )
    p.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="text (default); json (canonical JSON); github (::error annotations, and a table appended to "
        "$GITHUB_STEP_SUMMARY when set)",
    )
    p.add_argument(
        "--html",
        metavar="PATH_OR_URL",
        help="with --format github: link the step summary to this run view (made by evidence-rank render), "
        "e.g. the URL or path of an uploaded artifact",
    )
    add_trust_options(p, "BUNDLE (the report is then accepted only as the replay derives it from the signed BUNDLE)")
    p.set_defaults(run=run)


@collector_off
def run(args: argparse.Namespace) -> int:
    try:
        return _gate(args)
    except EvidenceRankError as e:
        # A CI step reads stdout: a refusal is a verdict too, in the format asked for.
        if args.format == "json":
            write_stdout(refusal_json(e.to_json(), e.source, e.exit_code))
        elif args.format == "github":
            where = f"file={escape_property(e.source)},{_line_of(e.source, e.pointer)}" if e.source else ""
            title = escape_property(f"evidence-rank gate: {e.code}")
            emit(f"::error {where}title={title}::{escape_data(g.printable(e.message))}")
            _append_summary(os.environ.get("GITHUB_STEP_SUMMARY"), _error_summary(e))
        raise


def _line_of(path: str, pointer: str | None) -> str:
    """``line=L,col=C,`` of the place a refusal points at in ``path``, when the file can be read
    and the pointer followed; else nothing (an annotation on the file as a whole)."""
    if pointer is None:
        return ""
    try:
        raw = read_if_present(path)
    except ConfigError:
        return ""
    found = None if raw is None else position_of(raw.decode("utf-8", "replace"), pointer)
    return "" if found is None else f"line={found[0]},col={found[1]},"


def refusal_json(error: dict[str, str | None], source: str | None, exit_code: int) -> bytes:
    """``{"passed": false, "error": {...}}``: one JSON document, whatever the values hold. A
    file name that is not UTF-8 (surrogate escapes) is shown escaped (``\\udcff``), as I-JSON
    has no way to carry it."""
    shown = {name: None if value is None else g.printable(value) for name, value in error.items()}
    file = None if source is None else g.printable(source)
    return g.log_safe_json(canon({"passed": False, "error": {**shown, "file": file, "exit_code": exit_code}})) + b"\n"


def _error_summary(e: EvidenceRankError) -> str:
    where = f" in <code>{escape_markdown(e.source)}</code>" if e.source else ""
    heading = f"### evidence-rank gate: refused (exit {e.exit_code})"
    return f"{heading}\n\n<code>{escape_markdown(e.code)}</code>{where}: {escape_markdown(e.detail)}\n"


def usage_refused(argv: Sequence[str], message: str) -> None:
    """After argparse refused the command line (a missing option, say): when it asked for
    ``gate --format json``, the verdict on stdout too, so that stdout is always one JSON document."""
    rest = list(argv)
    while rest and rest[0].startswith("-"):  # the options before the command; --log-format takes a value
        if rest.pop(0) == "--log-format":
            del rest[:1]
    if rest[:1] == ["gate"] and _format_of(rest[1:]) == "json":
        error = ConfigError("usage.invalid_option", message)
        write_stdout(refusal_json(error.to_json(), None, error.exit_code))


class BaseMissing(ConfigError):
    """``gate`` without ``--memory-before`` or ``--skip-base-check``."""

    def diagnostics(self) -> str:
        return (
            "Read the memory from the base branch, e.g. git show origin/main:agent/memory.json > base.json, "
            "and pass --memory-before base.json (docs/gate.md)."
        )


def _unchecked(args: argparse.Namespace) -> tuple[str, ...]:
    """What this run does not check, in the order of ``ranking.checking.gate.UNCHECKED``."""
    skipped = {"signature": args.trust is None, "base": args.skip_base_check}
    return tuple(name for name in UNCHECKED if skipped[name])


def _gate(args: argparse.Namespace) -> int:
    if args.html is not None and args.format != "github":
        raise ConfigError(
            "usage.invalid_option", "--html links the page from the GitHub step summary: use --format github"
        )
    if args.memory_before is None and not args.skip_base_check:  # 1.
        raise BaseMissing(
            "usage.invalid_option",
            "gate needs --memory-before BASE, the memory on the base branch: without it an old signed bundle "
            "could roll memory back (--skip-base-check skips the check, and says so)",
        )
    if args.memory_before is not None and args.skip_base_check:
        raise ConfigError("usage.invalid_option", "--skip-base-check contradicts --memory-before: give one of them")
    pinned = read_config(args.config)  # 2.
    trust = read_trust(args)
    bundle = read_bundle(args.bundle)  # 3.
    # Only the bundle's signature is checked: every path below replays the report from this bundle
    # (SPEC §8), so a report, signed or not, passes only as the signed bundle's own.
    signer = check_signed(trust, args, path=args.bundle, kind="bundle", digest=bundle.input_digest)
    stale, raw = None, {}
    if args.memory_before is not None:  # 4.
        try:
            raw[BASE] = read_input(args.memory_before)
            stale = base_mismatch(bundle.memory, parse_json(raw[BASE]))
        except InputError as e:
            raise e.in_file(args.memory_before) from e
    report = read_report(args.report)  # 5.
    mismatches = config_mismatches(report, pinned)
    if mismatches or stale is not None:
        # A forged report is refused (exit 4) before its policy or its base is discussed.
        replay_report(bundle, report)
        result = policy_result(mismatches, stale)
    else:  # 6.
        permitted = apply_selection(bundle, report)  # report.tampered unless the report is this bundle's
        try:
            raw[AFTER] = read_input(args.memory_after)
            actual = parse_json(raw[AFTER])
            # Cannot fail: apply_selection replayed the report, so it conforms to its schema.
            edits = selected_edits(bundle, ranking_report_of(report))
            result = compare_memory(permitted, actual, bundle.memory, edits)
        except InputError as e:
            raise e.in_file(args.memory_after) from e
    result = dataclasses.replace(result, signer=signer, unchecked=_unchecked(args))
    if args.format == "json":
        write_stdout(render_json(result) + b"\n")
    elif args.format == "github":
        raw[REPORT] = read_input(args.report)
        where = _positions(result, raw)
        emit(render_github(result, args.memory_after, args.report, args.memory_before, positions=where))
        _append_summary(os.environ.get("GITHUB_STEP_SUMMARY"), render_step_summary(result, args.html))
    else:
        emit(render_text(result))
    return 0 if result.passed else 1


AFTER, REPORT, BASE = "memory-after", "report", "memory-before"


def _positions(result: GateResult, raw: dict[str, bytes]) -> dict[tuple[str, str], tuple[int, int]]:
    """(document, pointer) -> (line, column) of each finding, for annotations on the changed line."""
    texts = {name: data.decode("utf-8", "replace") for name, data in raw.items()}
    out = {}
    for f in result.findings:
        found = position_of(texts[f.document], f.pointer) if f.document in texts else None
        if found is not None:
            out[(f.document, f.pointer)] = found
    return out


def _append_summary(path: str | None, markdown: str) -> None:
    """GitHub Actions renders the step summary file as Markdown; other steps append to it too.
    All of ``markdown`` is appended or none of it: a full disk leaves the file as it was."""
    if not path:
        return
    data = markdown.encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            size = os.fstat(fd).st_size
            try:
                if os.write(fd, data) != len(data):  # a short write: the disk filled up
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            except OSError:
                os.ftruncate(fd, size)  # half a table would break the earlier steps' Markdown too
                raise
        finally:
            os.close(fd)
    except OSError as e:
        raise ConfigError("usage.unwritable", f"cannot append to GITHUB_STEP_SUMMARY {path!r}: {e.strerror}") from e


def _format_of(args: Sequence[str]) -> str | None:
    """The last ``--format`` given (``--format json`` or ``--format=json``: no command takes an abbreviation)."""
    found = None
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if name == "--format":
            found = value if eq else (args[i + 1] if i + 1 < len(args) else None)
    return found
