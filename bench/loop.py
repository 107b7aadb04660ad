"""The curator loop through the command line, with a curator that keeps nothing (issue 53, item 7).

Eight days. Each day a host (this file) does what a team's host does, with the CLI alone:

1. the curator proposes, from three things only: today's tasks (their evidence), the notes
   ``ledger notes LEDGER --format json`` gave after yesterday's run, and ``memory.json``;
2. the host writes today's bundle from ``memory.json``, today's traces and evidence, and the
   curator's lessons and proposals (``BundleBuilder``);
3. ``evidence-rank ledger carry LEDGER day.json --out carried.json`` files the pool into it;
4. ``evidence-rank score carried.json --out-dir D --ledger LEDGER -q`` ranks and records it;
5. ``evidence-rank apply carried.json D/report.json --out memory.json`` writes the memory the
   agent reads tomorrow;
6. ``evidence-rank ledger notes LEDGER --format json``: the notes for tomorrow's prompt, against
   the ledger's own current memory (no ``--memory``).

**The curator** (``loop_curator.curate``) keeps nothing between days: it sees only today's evidence and
cites only that. For each lesson it observes today it writes the edit the lesson asks for
(against the memory the task's agent ran with), then follows the note on that exact edit (its
fingerprint, SPEC §3.6), literally:

- none, or ``retry``: propose it as it is (the pool carries the earlier tasks' evidence);
- ``do-not-repeat`` for a stale edit (``closure.stale_*``): write it again against the current
  memory's digest and version, and follow that edit's note; any other ``do-not-repeat``, or
  ``already-in-memory``: drop it;
- ``contradicts-memory``: drop an edit not written (a person's rule is not overwritten); for one
  written, propose the advised ``remove`` of its key, in a proposal of its own;
- ``look-alike``: propose the advised ``remove`` of its own key, in a proposal of its own; for an
  edit not written that restates another key, the advised ``replace`` of that key instead.

**The world** (:data:`WORLD`): good lessons (one deferred on day 1 and recurring on day 4, a
person's correction in one task, a replace, a remove, an edit proposed again after it was
written, an edit its tasks' agents wrote against an old memory), bad lessons with
counterevidence, a reworded duplicate of a memory instruction under a new key, and a
contradiction of a person's rule (``ONLY use uv, NEVER pip``) under a new key.
Beside it, two worlds that show what the loop does not survive (bench/RESULTS.md):
:data:`PRESSURE` (more refused edits than the notes' budget holds) and :data:`WRITTEN_FIRST` (the
contradiction written before any note can name it). Only :data:`WORLD`'s targets set the exit code.

**Measured**: good lessons admitted; waste (proposals of an edit the day's notes said not to
repeat or already in memory, and good lessons never admitted); notes whose word contradicts the
memory they were made against; duplicates (one ``norm`` text under two keys) and contradictions
(``ranking.advice.relation`` on look-alike pairs) left in the final memory; the largest prompt of
notes against the budget.

    .venv/bin/python bench/loop.py          # the table bench/RESULTS.md shows
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from loop_curator import REPO, Edit, Observation, Proposal, curate
from loop_memory import at_odds, holds, left_in

from curator_io import Add, BundleBuilder, Remove, Replace
from ranking.ledger import DEFAULT_BUDGET
from ranking.ledger.notes.reading import notes_from_json

DAYS = 8
CLI = str(Path(sys.executable).parent / "evidence-rank")

#: Memory on day 1: a person's rule, and three curated instructions.
FIRST_MEMORY = (
    ("ci.retry", "Retry flaky CI jobs up to three times.", "curated"),
    ("deps.install", "ONLY use uv, NEVER pip.", "user"),
    ("style.format", "Format the code with black.", "curated"),
    ("test.command", "Run the test suite with make test.", "curated"),
)


@dataclass(frozen=True)
class Seen:
    """One task (lineage) showing a lesson on a day."""

    day: int
    task: str
    signal: str = "deterministic"
    against: bool = False
    """Counterevidence rather than support."""
    old_memory: bool = False
    """Its agent ran with the memory of day 1 (a stale checkout): the edit is written against that."""


@dataclass(frozen=True)
class Idea:
    name: str
    kind: str
    """``good``, ``bad``, ``duplicate`` (restates a memory instruction) or ``contradiction``."""
    action: str
    key: str
    text: str
    seen: tuple[Seen, ...]


WORLD = (
    Idea(
        "orders-wait",
        "good",
        "add",
        "agent.orders-wait",
        "Wait for the order to settle before asserting.",
        (Seen(1, "task-1"), Seen(4, "task-14")),
    ),
    # Admitted on day 1, then proposed again (day 5) and seen again (day 7).
    Idea(
        "env-vars",
        "good",
        "add",
        "agent.env-vars",
        "Export the Makefile's variables before running pytest.",
        (Seen(1, "task-2"), Seen(1, "task-3"), Seen(5, "task-17"), Seen(7, "task-26")),
    ),
    # A person's correction: one task is enough (SPEC §3.5.6).
    Idea(
        "lockfile",
        "good",
        "add",
        "agent.lockfile",
        "Commit the lockfile with every dependency change.",
        (Seen(2, "task-4", "user"),),
    ),
    Idea(
        "ruff",
        "good",
        "replace",
        "style.format",
        "Format the code and sort imports with ruff.",
        (Seen(2, "task-5"), Seen(2, "task-6")),
    ),
    Idea(
        "ci-retry",
        "good",
        "remove",
        "ci.retry",
        "Retries hide flaky CI jobs: fix them instead.",
        (Seen(3, "task-10"), Seen(3, "task-11")),
    ),
    # Its agents ran with day 1's memory: written against style.format as it was, before ruff.
    Idea(
        "ruff-check",
        "good",
        "replace",
        "style.format",
        "Format with ruff format, then lint with ruff check.",
        (
            Seen(4, "task-15", old_memory=True),
            Seen(4, "task-16", old_memory=True),
            Seen(6, "task-22", old_memory=True),
            Seen(6, "task-23", old_memory=True),
        ),
    ),
    Idea(
        "sleep",
        "bad",
        "add",
        "agent.sleep",
        "Add a one-second sleep before flaky assertions.",
        (Seen(2, "task-7", "self_assessment"), Seen(2, "task-8", against=True), Seen(6, "task-25", "self_assessment")),
    ),
    Idea(
        "skip-flaky",
        "bad",
        "add",
        "agent.skip-flaky",
        "Skip the flaky order tests.",
        (Seen(5, "task-20", "tool"), Seen(5, "task-21", against=True), Seen(7, "task-27", "tool")),
    ),
    # Says the opposite of a person's rule under a new key; deferred on day 2, recurs in two tasks later.
    Idea(
        "pip",
        "contradiction",
        "add",
        "agent.pip",
        "Install dependencies with pip install -e . instead of uv.",
        (Seen(2, "task-9"), Seen(5, "task-18"), Seen(5, "task-19"), Seen(8, "task-29")),
    ),
    # Restates test.command under a new key: two tasks on day 3, then one on day 6 and one on day 8.
    Idea(
        "tests",
        "duplicate",
        "add",
        "agent.tests",
        "Run tests with make test.",
        (Seen(3, "task-12"), Seen(3, "task-13"), Seen(6, "task-24"), Seen(8, "task-28")),
    ),
)

#: The world as filed, and twelve more bad lessons, each refused for its counterevidence on day 2
#: and seen again in one task on day 7 and one on day 8: more refused edits than the notes' budget.
PRESSURE = WORLD + tuple(
    Idea(
        f"bad-{k}",
        "bad",
        "add",
        f"agent.bad-{k}",
        text,
        (
            Seen(2, f"task-b{k}", "self_assessment"),
            Seen(2, f"task-c{k}", against=True),
            Seen(7, f"task-d{k}", "self_assessment"),
            Seen(8, f"task-e{k}", "self_assessment"),
        ),
    )
    for k, text in enumerate(
        (
            "Pin numpy below version two.",
            "Flush redis before every benchmark.",
            "Rebuild docker images nightly by hand.",
            "Bump the changelog date manually.",
            "Restart postgres whenever migrations hang.",
            "Vendor the requests library.",
            "Silence deprecation warnings globally.",
            "Increase the gunicorn worker count to twelve.",
            "Rename snapshot files after each release.",
            "Prefer tabs in templates.",
            "Shorten celery task timeouts to one second.",
            "Skip mypy on generated modules.",
        )
    )
)

#: The world as filed, but the contradiction of the person's rule shows in two tasks the first time
#: it is seen (day 2), so it is written before any note can say what it contradicts.
WRITTEN_FIRST = tuple(
    replace(i, seen=(Seen(2, "task-9"), Seen(2, "task-9b"), *i.seen[1:])) if i.name == "pip" else i for i in WORLD
)


# --- the host: the bundle, and the command line ------------------------------------------------


@dataclass
class Outcome:
    """What the eight days came to."""

    admitted: dict[str, int] = field(default_factory=dict)
    """Lesson -> the day the edit it asks for was first admitted (written again when stale)."""
    fixed: dict[str, int] = field(default_factory=dict)
    """Lesson -> the day an edit a note advised instead (a remove of its key) was first admitted."""
    waste: list[str] = field(default_factory=list)
    """Proposals of an edit that day's notes said not to repeat, or already in memory: ``day N: id (kind)``."""
    at_odds: list[str] = field(default_factory=list)
    """Notes whose word the memory they were made against contradicts: ``day N: kind on lesson``."""
    prompt_bytes: list[int] = field(default_factory=list)
    notes: list[int] = field(default_factory=list)
    proposed: list[int] = field(default_factory=list)
    held_unnoted: list[str] = field(default_factory=list)
    """Proposals of an edit memory.json already held, with no note on it yet (not waste: no note said so)."""
    memory: dict[str, Any] = field(default_factory=dict)
    days: list[str] = field(default_factory=list)
    """Each day: the curator's proposals, the report's dispositions, the notes' kinds (``-v`` prints them)."""

    repeated: list[str] = field(default_factory=list)
    """Proposals of an edit rejected or quarantined before, whatever the day's notes said."""
    world: tuple[Idea, ...] = ()

    @property
    def abandoned(self) -> list[str]:
        return [i.name for i in self.world if i.kind == "good" and i.name not in self.admitted]

    @property
    def bad(self) -> list[str]:
        return [i.name for i in self.world if i.kind in ("bad", "contradiction") and i.name in self.admitted]


