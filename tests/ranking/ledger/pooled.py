"""Runs of a curator for the pool's tests: bundles built with :class:`curator_io.BundleBuilder`,
each task one lineage, ranked by the real pipeline and recorded with their bundle.

Every run's memory holds ``test.command`` (unless given another text) in acme/api. A task is one
materialization, one complete trace of 5 steps and one ``deterministic`` evidence item at step 1
about ``tests/test_orders.py``; ids are the same in every run (``m-1``, ``tr-1``, ``ev-1``, then
``-2``...), so that carrying them into the next run must keep them apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from curator_io import BundleBuilder, SealedBundle
from curator_io.builder import Add, Operation, Replace
from curator_io.models import Scope
from ranking.ledger import Ledger
from ranking.ledger.curator import record_run
from ranking.pipeline import Result, rank

REPO = "acme/api"
SCOPE = Scope("path", REPO, "tests/test_orders.py")
RETRY = Add("test.retry", "Retry the order tests once when they time out.")
LESSON = "les-orders"
COMMAND = "Run the tests with make test."


def builder(run: int, *, command: str = COMMAND, version: int = 7) -> BundleBuilder:
    b = BundleBuilder(memory_version=version, curator="scripted@1", frozen_at=f"2026-12-{run:02d}T10:00:00Z")
    b.memory_instruction("test.command", command, scope=Scope("repository", REPO))
    return b


def task(b: BundleBuilder, n: int, lineage: str, *, day: int = 1) -> str:
    """One task of lineage ``lineage`` filed as ``m-n``, ``tr-n``, ``ev-n``; the evidence id."""
    b.materialization(f"m-{n}", repository=REPO, source_revision=f"rev-{lineage}")
    b.trace(f"tr-{n}", lineage=lineage, materialization=f"m-{n}", steps=5)
    b.evidence(
        f"ev-{n}",
        trace=f"tr-{n}",
        step=1,
        signal="deterministic",
        observed_at=f"2026-12-{day:02d}T09:00:00Z",
        path="tests/test_orders.py",
        summary=f"the order tests timed out in {lineage}",
    )
    return f"ev-{n}"


def proposed(
    b: BundleBuilder, lineages: Sequence[str], *, ident: str = "p-retry", operations: Sequence[Operation] = (RETRY,)
) -> None:
    """The lesson and a proposal of ``operations`` citing one task per lineage."""
    evidence = [task(b, n, lineage) for n, lineage in enumerate(lineages, start=1)]
    b.lesson(LESSON, text="The order tests time out now and then.", evidence=evidence)
    b.propose(ident, lesson=LESSON, scope=SCOPE, confidence=0.8, operations=list(operations), support=evidence)


def run_of(b: BundleBuilder, run: str) -> tuple[SealedBundle, Result]:
    sealed = b.build(run)
    return sealed, rank(sealed.bundle)


def recorded(ledger: Path, b: BundleBuilder, run: str) -> Result:
    """Build ``run``, rank it and record it in ``ledger`` with its bundle, as ``score --ledger`` does."""
    sealed, result = run_of(b, run)
    with Ledger.open(ledger) as opened:
        record_run(opened, result, bundle=sealed.canonical)
    return result


def disposition(result: Result, proposal: str) -> str:
    (entry,) = [e for e in result.report["proposals"] if e["id"] == proposal]
    return str(entry["disposition"])


def replace_command(text: str) -> Replace:
    return Replace("test.command", text)
