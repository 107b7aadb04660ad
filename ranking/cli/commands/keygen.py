"""``evidence-rank keygen --out KEY [--type ed25519|p256] [--name NAME] [--trust FILE]``: a new signing key.

For tests and first use (docs/provenance.md): the key is written unencrypted,
PKCS#8 PEM, owner-only (0600), atomically, and never over an existing file.
The trust file's line for it goes to stdout.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from curator_io.errors import ConfigError
from ranking.cli.output import StdoutUnwritable, emit, flush_stdout
from ranking.running.inputs import read_input
from ranking.running.outputs import write_file
from ranking.signing.private_keys import generate_private_key, load_private_key
from ranking.signing.trust import parse_trust, signer_fault
from ranking.views.terminal import printable

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "keygen",
        description="Write a new private key to KEY (PKCS#8 PEM, mode 0600; an existing KEY is never replaced) "
        "and print its trust-file line: KEYID PUBLIC-KEY [NAME]. Store the key as the Curator's CI secret; "
        "add the line to the trust file the gate reads.",
    )
    p.add_argument("--out", required=True, metavar="KEY", help="where to write the private key")
    p.add_argument("--type", choices=("ed25519", "p256"), default="ed25519", help="the key type (default: ed25519)")
    p.add_argument("--name", metavar="NAME", help="who the key belongs to, for the trust-file line")
    p.add_argument(
        "--trust",
        metavar="FILE",
        help="the trust file the line will join: refuse a --name it already gives another key (two keys of "
        "one name cannot be told apart in the gate's output; name a rotated key apart, e.g. 'Curator CI 2027')",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.trust is not None and args.name is not None:
        listed = parse_trust(read_input(args.trust), args.trust)
        if args.name in {name for _, name in listed.keys.values()}:
            raise ConfigError(
                "usage.invalid_option",
                f"--name {args.name!r}: the trust file {args.trust!r} already names a key so; give the new key a "
                "name of its own, so that the gate's output tells the two apart",
            )
    pem = generate_private_key(args.type)
    public = load_private_key(pem).public
    if args.name is not None and (fault := signer_fault(public.keyid, args.name)) is not None:
        raise ConfigError("usage.invalid_option", f"--name cannot name a key in a trust file: {fault}")
    line = " ".join(x for x in (public.keyid, public.openssh, args.name) if x)
    # The line must be one every later command reads back as this key and this name.
    (read,) = parse_trust(line.encode("utf-8"), "keygen").keys.items()
    if read != (public.keyid, (public, args.name)):
        raise ConfigError(
            "usage.invalid_option",
            "--name would read back from a trust file changed: a trust file keeps one space "
            "between words, and none before or after",
        )
    if printable(line) != line:
        raise ConfigError(
            "usage.invalid_option", "--name holds text a CI log would act on (##[): the line would print changed"
        )
    write_file(args.out, pem, mode=0o600, replace=False)
    try:
        emit(line)
        flush_stdout()
    except BaseException as e:
        # The key is this run's own (replace=False): without its trust line nobody can trust it,
        # and a rerun would refuse to replace it, so it goes too.
        Path(args.out).unlink(missing_ok=True)
        if isinstance(e, BrokenPipeError):
            # Not the reader's choice to stop reading, as for `score | head`: the line is lost.
            raise StdoutUnwritable(
                "usage.unwritable",
                f"cannot write the trust line to standard output: the reader went away; {args.out} was removed",
                pointer="",
            ) from e
        raise
    return 0