def first_memory() -> dict[str, Any]:
    """Day 1's memory, version 1, as ``apply`` writes one (sealed instructions)."""
    b = BundleBuilder(memory_version=1, curator="host", frozen_at="2026-12-01T00:00:00Z")
    for key, text, origin in FIRST_MEMORY:
        b.memory_instruction(key, text, scope=REPO, origin=origin)
    return dict(b.build("memory").document["memory"])


def run(folder: Path, world: tuple[Idea, ...] = WORLD) -> Outcome:
    """Eight days of the loop in ``folder`` (module docstring)."""
    ledger, memory_file = folder / "admissions.db", folder / "memory.json"
    day_one = first_memory()
    memory_file.write_text(json.dumps(day_one, indent=2))
    notes: list[dict[str, Any]] = []
    lesson_of: dict[str, tuple[str, bool]] = {}
    edits: dict[str, Edit] = {}
    refused: set[str] = set()
    out = Outcome(world=world)
    for day in range(1, DAYS + 1):
        memory = json.loads(memory_file.read_text())
        today = _today(day, day_one, world)
        proposals = curate(today, notes, memory)
        said = {n["fingerprint"]: n["kind"] for n in notes}
        for p in proposals:
            lesson_of[p.edit.fingerprint] = (p.lesson, p.advised)
            edits[p.edit.fingerprint] = p.edit
            if said.get(p.edit.fingerprint) in ("do-not-repeat", "already-in-memory"):
                out.waste.append(f"day {day}: {p.id} ({said[p.edit.fingerprint]})")
            elif holds(p.edit, memory):
                out.held_unnoted.append(f"day {day}: {p.id}")
            if p.edit.fingerprint in refused:
                out.repeated.append(f"day {day}: {p.id}")
        out.proposed.append(len(proposals))
        bundle, carried, ranked = folder / f"day-{day}.json", folder / f"carried-{day}.json", folder / f"day-{day}"
        bundle.write_bytes(_bundle(day, memory, today, proposals, world).canonical)
        if ledger.exists():
            _cli("ledger", "carry", ledger, bundle, "--out", carried)
        else:
            carried.write_bytes(bundle.read_bytes())  # day 1: no ledger, no pool
        _cli("score", carried, "--out-dir", ranked, "--ledger", ledger, "-q")
        _cli("apply", carried, ranked / "report.json", "--out", memory_file)
        report = json.loads((ranked / "report.json").read_text())
        fingerprints = {e["id"]: e["fingerprint"] for e in report["proposals"]}
        refused |= {e["fingerprint"] for e in report["proposals"] if e["disposition"] in ("rejected", "quarantined")}
        for pid in report["selected"]:
            lesson, advised = lesson_of[fingerprints[pid]]  # carry files only edits a curator proposed
            (out.fixed if advised else out.admitted).setdefault(lesson, day)
        raw = _cli("ledger", "notes", ledger, "--format", "json")
        notes = json.loads(raw)["notes"]
        out.days.append(
            f"day {day}: proposed {', '.join(p.id for p in proposals) or 'nothing'}; ranked "
            + ", ".join(f"{e['id']} {e['disposition']}" for e in report["proposals"])
            + "; notes "
            + ", ".join(f"{n['kind']} on {lesson_of.get(n['fingerprint'], ('?',))[0]}" for n in notes)
        )
        made = notes_from_json(raw)
        counted = made.left_out_line()
        out.prompt_bytes.append(
            sum(len(n.line.encode()) + 1 for n in made) + (len(counted.encode()) + 1 if counted else 0)
        )
        out.notes.append(len(notes))
        now = json.loads(memory_file.read_text())
        out.at_odds += [
            f"day {day}: {n['kind']} on {lesson_of.get(n['fingerprint'], ('?',))[0]}"
            for n in notes
            if n["fingerprint"] in edits and at_odds(n["kind"], edits[n["fingerprint"]], now)
        ]
    out.memory = json.loads(memory_file.read_text())
    return out


