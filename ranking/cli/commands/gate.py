"""``evidence-rank gate``: fail CI when a memory write is not what the selection permits (SPEC §8),
when the bundle was not curated against the base's memory, or when the report was not ranked
with the pinned policy (``ranking.checking.policy``).

Every input is read once, first, by the reader (:mod:`ranking.running.inputs`); then the
library decides (:func:`ranking.checking.gate.gate`): the report is accepted against the
signed bundle, the pinned policy and the base (:mod:`ranking.checking.acceptance`), and
memory-after is compared with what the selection permits; the verdict, or the refusal, is
shown by :mod:`ranking.views.gate` in the format asked for: a verdict carries where each finding
is in its file, and a refusal's place is found in the bytes already read
(:func:`curator_io.positions.refusal_position`).
This module handles the arguments only.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from curator_io.config import DEFAULT_CONFIG, Config, load_config
from curator_io.errors import ConfigError, EvidenceRankError
from curator_io.jsonio import parse_json
from curator_io.memory import MemoryFile
from curator_io.positions import refusal_position
from ranking.checking.acceptance import Sources
from ranking.checking.findings import MODES
from ranking.checking.gate import GateResult, gate
from ranking.cli.collector import collector_off
from ranking.cli.output import emit, emit_json, say
from ranking.cli.signed import SUFFIX, add_trust_options, check_trust_options, read_signed
from ranking.cli.targets import Named, refuse_input_as_output
from ranking.running.inputs import read_input, read_memory_file
from ranking.views.gate import (
    render_github,
    render_json,
    render_refusal_github,
    render_refusal_json,
    render_refusal_summary,
    render_step_summary,
    render_text,
)

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "gate",
        description="Compare the memory a Writer produced with the memory the selection permits (SPEC §8). "
        "Exits 1 and lists every instruction added, changed or removed that the selection does not account "
        "for, and every selected edit that is missing. MEMORY is a memory object: "
        '{"version": INT, "instructions": [...]}, compared as canonical JSON: apply\'s indented form, its '
        "--canonical bytes, or any JSON with the same value; or a Markdown file (.md: an AGENTS.md, "
        "docs/markdown-memory.md) whose managed section holds it, its prose compared with the base's too. "
        "The bundle must have been curated against the base's memory (--memory-before): otherwise a "
        "base_mismatch finding. The report must have been ranked with the pinned policy (--config, default "
        "the SPEC §2 defaults): each config member that differs is a config_mismatch finding. After either, "
        "MEMORY is not compared. Each instruction MEMORY adds or changes that resembles another one it keeps under "
        "another key is a lookalike warning (docs/lookalikes.md); it fails the gate only with --fail-on-lookalikes.",
    )
    p.add_argument(
        "--bundle", metavar="BUNDLE", help="the curator-bundle-v1 JSON file (a curated change: --mode curated)"
    )
    p.add_argument("--report", metavar="REPORT", help="the evidence-ranking-v1 report of BUNDLE")
    p.add_argument(
        "--mode",
        choices=MODES,
        default="curated",
        help="what is gated: curated (default: a curator's run, BUNDLE and REPORT); person (a Markdown memory "
        "change with no curated run: the managed section must be the base's, byte for byte); adoption (the base "
        "has no section: memory-after's holds list items of the base's prose alone); auto (adoption when the base "
        "has no section, person when the section is the base's, else curated, or person when no BUNDLE and REPORT "
        "are given, so that a changed section is a section_changed finding)",
    )
    p.add_argument(
        "--prose-reviewed-label",
        metavar="LABEL",
        help="in a GitHub pull_request workflow: accept prose changes when this run was started by giving the pull "
        "request LABEL ($GITHUB_EVENT_PATH's event is 'labeled' for LABEL), so that the label holds for the head "
        "commit it was given for and a later push needs it again",
    )
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
        "--allow-prose-changes",
        action="store_true",
        help="accept changes to the prose around a Markdown memory's managed section (a pull request people "
        "wrote): each is still listed, and every run says the prose was not checked",
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
        "--fail-on-lookalikes",
        action="store_true",
        help="fail (exit 1) when an instruction MEMORY adds or changes resembles another one it keeps under another "
        "key (docs/lookalikes.md); without it each look-alike is a warning and the gate passes",
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
    run = _Run(args)
    try:
        return run.gate()
    except EvidenceRankError as e:
        run.refused(e)
        raise


class _Run:
    """One gate run: what it has read (by path, for the place of a refusal), and the step summary
    once it is known not to be one of the inputs."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.seen: dict[str, bytes] = {}
        self.summary: str | None = None

    def refused(self, e: EvidenceRankError) -> None:
        """A CI step reads stdout: a refusal is a verdict too, in the format asked for."""
        if self.args.format == "json":
            emit_json(render_refusal_json(e))
        elif self.args.format == "github":
            emit(render_refusal_github(e, refusal_position(e, self.seen)))
            self.append_summary(render_refusal_summary(e))

    def append_summary(self, markdown: str) -> None:
        """GitHub Actions renders the step summary file as Markdown; other steps append to it too."""
        if self.summary:
            from ranking.running.outputs import append_whole  # only a run on a GitHub runner writes one

            append_whole(self.summary, markdown.encode("utf-8"), name="GITHUB_STEP_SUMMARY")

    def read(self, path: str) -> bytes:
        self.seen[path] = data = read_input(path)
        return data

    def gate(self) -> int:
        return _gate(self)


