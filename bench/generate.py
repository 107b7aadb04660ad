"""A seeded generator of large, realistic, sealed ``curator-bundle-v1`` documents.

Each proposal cites about ten evidence items (support and counterevidence)
spread over several traces and lineages, in materializations shared across the
bundle. Most proposals are valid and accepted; the rest are mixed in as a
curator really emits them: duplicates (same fingerprint), conflicts on keys
(another text for a key, or a second replace of a memory instruction), stale
ones, ones citing unknown evidence, quarantined ones, ones with too few
lineages, and a few structurally incomplete ones. Memory holds 50-200
instructions.

The same content can be written in each of ``bench.layouts.LAYOUTS``: canonical,
indented, spec order, reverse order.

    python bench/generate.py 8000 --seed 1 --out bundle.json
    python bench/generate.py 8000 --layout spec --layout reverse --out bundle.json
        # writes bundle-spec.json and bundle-reverse.json
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

# Run as a script from a checkout: the packages sit one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.layouts import LAYOUTS, layout_path, write_layout
from curator_io.canonical import digest
from curator_io.sealing import seal_bundle

__all__ = ["generate_bundle", "KINDS", "VERSION"]

#: Bumped whenever the same (n, seed) would give other bytes, so cached bundles are remade.
VERSION = 2

REPOSITORIES = ("acme/api", "acme/web", "acme/mobile", "data/pipeline", "infra/deploy", "tools/cli")
SIGNALS = ("user", "deterministic", "tool", "observable", "self_assessment")
SIGNAL_ODDS = (1, 6, 5, 3, 2)
WORDS = (
    "build cache config deploy docker env fixture flaky import lint lockfile make migration module "
    "package pipeline pytest queue retry schema seed service snapshot test timeout token vendor worker "
    "database timezone locale coverage release branch review hook format typecheck bundle"
).split()
# A little non-ASCII, as real summaries carry: accents, dashes, CJK, and now and then an emoji.
FLOURISHES = ("", "", "", "", "", " — retried", " (café locale)", " 测试失败", " ✓", " 🙂")

#: (kind, weight): what a proposal is meant to become.
KINDS: tuple[tuple[str, int], ...] = (
    ("accepted", 66),
    ("replace", 6),
    ("duplicate", 7),
    ("conflict", 6),
    ("stale", 4),
    ("unknown_evidence", 3),
    ("quarantined", 3),
    ("few_lineages", 3),
    ("incomplete", 2),
)


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _timestamp(rng: random.Random) -> str:
    day, hour, minute, second = rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    frac = f".{rng.randint(0, 999):03d}" if rng.random() < 0.3 else ""
    return f"2026-11-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{frac}Z"


class _Builder:
    """Accumulates the bundle's artifact lists while proposals are made."""

    def __init__(self, n_proposals: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.n = n_proposals
        self.version = 7 + seed % 50
        self.materializations: dict[str, list[dict[str, Any]]] = {r: [] for r in REPOSITORIES}
        self.bad_materializations: dict[str, dict[str, Any]] = {}
        self.traces: list[dict[str, Any]] = []
        self.evidence: list[dict[str, Any]] = []
        self.lessons: list[dict[str, Any]] = []
        self.proposals: list[Any] = []
        self.accepted: list[dict[str, Any]] = []
        self.lineages = [f"task-{k}" for k in range(max(8, n_proposals // 2))]
        self.memory = self._memory(min(200, 50 + n_proposals // 100))
        self.instructions = [self._instruction(f"repo.rule-{k}", "repository") for k in range(20)]
        self._make_materializations(max(24, n_proposals // 25))

    def _instruction(self, key: str, origin: str) -> dict[str, Any]:
        rng = self.rng
        repo = rng.choice(REPOSITORIES)
        scope = {"level": "global"} if rng.random() < 0.2 else {"level": "repository", "repository": repo}
        text = f"{_text(rng, 6).capitalize()} before {_text(rng, 3)} ({key})."
        return {"key": key, "text": text, "scope": scope, "origin": origin}

    def _memory(self, size: int) -> list[dict[str, Any]]:
        insts = [
            self._instruction(f"mem.{self.rng.choice(WORDS)}-{k}", "curated" if k % 3 else "user") for k in range(size)
        ]
        # Sealed now: replace/remove operations quote each one's digest.
        return [{**i, "digest": digest(i)} for i in insts]

    def _make_materializations(self, count: int) -> None:
        rng = self.rng
        for k in range(count):
            repo = REPOSITORIES[k % len(REPOSITORIES)]
            rev = f"{rng.getrandbits(160):040x}" if rng.random() < 0.3 else f"{rng.getrandbits(48):012x}"
            mat = {
                "id": f"mat-{repo.split('/')[1]}-{k}",
                "repository": repo,
                "source_revision": rev,
                "status": "compatible",
            }
            self.materializations[repo].append(mat)
        for repo in REPOSITORIES:
            status = rng.choice(("incompatible", "invalid"))
            rev = f"{rng.getrandbits(48):012x}"
            self.bad_materializations[repo] = {
                "id": f"mat-{repo.split('/')[1]}-{status}",
                "repository": repo,
                "source_revision": rev,
                "status": status,
            }

    def _trace(self, pid: int, k: int, lineage: str, mat: dict[str, Any]) -> dict[str, Any]:
        rng = self.rng
        steps = rng.randint(8, 60)
        partial = rng.random() < 0.25
        prefix = rng.randint(steps // 2, steps) if partial else steps
        trace = {
            "id": f"tr-{pid}-{k}",
            "lineage": lineage,
            "materialization": mat["id"],
            "steps": steps,
            "completeness": "partial" if partial else "complete",
            "verified_prefix": prefix,
        }
        self.traces.append(trace)
        return trace

    def _evidence(self, pid: int, j: int, trace: dict[str, Any], path: str | None, signal: str) -> str:
        rng = self.rng
        limit = trace["verified_prefix"] if trace["verified_prefix"] > 0 else trace["steps"]
        ev = {
            "id": f"ev-{pid}-{j}",
            "trace": trace["id"],
            "step": rng.randrange(0, limit),
            "signal": signal,
            "observed_at": _timestamp(rng),
            "path": path,
            "summary": f"{_text(rng, rng.randint(6, 16))}: exit {rng.randint(0, 2)}{rng.choice(FLOURISHES)}",
        }
        if rng.random() < 0.05:
            ev["tags"] = [rng.choice(WORDS), rng.randint(1, 9)]  # unknown members count in digests
        self.evidence.append(ev)
        return ev["id"]

    def _cite(
        self, pid: int, repo: str, n_lineages: int, scope_path: str | None, quarantine: bool
    ) -> tuple[list[str], list[str]]:
        """About ten evidence items: ~8 in support over ``n_lineages`` lineages, 0-3 against."""
        rng = self.rng
        support: list[str] = []
        contra: list[str] = []
        lineages = rng.sample(self.lineages, n_lineages + 1)
        for k, lineage in enumerate(lineages[:n_lineages]):
            mat = self.bad_materializations[repo] if quarantine and k > 0 else rng.choice(self.materializations[repo])
            trace = self._trace(pid, k, lineage, mat)
            for _ in range(rng.randint(2, 3)):
                path = self._path(scope_path, len(support))
                support.append(
                    self._evidence(pid, len(support) + len(contra), trace, path, rng.choices(SIGNALS, SIGNAL_ODDS)[0])
                )
        if rng.random() < 0.6:
            # Weak counterevidence in one more lineage: a contradiction penalty, not a rejection.
            trace = self._trace(pid, n_lineages, lineages[-1], rng.choice(self.materializations[repo]))
            for _ in range(rng.randint(1, 3)):
                contra.append(self._evidence(pid, len(support) + len(contra), trace, None, "self_assessment"))
        return support, contra

    def _path(self, scope_path: str | None, j: int) -> str | None:
        if scope_path is not None:
            return f"{scope_path}/{('a', 'b', 'c')[j % 3]}_{self.rng.choice(WORDS)}.py"
        # Repository scope: the first item has no path, so no common path prefix.
        return None if j == 0 or self.rng.random() < 0.4 else f"src/{self.rng.choice(WORDS)}/{j}.py"

    def _edit(self, pid: int, kind: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The scope and operations: new keys, or a replace, or another proposal's key or whole edit."""
        rng = self.rng
        if kind == "duplicate" and self.accepted:
            other = rng.choice(self.accepted)
            return other["scope"], other["operations"]
        repo = rng.choice(REPOSITORIES)
        scope_path = f"src/{rng.choice(WORDS)}{pid % 7}" if rng.random() < 0.2 else None
        scope = (
            {"level": "path", "repository": repo, "path": scope_path}
            if scope_path
            else {"level": "repository", "repository": repo}
        )
        if kind == "replace" or (kind == "conflict" and rng.random() < 0.5):
            target = rng.choice(self.memory)
            return scope, [
                {
                    "action": "replace",
                    "key": target["key"],
                    "text": f"{_text(rng, 10).capitalize()} (v{pid}).",
                    "expected_digest": target["digest"],
                }
            ]
        if kind == "conflict" and self.accepted:
            other = rng.choice(self.accepted)
            key = other["operations"][0]["key"]
            return scope, [{"action": "add", "key": key, "text": f"{_text(rng, 9).capitalize()} ({pid})."}]
        return scope, [
            {
                "action": "add",
                "key": f"gen.{rng.choice(WORDS)}-{pid}-{k}",
                "text": f"{_text(rng, rng.randint(8, 20)).capitalize()} (rule {pid}.{k}).",
            }
            for k in range(rng.randint(1, 3))
        ]

    def proposal(self, pid: int, kind: str) -> None:
        rng = self.rng
        scope, ops = self._edit(pid, kind)
        n_lineages = 1 if kind == "few_lineages" else rng.randint(2, 4)
        support, contra = self._cite(pid, scope["repository"], n_lineages, scope.get("path"), kind == "quarantined")
        lesson_ids = list(support)
        if kind == "unknown_evidence":
            support.append(f"ev-missing-{pid}")
            lesson_ids.append(support[-1])
        self.lessons.append({"id": f"les-{pid}", "text": f"Learned: {_text(rng, 12)}.", "evidence": lesson_ids})
        proposal = {
            "id": f"p-{pid:06d}",
            "lesson": f"les-{pid}",
            "scope": scope,
            # Now and then a curator is sure: 1.0, an integral float (JCS writes it 1).
            "confidence": 1.0 if rng.random() < 0.01 else round(rng.uniform(0.35, 0.99), 2),
            "rationale": f"{_text(rng, rng.randint(10, 30)).capitalize()}.",
            "base_memory_version": self.version - 1 if kind == "stale" else self.version,
            "operations": ops,
            "support": support,
            "contradict": contra,
        }
        if kind == "incomplete":
            proposal["contradicts"] = proposal.pop("contradict")  # the typo SPEC §1 warns about
        if kind == "accepted":
            self.accepted.append(proposal)
        self.proposals.append(proposal)

    def document(self) -> dict[str, Any]:
        mats = [m for repo in REPOSITORIES for m in self.materializations[repo]]
        mats += list(self.bad_materializations.values())
        return {
            "schema": "curator-bundle-v1",
            "run": {"id": f"run-bench-{self.n}", "curator": "curator@3.2", "frozen_at": "2026-11-29T10:00:00Z"},
            "memory": {"version": self.version, "instructions": self.memory},
            "instructions": self.instructions,
            "materializations": mats,
            "traces": self.traces,
            "evidence": self.evidence,
            "lessons": self.lessons,
            "proposals": self.proposals,
            "frozen": {},
        }


def generate_bundle(n_proposals: int, seed: int = 0) -> dict[str, Any]:
    """A sealed bundle with ``n_proposals`` proposals; the same (n, seed) gives the same bundle."""
    b = _Builder(n_proposals, seed)
    names = [k for k, _ in KINDS]
    weights = [w for _, w in KINDS]
    for pid in range(n_proposals):
        b.proposal(pid, b.rng.choices(names, weights)[0])
    # Arrays in any order give the same reports (SPEC §7): shuffle, as a curator might emit them.
    b.rng.shuffle(b.proposals)
    b.rng.shuffle(b.evidence)
    return seal_bundle(b.document())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Write one generated, sealed curator bundle.")
    p.add_argument("proposals", type=int, help="number of proposals")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, required=True, help="where to write the bundle (canonical JSON)")
    p.add_argument(
        "--layout",
        action="append",
        choices=list(LAYOUTS),
        help="layouts to write (repeatable; default canonical); each but canonical goes to OUT-LAYOUT.json",
    )
    args = p.parse_args(argv)
    doc = generate_bundle(args.proposals, args.seed)
    for layout in args.layout or ["canonical"]:
        layout_path(args.out, layout).write_bytes(write_layout(doc, layout))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