def _today(day: int, day_one: Mapping[str, Any], world: Sequence[Idea]) -> list[Observation]:
    return [
        Observation(
            i.name,
            i.action,
            i.key,
            i.text,
            f"ev-d{day}-{i.name}-{s.task}",
            s.against,
            day_one if s.old_memory else None,
        )
        for i in world
        for s in i.seen
        if s.day == day
    ]


def _bundle(
    day: int,
    memory: Mapping[str, Any],
    today: Sequence[Observation],
    proposals: Sequence[Proposal],
    world: Sequence[Idea],
) -> Any:
    b = BundleBuilder.from_memory(memory, curator="forgetful@1", frozen_at=f"2026-12-{day:02}T12:00:00Z")
    b.materialization("mat-ok", repository="acme/api", source_revision=f"r{day}")
    seen = {(i.name, f"ev-d{day}-{i.name}-{s.task}"): s for i in world for s in i.seen if s.day == day}
    for o in today:
        s = seen[(o.lesson, o.evidence)]
        b.trace(f"tr-d{day}-{s.task}", lineage=s.task, materialization="mat-ok", steps=4)
        b.evidence(
            o.evidence, trace=f"tr-d{day}-{s.task}", step=1, signal=s.signal, observed_at=f"2026-12-{day:02}T09:00:00Z"
        )
    for p in proposals:
        b.lesson(f"les-{p.id}", text=p.text, evidence=p.support)
        b.propose(
            p.id,
            lesson=f"les-{p.id}",
            scope=REPO,
            confidence=0.8,
            operations=[_op(op) for op in p.edit.operations],
            support=p.support,
            contradict=p.against,
            base_memory_version=p.edit.base,
        )
    return b.build(f"day-{day}")


