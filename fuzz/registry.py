"""Every target by name, and the seeded inputs the short run gives them."""

from __future__ import annotations

import random
from collections.abc import Iterator

from fuzz.cli import CLI_TARGETS
from fuzz.ledger import LEDGER_TARGETS
from fuzz.mutate import decode, encode, mutate_bytes, mutate_case
from fuzz.seeds import Case, seed_cases, signed_case
from fuzz.targets import LIBRARY_TARGETS, Target

__all__ = ["TARGETS", "generated_cases"]

TARGETS: dict[str, Target] = {**LIBRARY_TARGETS, **CLI_TARGETS, **LEDGER_TARGETS}


def generated_cases(name: str, count: int, *, seed: str = "issue-13") -> Iterator[Case]:
    """``count`` mutants of the seed corpus for target ``name``, the same ones on every run:
    each one to three mutations, structure level (re-sealed) or byte level."""
    slots = TARGETS[name].slots
    rng = random.Random(f"{seed}/{name}")
    seeds = [case for _, case in seed_cases()]
    if "signature" in slots:
        seeds = [signed_case(case) for case in seeds]
    for _ in range(count):
        case = rng.choice(seeds)
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.75:
                case = mutate_case(case, slots, rng)
            else:
                case = decode(mutate_bytes(encode(case, slots), rng), slots)
        yield case
