"""Issue 50's "gate your own curator" scenario: a curator that picks new keys.

The memory of ``acme/shop`` (version 4) holds ``test.command`` ("Run the tests with pytest.")
and ``deps.setup``; the curator proposes ``deps.install``, a reworded copy of ``deps.setup``,
and ``test.runner`` ("Never run bare pytest; use make test."), which contradicts
``test.command``, under new keys, and replaces ``style.lint``. All three are learned from two
tasks and selected; a fourth edit, from one task, is deferred. SPEC sees no duplicate and no
conflict: the keys differ. docs/gate-your-curator.md tells the same story.
"""

from __future__ import annotations

from curator_io import Add, BundleBuilder, Replace, Scope
from curator_io.builder import SealedBundle

SHOP = Scope("repository", "acme/shop")

MEMORY = {
    "style.lint": "Run ruff before committing.",
    "test.command": "Run the tests with pytest.",
    "deps.setup": "Install the dependencies with uv sync before running anything.",
}
DEPS_INSTALL = "Before running anything, run uv sync to install the dependencies."
TEST_RUNNER = "Never run bare pytest; use make test."


def scenario() -> SealedBundle:
    """The bundle, sealed (``run-2026-12-08``)."""
    b = BundleBuilder(memory_version=4, curator="my-curator@0.2", frozen_at="2026-12-08T09:00:00Z")
    for key, text in MEMORY.items():
        b.memory_instruction(key, text, scope=SHOP)
    for n, (task, revision) in enumerate((("task-40", "a1b2c3d"), ("task-44", "e4f5a6b"))):
        b.materialization(f"mat-{n}", repository="acme/shop", source_revision=revision)
        b.trace(f"tr-{n}", lineage=task, materialization=f"mat-{n}", steps=[{"run": "pytest", "exit": 2}, {"ok": 1}])
        b.evidence(
            f"ev-{n}", trace=f"tr-{n}", step=1, signal="deterministic", observed_at=f"2026-12-0{7 + n}T08:00:00Z"
        )
    b.lesson("les-both", text="Seen in both tasks.", evidence=["ev-0", "ev-1"])
    b.lesson("les-one", text="Seen once.", evidence=["ev-1"])
    for pid, op in (
        ("p-deps", Add("deps.install", DEPS_INSTALL)),
        ("p-test-runner", Add("test.runner", TEST_RUNNER)),
        ("p-lint", Replace("style.lint", "Run ruff and mypy before committing.")),
    ):
        b.propose(pid, lesson="les-both", scope=SHOP, confidence=0.9, operations=[op], support=["ev-0", "ev-1"])
    b.propose(
        "p-timeout",
        lesson="les-one",
        scope=SHOP,
        confidence=0.5,
        operations=[Add("ci.timeout", "Give the CI job 20 minutes.")],
        support=["ev-1"],
    )
    return b.build("run-2026-12-08")