def _op(op: Mapping[str, str]) -> Add | Replace | Remove:
    if op["action"] == "add":
        return Add(op["key"], op["text"])
    if op["action"] == "replace":
        return Replace(op["key"], op["text"], expected_digest=op["expected_digest"])
    return Remove(op["key"], expected_digest=op["expected_digest"])


def _cli(*args: object) -> bytes:
    done = subprocess.run([CLI, *map(str, args)], capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"evidence-rank {' '.join(map(str, args))}: exit {done.returncode}: {done.stderr.decode()}")
    return done.stdout


# --- the table -----------------------------------------------------------------------------------


def table(outcomes: Mapping[str, Outcome]) -> list[str]:
    good = [i for i in WORLD if i.kind == "good"]
    budget = DEFAULT_BUDGET.prompt_bytes

    def fixed(o: Outcome) -> str:
        return f"{o.admitted.get('tests', 'never')}, {o.fixed.get('tests', 'never')}"

    rows: list[tuple[str, Callable[[Outcome], object]]] = [
        ("good lessons admitted", lambda o: f"{len(good) - len(o.abandoned)} of {len(good)}"),
        *((f"day admitted: {i.name} (first seen day {i.seen[0].day})", _day_of(i.name)) for i in good),
        (
            "bad lessons admitted",
            lambda o: f"{len(o.bad)} of {sum(i.kind in ('bad', 'contradiction') for i in o.world)}",
        ),
        ("reworded duplicate (tests): written, then its advised remove admitted, days", fixed),
        ("waste: proposals after a do-not-repeat or already-in-memory note", lambda o: len(o.waste)),
        ("waste: good lessons abandoned", lambda o: len(o.abandoned)),
        ("proposals of an edit rejected or quarantined before, whatever the notes said", lambda o: len(o.repeated)),
        ("proposals of an edit memory held, before any note on it", lambda o: len(o.held_unnoted)),
        ("notes at odds with memory (days x notes)", lambda o: len(o.at_odds)),
        ("duplicates left in memory", lambda o: len(left_in(o.memory)[0])),
        ("contradictions left in memory", lambda o: len(left_in(o.memory)[1])),
        ("other look-alike pairs left in memory (restating)", lambda o: len(left_in(o.memory)[2])),
        ("proposals a day, days 1-8", lambda o: " / ".join(map(str, o.proposed))),
        ("notes a day, days 1-8", lambda o: " / ".join(map(str, o.notes))),
        ("prompt bytes of notes a day, days 1-8", lambda o: " / ".join(map(str, o.prompt_bytes))),
        ("prompt bytes, most (budget)", lambda o: f"{max(o.prompt_bytes)} ({budget})"),
    ]
    return [
        "| | " + " | ".join(outcomes) + " |",
        "| --- |" + " ---: |" * len(outcomes),
        *(f"| {label} | " + " | ".join(str(value(o)) for o in outcomes.values()) + " |" for label, value in rows),
    ]


