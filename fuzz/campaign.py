"""One target under atheris (libFuzzer): ``python -m fuzz.campaign TARGET [libFuzzer options] [CORPUS]``.

The library is instrumented for coverage before anything imports it. Most
mutations are libFuzzer's own (byte level), the rest (30%) ``fuzz.mutate``'s
structure-level ones, re-sealed. A run that breaks the property does not stop
the campaign: its input and traceback are kept once per signature under
``$FUZZ_FINDINGS/TARGET/`` (default ``out/fuzz/findings``), and the campaign goes on.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import sys
import traceback
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["curator_io", "validator", "ranking"]):
    import curator_io  # noqa: F401
    import ranking  # noqa: F401
    import validator  # noqa: F401
    from fuzz.mutate import decode, encode, mutate_case
    from fuzz.prop import Violation
    from fuzz.registry import TARGETS

_HERE = Path(__file__).resolve().parent
#: How often a mutation is a structure-level one (the rest are libFuzzer's, far cheaper per input).
_STRUCTURE = {"json": 0.1, "config": 0.3}


def signature(error: BaseException) -> str:
    """What tells two findings apart: the violated rule, or where the exception was raised."""
    if isinstance(error, Violation):
        # The rule, without the input's own text: "CODE: what is wrong" before any detail.
        rule = ": ".join(str(error).split(": ")[:2]).split("'")[0].split('"')[0]
        return "Violation: " + re.sub(r"[0-9]+", "_", rule)[:100]
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "site-packages" not in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    return f"{type(error).__name__} at {where}"


def main() -> None:
    name = sys.argv[1]
    target = TARGETS[name]
    findings = Path(os.environ.get("FUZZ_FINDINGS", _HERE.parent / "out" / "fuzz" / "findings")) / name
    seen: dict[str, int] = {}

    def one_input(data: bytes) -> None:
        try:
            target.run(decode(data, target.slots))
        except (Exception, SystemExit) as e:  # noqa: BLE001 (a fuzzer records whatever escapes)
            sig = signature(e)
            seen[sig] = seen.get(sig, 0) + 1
            if seen[sig] == 1:
                findings.mkdir(parents=True, exist_ok=True)
                stem = hashlib.sha256(sig.encode()).hexdigest()[:12]
                (findings / f"{stem}.input").write_bytes(data)
                (findings / f"{stem}.txt").write_text(sig + "\n\n" + "".join(traceback.format_exception(e)))
                print(f"FINDING {name}: {sig}", file=sys.stderr, flush=True)

    def mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if rng.random() >= _STRUCTURE.get(name, 0.3):
            return atheris.Mutate(data, max_size)
        out = encode(mutate_case(decode(data, target.slots), target.slots, rng), target.slots)
        return out if len(out) <= max_size else atheris.Mutate(data, max_size)

    atheris.Setup([sys.argv[0], *sys.argv[2:]], one_input, custom_mutator=mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