def usage_refused(argv: Sequence[str], message: str) -> None:
    """After argparse refused the command line (a missing option, say): when it asked for
    ``gate --format json``, the verdict on stdout too, so that stdout is always one JSON document."""
    rest = list(argv)
    while rest and rest[0].startswith("-"):  # the options before the command; --log-format takes a value
        if rest.pop(0) == "--log-format":
            del rest[:1]
    if rest[:1] == ["gate"] and _format_of(rest[1:]) == "json":
        emit_json(render_refusal_json(ConfigError("usage.invalid_option", message)))


class BaseMissing(ConfigError):
    """``gate`` without ``--memory-before`` or ``--skip-base-check``."""

    def diagnostics(self) -> str:
        return (
            # A shallow checkout (actions/checkout's default) has no origin/main: fetch the base first.
            "Read the memory from the base branch, e.g. git fetch --depth=1 origin main && "
            "git show FETCH_HEAD:agent/memory.json > base.json, and pass --memory-before base.json (docs/gate.md)."
        )


def _gate(run: _Run) -> int:
    args = run.args
    if args.html is not None and args.format != "github":
        raise ConfigError(
            "usage.invalid_option", "--html links the page from the GitHub step summary: use --format github"
        )
    if args.memory_before is None and not args.skip_base_check:
        raise BaseMissing(
            "usage.invalid_option",
            "gate needs --memory-before BASE, the memory on the base branch: without it an old signed bundle "
            "could roll memory back (--skip-base-check skips the check, and says so)",
        )
    if args.memory_before is not None and args.skip_base_check:
        raise ConfigError("usage.invalid_option", "--skip-base-check contradicts --memory-before: give one of them")
    _check_mode(args)
    summary = os.environ.get("GITHUB_STEP_SUMMARY") if args.format == "github" else None
    if summary:
        # Appending to an input would change what was gated: refused like any output naming one.
        refuse_input_as_output(summary, _inputs(args), option="GITHUB_STEP_SUMMARY", append=True)
        run.summary = summary
    allow_prose_changes = args.allow_prose_changes or _label_allows(args)
    raw: dict[str, bytes] = {}
    after: MemoryFile | None = None
    base: MemoryFile | None = None
    if args.mode != "curated":
        # Only a change with no curated run, or one that may be, pays for the modes' checks.
        from ranking.checking.uncurated import gate_adoption, gate_mode, gate_person

        raw = {BASE: run.read(args.memory_before), AFTER: run.read(args.memory_after)}
        after, base = read_memory_file(args.memory_after, raw[AFTER]), read_memory_file(args.memory_before, raw[BASE])
        mode = gate_mode(after, base) if args.mode == "auto" else args.mode
        if mode == "curated" and (args.bundle is None or args.report is None):
            mode = "person"  # no curated run to account for the section: section_changed names the change
        if mode != "curated":
            decide = gate_person if mode == "person" else gate_adoption
            checked = decide(
                after, base, allow_prose_changes=allow_prose_changes, fail_on_lookalikes=args.fail_on_lookalikes
            )
            return _shown(run, checked)
    check_trust_options(args)
    raw |= {name: run.read(path) for name, path in _paths(args).items() if path is not None and name not in raw}
    signed = read_signed(args, args.bundle)
    sources = Sources(
        report=args.report,
        bundle=args.bundle,
        signature=signed.where,
        trust=args.trust,
        config=args.config,
        base=args.memory_before,
        memory_after=args.memory_after,
    )
    # Each memory file is read once: --mode auto's, which decided the change is curated, are these.
    if base is None and args.memory_before is not None:
        base = read_memory_file(args.memory_before, raw[BASE])
    result = gate(
        raw[REPORT],
        raw[BUNDLE],
        after or read_memory_file(args.memory_after, raw[AFTER]),
        config=DEFAULT_CONFIG if args.config is None else _policy(raw[CONFIG], args.config),
        trust=signed.trust,
        signature=signed.signature,
        sources=sources,
        allow_prose_changes=allow_prose_changes,
        fail_on_lookalikes=args.fail_on_lookalikes,
        base=base,
    )
    return _shown(run, result)