def _day_of(name: str) -> Callable[[Outcome], object]:
    return lambda o: o.admitted.get(name, "never")


def missed(o: Outcome) -> list[str]:
    """The targets missed, each with what missed it."""
    duplicates, contradictions, alike = left_in(o.memory)
    found = [
        ("good lessons never admitted", o.abandoned),
        ("bad lessons admitted", o.bad),
        ("proposals after a note said not to", o.waste),
        ("proposals of an edit refused before", o.repeated),
        ("notes at odds with memory", o.at_odds),
        ("duplicates in memory", duplicates),
        ("contradictions in memory", contradictions),
        ("look-alikes in memory", alike),
    ]
    out = [f"{what}: {', '.join(items)}" for what, items in found if items]
    if max(o.prompt_bytes) > (DEFAULT_BUDGET.prompt_bytes or 0):
        out.append(f"a prompt of {max(o.prompt_bytes)} bytes")
    return out


def main(argv: Sequence[str] = ()) -> int:
    """Both worlds; exit 1 when the world as filed misses a target (the other's misses are shown)."""
    outcomes = {}
    for name, world in (
        ("as filed", WORLD),
        ("under pressure", PRESSURE),
        ("contradiction written first", WRITTEN_FIRST),
    ):
        with tempfile.TemporaryDirectory() as folder:
            outcomes[name] = run(Path(folder), world)
    print("\n".join(table(outcomes)))
    for name, o in outcomes.items():
        if "-v" in argv:
            print(f"\n{name}:", *o.days, sep="\n")
    for name, o in outcomes.items():
        failed = missed(o)
        print(f"\ntargets, {name}: " + ("met" if not failed else "MISSED: " + "; ".join(failed)))
    return 0 if not missed(outcomes["as filed"]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
