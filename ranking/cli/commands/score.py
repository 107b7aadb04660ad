"""``evidence-rank score BUNDLE``: the main job.

The output folder's protocol (docs/outputs.md) is ``ranking.running.outputs.score_folder``:
under the folder's lock, stale outputs are removed before anything that can
fail, this command reads the inputs and computes both reports, writes them
(validation first) and records them with ``--ledger``; when any of that fails,
the folder is cleared and ``error.json`` written if it can be.

So at every instant ``report.json``, if present, is one run's whole output
beside the validation it names, and a run that did not succeed leaves none.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from curator_io.config import Config
from curator_io.errors import ConfigError, EvidenceRankError
from ranking.cli.collector import collector_off
from ranking.cli.commands import PARTS
from ranking.cli.common import load_named_bundle, log_decisions, read_config, read_prose_rules
from ranking.cli.output import emit, say
from ranking.cli.signed import Signed, add_trust_options, read_signed
from ranking.cli.targets import ledger_files, same_file
from ranking.pipeline import Result, result_of
from ranking.running.inputs import read_input
from ranking.running.outputs import BUNDLE_FILES, REPORT, VALIDATION, score_folder
from ranking.views.tables import lookalike_marks, render_lookalike_count, render_outcome, render_table
from validator import validate

if TYPE_CHECKING:
    from ranking.advice.lookalikes import Lookalike
    from ranking.signing.trust import Signer


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "score",
        description="Validate and rank one curator bundle. Writes DIR/validation.json and DIR/report.json "
        "(canonical RFC 8785 bytes, atomically), or DIR/error.json when the bundle is refused. "
        "Exits 0 on any report, no_op included.",
    )
    p.add_argument("bundle", metavar="BUNDLE", help="a curator-bundle-v1 JSON file, or - for standard input")
    p.add_argument(
        "--config", metavar="CONFIG.json", help="ranking config (SPEC §2); defaults apply to members not given"
    )
    p.add_argument("--out-dir", metavar="DIR", default="out", help="where to write the reports (default: out)")
    p.add_argument(
        "--validation",
        metavar="V.json",
        help="score against this earlier validation report; refused (exit 4) unless it is sealed and identical "
        "to the one recomputed from BUNDLE and the config",
    )
    shown = p.add_mutually_exclusive_group()
    shown.add_argument(
        "--summary",
        action="store_true",
        help="print only the outcome line (and the selected edits' look-alikes, counted), not a row per proposal",
    )
    shown.add_argument("-q", "--quiet", action="store_true", help="print nothing; the exit code and files say it all")
    p.add_argument(
        "--ledger",
        metavar="PATH",
        help="record the report in this ledger (docs/ledger.md) and mark edits it has seen refused before",
    )
    p.add_argument(
        "--memory",
        metavar="FILE.md",
        help="a Markdown memory (an AGENTS.md) whose prose's list items the selected edits' look-alikes "
        "are also found among, by line (advice: docs/lookalikes.md)",
    )
    add_trust_options(p, "BUNDLE")
    p.set_defaults(run=run)


@collector_off
def run(args: argparse.Namespace) -> int:
    out = Path(args.out_dir)
    # Every input read first, once: a path that cannot be read (a typo) leaves the last run's reports alone.
    inputs = _read(args)
    refuse = partial(_refuse_own_outputs, args, out)  # before anything is removed: an input is never lost
    checked = partial(_is_checked, args.validation)
    had = (out / REPORT).is_file()
    try:
        with score_folder(out, refuse_inputs=refuse, is_input=checked, waiting=say) as folder:
            result, signer, lookalikes = _score(args, inputs)
            folder.write(result.validation.canonical, result.canonical)
            marks = PARTS["score", "ledger"](args.ledger, result, signer, inputs.bundle) if args.ledger else None
    except EvidenceRankError as e:
        if had and not (out / REPORT).exists():  # said only when it is so: a refusal may remove nothing
            e.add_note(f"the earlier {out / REPORT} was removed: a run that fails leaves no report")
        raise
    log_decisions(result.report, bundle=args.bundle)
    signed = [] if signer is None else [f"signed by {signer.shown}"]
    advice = render_lookalike_count(lookalikes)
    if args.summary:
        emit([render_outcome(result.report), *advice, *signed])
    elif not args.quiet:
        marks = _joined(marks or {}, lookalike_marks(lookalikes))
        emit([*render_table(result.report, marks, fingerprints=args.verbose > 0), *advice, *signed])
    return 0


def _joined(*marks: Mapping[str, str]) -> dict[str, str]:
    """A proposal's marks, the ledger's first."""
    out: dict[str, str] = {}
    for each in marks:
        for pid, mark in each.items():
            out[pid] = f"{out[pid]} · {mark}" if pid in out else mark
    return out


class _Inputs(NamedTuple):  # not a dataclass, which costs start-up to build (bench/RESULTS.md, issue 48)
    config: Config
    signed: Signed
    validation: bytes | None
    bundle: bytes
    prose: tuple[tuple[int, str], ...] = ()


def _read(args: argparse.Namespace) -> _Inputs:
    """Every input, through the reader; a usage error (exit 2) here touches no output."""
    config = read_config(args.config)
    signed = read_signed(args, args.bundle)
    validation = read_input(args.validation) if args.validation else None
    return _Inputs(config, signed, validation, read_input(args.bundle), read_prose_rules(args.memory))


def _score(args: argparse.Namespace, inputs: _Inputs) -> tuple[Result, Signer | None, tuple[Lookalike, ...]]:
    config, signed, raw = inputs.config, inputs.signed, inputs.bundle
    if inputs.validation is None and signed.trust is None:
        bundle, signer = load_named_bundle(raw, args.bundle), None
        validation = validate(bundle, config=config)
    else:
        bundle, signer, validation = PARTS["score", "accepted"](args, config, signed, inputs.validation, raw)
    if args.quiet:
        del bundle  # ranking needs only the validation: a large bundle is freed before the reports are built
        return result_of(validation), signer, ()
    result = result_of(validation)
    lookalikes: tuple[Lookalike, ...] = PARTS["score", "lookalikes"](bundle, validation, result.selected, inputs.prose)
    return result, signer, lookalikes


def _refuse_own_outputs(args: argparse.Namespace, out: Path) -> None:
    """An input that is one of the files this run replaces would be lost: refuse it first.

    (``--validation DIR/validation.json`` is fine: it is read before it is replaced,
    and kept when the run fails.)
    """
    given = [("BUNDLE", args.bundle), ("--config", args.config), ("--validation", args.validation)]
    given += [("--trust", args.trust), ("--signature", args.signature)]
    if args.ledger:
        given += [("--ledger", path) for _, path in ledger_files(args.ledger)]
    for what, path in given:
        if path is None or path == "-":
            continue
        for name in BUNDLE_FILES:
            if same_file(out / name, path) and not (what == "--validation" and name == VALIDATION):
                raise ConfigError(
                    "usage.invalid_option",
                    f"{what} {path!r} is {name} in --out-dir, which this run replaces: copy it elsewhere first "
                    "or choose another --out-dir",
                )


def _is_checked(given: str | None, path: Path) -> bool:
    """Whether ``path`` is the ``--validation`` file under check: the user's input, never deleted."""
    return given is not None and same_file(path, given)