def _policy(raw: bytes, path: str) -> Config:
    """The pinned policy's file read, or ``config.invalid`` naming it."""
    try:
        return load_config(raw)
    except EvidenceRankError as e:
        raise (e if e.source is not None else e.in_file(path)) from e


def _shown(run: _Run, result: GateResult) -> int:
    """The verdict in the format asked for; the exit code."""
    args = run.args
    if args.format == "json":
        emit_json(render_json(result))
    elif args.format == "github":
        emit(render_github(result, args.memory_after, args.report, args.memory_before))
        run.append_summary(render_step_summary(result, args.html))
    else:
        emit(render_text(result))
    return 0 if result.passed else 1


AFTER, REPORT, BASE, BUNDLE, CONFIG = "memory-after", "report", "memory-before", "bundle", "config"


def _check_mode(args: argparse.Namespace) -> None:
    """What each mode needs: a curated run its bundle and report; the others a base, and no curated run."""
    if args.prose_reviewed_label is not None and args.allow_prose_changes:
        raise ConfigError(
            "usage.invalid_option", "--prose-reviewed-label contradicts --allow-prose-changes: give one of them"
        )
    if args.mode == "curated":
        missing = [name for name, value in (("--bundle", args.bundle), ("--report", args.report)) if value is None]
        if missing:
            raise ConfigError(
                "usage.invalid_option",
                f"gate needs {' and '.join(missing)} for a curated change (--mode curated, the default); a change "
                "with no curated run is --mode person, or auto",
            )
        return
    if args.memory_before is None:
        raise ConfigError("usage.invalid_option", f"--mode {args.mode} compares with the base: give --memory-before")
    if args.mode != "auto" and (args.bundle is not None or args.report is not None):
        raise ConfigError(
            "usage.invalid_option",
            f"--mode {args.mode} gates a change with no curated run: leave out --bundle and --report (or --mode auto)",
        )


def _label_allows(args: argparse.Namespace) -> bool:
    """``--prose-reviewed-label``: whether this run's event gave the label (:mod:`ranking.checking.review_label`)."""
    if args.prose_reviewed_label is None:
        return False
    path = os.environ.get("GITHUB_EVENT_PATH")
    if not path:
        raise ConfigError(
            "usage.invalid_option",
            "--prose-reviewed-label reads the pull request's event, and GITHUB_EVENT_PATH is not set (a GitHub "
            "Actions pull_request workflow sets it)",
        )
    from ranking.checking.review_label import label_decision  # only a run given the label reads the event

    decision = label_decision(parse_json(read_input(path)), args.prose_reviewed_label)
    if decision.line is not None:
        say(decision.line)
    return decision.allowed


def _inputs(args: argparse.Namespace) -> list[Named]:
    """Every file the gate reads, as the command line names it."""
    named: list[Named] = [
        ("--bundle", args.bundle),
        ("--report", args.report),
        ("--memory-after", args.memory_after),
        ("--memory-before", args.memory_before),
        ("--config", args.config),
        ("--trust", args.trust),
        ("--signature", args.signature),
    ]
    if args.trust is not None and args.signature is None and args.bundle is not None:
        named.append(("the signature", args.bundle + SUFFIX))
    return named


def _paths(args: argparse.Namespace) -> dict[str, str | None]:
    """The inputs the gate reads itself, in the order it reads them (the trust file and the
    signature: :func:`~ranking.cli.signed.read_signed`)."""
    return {
        CONFIG: args.config,
        BUNDLE: args.bundle,
        BASE: args.memory_before,
        REPORT: args.report,
        AFTER: args.memory_after,
    }


def _format_of(args: Sequence[str]) -> str | None:
    """The last ``--format`` given (``--format json`` or ``--format=json``: no command takes an abbreviation)."""
    found = None
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if name == "--format":
            found = value if eq else (args[i + 1] if i + 1 < len(args) else None)
    return found
