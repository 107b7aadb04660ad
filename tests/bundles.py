"""Small bundles for the rule tests, built from ``fixtures/example.json`` and resealed.

The example holds two materializations of acme/api, a complete trace (task-101) and
a partial one (task-117, 22 steps, verified up to 18), evidence ev-1 (tr-101-1,
step 3, deterministic, Makefile), ev-4 (tr-117-1, step 9, deterministic, no path)
and ev-7 (tr-117-1, step 12, self_assessment), lessons les-3 (ev-1, ev-4) and
les-5 (ev-7), memory version 7 with ``style.imports`` and ``ci.timeout``, and
the applicable ``repo.contributing``. :data:`PROPOSAL` is its ``p-make-test``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from curator_io import Bundle, canon, digest, load_bundle, parse_json
from curator_io.config import DEFAULT_CONFIG, Config
from curator_io.sealing import seal_bundle
from tests.conftest import FIXTURES
from validator.closure import Cited, check_closure
from validator.context import Context, make_context
from validator.proposal import Proposal, check_structure
from validator.support import SupportFacts, check_support

EXAMPLE: dict[str, Any] = parse_json((FIXTURES / "example.json").read_bytes())
PROPOSAL: dict[str, Any] = EXAMPLE["proposals"][0]
MEMORY = {i["key"]: i for i in EXAMPLE["memory"]["instructions"]}

Edit = Callable[[dict[str, Any]], None]


def proposal(**members: Any) -> dict[str, Any]:
    """``p-make-test`` with ``members`` replaced."""
    return {**copy.deepcopy(PROPOSAL), **members}


def bundle_of(*proposals: dict[str, Any], edit: Edit | None = None, after_sealing: Edit | None = None) -> Bundle:
    """The example with these proposals, ``edit`` applied, every seal remade; then
    ``after_sealing`` applied and only the bundle's own seal remade (to break an artifact's)."""
    doc = copy.deepcopy(EXAMPLE)
    doc["proposals"] = list(proposals)
    if edit is not None:
        edit(doc)
    doc = seal_bundle(doc)
    if after_sealing is not None:
        after_sealing(doc)
        doc["frozen"]["digest"] = digest({k: v for k, v in doc.items() if k != "frozen"})
    return load_bundle(canon(doc))


def one(doc: dict[str, Any], kind: str, ident: str) -> dict[str, Any]:
    """The artifact of list ``kind`` with this id."""
    (found,) = [x for x in doc[kind] if x["id"] == ident]
    return found  # type: ignore[no-any-return]


def set_members(kind: str, ident: str, **members: Any) -> Edit:
    """An edit that sets ``members`` on the artifact of list ``kind`` with this id."""

    def edit(doc: dict[str, Any]) -> None:
        one(doc, kind, ident).update(members)

    return edit


def add_lineage(
    doc: dict[str, Any],
    lineage: str,
    *,
    evidence: str,
    signal: str = "deterministic",
    repository: str = "acme/api",
    path: str | None = None,
    status: str = "compatible",
) -> None:
    """One more materialization, trace (complete, 10 steps) and evidence item (step 2) in ``lineage``."""
    doc["materializations"].append(
        {"id": f"mat-{lineage}", "repository": repository, "source_revision": lineage, "status": status}
    )
    doc["traces"].append(
        {
            "id": f"tr-{lineage}",
            "lineage": lineage,
            "materialization": f"mat-{lineage}",
            "steps": 10,
            "completeness": "complete",
            "verified_prefix": 10,
        }
    )
    doc["evidence"].append(
        {
            "id": evidence,
            "trace": f"tr-{lineage}",
            "step": 2,
            "signal": signal,
            "observed_at": "2026-11-25T09:00:00Z",
            "path": path,
            "summary": "",
        }
    )


def context_of(bundle: Bundle, config: Config = DEFAULT_CONFIG) -> tuple[Proposal, Context]:
    """The bundle's first proposal, structurally complete, and the validation context."""
    checked = check_structure(bundle.proposals[0], 0)
    assert isinstance(checked, Proposal), checked
    return checked, make_context(bundle, config)


def closure_of(
    bundle: Bundle, config: Config = DEFAULT_CONFIG
) -> tuple[list[tuple[str, str | None]], list[Cited] | None]:
    p, ctx = context_of(bundle, config)
    return check_closure(p, ctx)


def support_of(bundle: Bundle, config: Config = DEFAULT_CONFIG) -> tuple[list[tuple[str, str | None]], SupportFacts]:
    """§3.5 for the bundle's first proposal, whose references must all resolve."""
    p, ctx = context_of(bundle, config)
    _, cited = check_closure(p, ctx)
    assert cited is not None, "a reference did not resolve: §3.5 does not run"
    return check_support(p, cited, ctx)
