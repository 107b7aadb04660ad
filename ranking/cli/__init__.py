"""The ``evidence-rank`` command line: parse arguments, read bytes, call the
library, write atomically, map the error to an exit code. Nothing else.

Exit codes, the same for every command:
0 ok · 1 gate or verification failed · 2 usage or config error ·
3 input error · 4 tampered or invariant violated.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import structlog

from curator_io.errors import EvidenceRankError
from ranking.cli import commands
from ranking.cli.logs import configure_logging

__all__ = ["main", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "EXIT_INPUT", "EXIT_TAMPERED"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INPUT, EXIT_TAMPERED = 0, 1, 2, 3, 4


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evidence-rank",
        description="Decide, deterministically and auditably, which curator proposals may be written.",
        epilog="Exit codes: 0 ok, 1 gate or verification failed, 2 usage or config error, "
        "3 input error, 4 tampered or invariant violated.",
    )
    parser.add_argument(
        "--log-format",
        choices=("console", "json"),
        default=None,
        help="log rendering on stderr (default: console on a terminal, json otherwise or when CI is set)",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-v info, -vv debug)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands.ALL:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging(args.log_format, args.verbose)
    try:
        return int(args.run(args))
    except EvidenceRankError as e:
        structlog.get_logger("evidence_rank").info("refused", code=e.code, pointer=e.pointer)
        print(f"evidence-rank: {e.message}", file=sys.stderr)
        advice = e.diagnostics()
        if advice:
            print(f"hint: {advice}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): not an error of ours. Point stdout at
        # devnull so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
