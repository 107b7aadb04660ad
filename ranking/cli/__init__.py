"""The ``evidence-rank`` command line: parse arguments, read bytes, call the
library, write atomically, map the error to an exit code. Nothing else.

Exit codes, the same for every command:
0 ok · 1 gate or verification failed · 2 usage or config error ·
3 input error · 4 tampered or invariant violated.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

import ranking
from curator_io.catalogue import BUNDLE_SCHEMA, REPORT_SCHEMA, VALIDATION_SCHEMA
from curator_io.errors import EvidenceRankError
from ranking.cli import commands
from ranking.cli.commands import add_global_options
from ranking.cli.logs import configure_logging, get_logger
from ranking.cli.output import StdoutUnwritable, detach_stdout, flush_stdout, prepare_streams, say
from ranking.running.inputs import hold_standard_streams

__all__ = ["main"]


def version_line() -> str:
    """The tool's version, and the document formats it reads and writes (versioned apart from it)."""
    return f"evidence-rank {ranking.__version__} (reads {BUNDLE_SCHEMA}; writes {VALIDATION_SCHEMA}, {REPORT_SCHEMA})"


class _Version(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(version_line())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="evidence-rank",
        description="Decide, deterministically and auditably, which curator proposals may be written.",
        epilog="Exit codes: 0 ok, 1 gate or verification failed, 2 usage or config error, "
        "3 input error, 4 tampered or invariant violated. "
        "SPEC §N is a section of docs/SPEC.md, in the repository and the source distribution.",
    )
    parser.add_argument("--version", action=_Version)
    add_global_options(parser, in_command=False)
    parser.add_subparsers(dest="command", required=True, metavar="COMMAND", action=commands.Commands)
    return parser


class _UsageError(Exception):
    """argparse refused the command line (raised by :class:`_Parser` instead of exiting at once)."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser, self.message = parser, message


class _Parser(argparse.ArgumentParser):
    """argparse's parser (and every command's: subparsers are of their parent's class), whose usage
    error :func:`main` reports, so that it can say it in the format asked for too (``gate --format json``).

    No abbreviations, in any command: with them ``--memory`` is taken as ``--memory-after``, and a CI
    config that relies on one breaks, or changes meaning, the day a flag with the same prefix is added.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "allow_abbrev": False})

    def error(self, message: str) -> NoReturn:
        raise _UsageError(self, message)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        # A mistyped command gets the nearest one suggested, as git does (`evidence-rank scroe`).
        if isinstance(action, argparse._SubParsersAction) and value not in action.choices:
            import difflib  # only for this message: not at every command's start-up

            names = list(action.choices)
            near = difflib.get_close_matches(value, names, n=1)
            guess = f"; did you mean {near[0]!r}?" if near else ""
            raise argparse.ArgumentError(None, f"unknown command {value!r}{guess} (choose from {', '.join(names)})")
        super()._check_value(action, value)


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    try:
        return parser.parse_args(argv)
    except _UsageError as e:
        e.parser.print_usage(sys.stderr)
        say(f"{e.parser.prog}: error: {e.message}")
        from ranking.cli.commands.gate import usage_refused

        usage_refused(sys.argv[1:] if argv is None else argv, e.message)
        raise SystemExit(2) from None


class Terminated(BaseException):
    """SIGTERM (CI cancellation, ``timeout``, Kubernetes), raised like Ctrl-C's KeyboardInterrupt
    so that every command's cleanup runs before the process ends with 143."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated


@contextmanager
def _sigterm_raises() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers; an embedding program keeps its own
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    hold_standard_streams()  # first: before anything opens a file (issue 48, finding 3)
    prepare_streams()
    parser = build_parser()
    args = _parse(parser, argv)
    configure_logging(args.log_format, args.verbose)
    try:
        with _sigterm_raises():
            code = int(args.run(args))
            flush_stdout()
            return code
    except EvidenceRankError as e:
        get_logger().info("refused", code=e.code, pointer=e.pointer)
        if isinstance(e, StdoutUnwritable):
            detach_stdout()
        say(f"evidence-rank: {e.line}")  # one line, whatever a file is named
        advice = e.diagnostics()
        if advice:
            say(f"hint: {advice}")
        for note in getattr(e, "__notes__", ()):  # what the command did because of the error
            say(f"note: {note}")
        return e.exit_code
    except KeyboardInterrupt:
        say("evidence-rank: interrupted")
        return 130
    except Terminated:
        say("evidence-rank: terminated")
        return 143
    except BrokenPipeError:
        # The reader went away (`| head`): not an error of ours.
        detach_stdout()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
