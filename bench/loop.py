"""The curator loop, simulated: what the gate's notes teach a curator that obeys them (issue 47).

A fixed world of good and bad edits; evidence for them arrives over six days, in
tasks (lineages). Each day a scripted curator reads that day's traces and its
prompt's notes, and proposes literally what they allow:

- an edit it sees new evidence for today, with all the evidence it has for it;
- not one the memory holds, and not one a note tells it not to propose again
  (``do not re-propose`` in the notes before issue 47; ``do not repeat as it is``
  or ``already in memory`` in today's);
- an edit told to ``retry`` only when new evidence shows, which is the first rule.

The curator remembers nothing but its prompt. Each day's bundle is ranked
(SPEC §3-§5), recorded in a ledger, and its selection written to the memory. The
world holds an unlucky deferral (two runs of one task, then another task three days
later), a committed duplicate (one edit proposed twice in a run), a deferral that
recurs the next day, and bad edits that recur after they were refused.

Two policies, side by side: the notes as they were before issue 47 (every
refused fingerprint, deferred ones included, "do not re-propose", at most 20 a
prompt; rebuilt here from that commit's ``note_lines``) and the notes of
``ranking.ledger.read_notes``. Reported: good edits admitted (recall), days from an
edit's first evidence to its admission, edits refused for cause proposed again
(waste), notes telling the curator not to propose an edit the memory holds, and the
notes' bytes in each day's prompt.

    .venv/bin/python bench/loop.py          # the table bench/RESULTS.md shows
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from curator_io import Add, BundleBuilder, Scope
from curator_io.catalogue import REJECTED, SELECTED
from ranking.ledger import DEFAULT_BUDGET, Ledger, prompt_block, read_notes
from ranking.ledger.curator import record_run
from ranking.ledger.note_model import ALREADY_IN_MEMORY
from ranking.ledger.note_words import describe_edit, one_line
from ranking.ledger.records import REFUSED, DecisionRow
from ranking.pipeline import rank

DAYS = 6
REPO = Scope(level="repository", repository="acme/api")
BROAD = Scope(level="global")


@dataclass(frozen=True)
class Seen:
    """One observation of an edit's lesson: a task (lineage) shows it on a day."""

    day: int
    task: str
    signal: str = "deterministic"
    against: bool = False
    """Counterevidence rather than support."""
    sound: bool = True
    """From a compatible checkout; False: an incompatible one (its evidence is quarantined)."""


@dataclass(frozen=True)
class Idea:
    name: str
    text: str
    good: bool
    seen: tuple[Seen, ...]
    scope: Scope = REPO
    copies: int = 1
    """How many proposals of it the curator writes in one run (2: a duplicate of itself)."""

    @property
    def key(self) -> str:
        return f"agent.{self.name}"


WORLD = (
    Idea("make-test", "Run the tests with make test.", True, (Seen(1, "task-1"), Seen(1, "task-2"))),
    # Unlucky: two runs of one task on day 1 (one lineage), another task on day 4.
    Idea(
        "orders-wait",
        "Wait for the order to settle before asserting.",
        True,
        (Seen(1, "task-3"), Seen(1, "task-3"), Seen(4, "task-4")),
    ),
    # A user's correction: one lineage is enough (SPEC §3.5.6); the curator writes it twice.
    Idea("lockfile", "Commit the lockfile with every dependency change.", True, (Seen(2, "task-5", "user"),), copies=2),
    Idea(
        "env-vars",
        "Export the Makefile's variables before running pytest.",
        True,
        (Seen(2, "task-6"), Seen(3, "task-7")),
    ),
    # Bad: contradicted by a deterministic outcome; it shows again on day 5.
    Idea(
        "sleep",
        "Add a one-second sleep before flaky assertions.",
        False,
        (Seen(2, "task-8", "self_assessment"), Seen(2, "task-9", against=True), Seen(5, "task-10", "self_assessment")),
    ),
    # Bad: seen only in an incompatible checkout, twice.
    Idea(
        "skip-lint",
        "Skip the linter when it is slow.",
        False,
        (Seen(3, "task-11", sound=False), Seen(5, "task-12", sound=False)),
    ),
    # Bad: claims every repository from one repository's evidence; it shows again on day 6.
    Idea(
        "ci-timeout", "CI jobs time out after 5 minutes.", False, (Seen(4, "task-13"), Seen(6, "task-14")), scope=BROAD
    ),
)


@dataclass
class Outcome:
    """What one policy's run came to."""

    admitted: dict[str, int] = field(default_factory=dict)
    """Good or bad edit -> the day it was admitted."""
    waste: int = 0
    """Proposals of an edit refused for cause (rejected, quarantined, lost a conflict) before."""
    against_memory: int = 0
    """Prompt notes, summed over days, that tell the curator not to propose an edit the memory holds."""
    prompt_bytes: list[int] = field(default_factory=list)
    notes: list[int] = field(default_factory=list)


def run(policy: Callable[[Path], tuple[str, dict[str, str]]], folder: Path) -> Outcome:
    """Six days of the loop under ``policy`` (ledger -> (prompt block, {fingerprint: what it says}))."""
    ledger = folder / "admissions.db"
    memory: dict[str, str] = {}
    version = 1
    fingerprints: dict[str, str] = {}
    refused_for_cause: set[str] = set()
    out = Outcome()
    for day in range(1, DAYS + 1):
        block, said = policy(ledger)
        out.prompt_bytes.append(len(block.encode()))
        out.notes.append(len(said))
        out.against_memory += sum(
            1 for f, what in said.items() if what == "do-not-repeat" and _name_of(f, fingerprints) in memory
        )
        proposing = [
            idea
            for idea in WORLD
            if any(s.day == day for s in idea.seen)
            and idea.key not in memory
            and said.get(fingerprints.get(idea.name, ""), "") not in ("do-not-repeat", ALREADY_IN_MEMORY)
        ]
        out.waste += sum(1 for idea in proposing if idea.name in refused_for_cause)
        if not proposing:
            continue
        sealed = _bundle(day, proposing, memory, version)
        result = rank(sealed.bundle)
        fingerprints.update(_fingerprints(result.report, proposing))
        with Ledger.open(ledger) as opened:
            record_run(opened, result)
        for entry in result.report["proposals"]:
            name = entry["id"].split("/")[0].removeprefix("p-")
            cause = entry["disposition"] in (REJECTED, "quarantined") or any(
                r["code"] == "rank.conflict" for r in entry["reasons"]
            )
            if cause:
                refused_for_cause.add(name)
        for pid in result.report["selected"]:
            idea = _idea(pid.split("/")[0].removeprefix("p-"))
            memory[idea.key] = idea.text
            out.admitted.setdefault(idea.name, day)
        version += result.report["outcome"] == SELECTED
    return out


def _bundle(day: int, ideas: Sequence[Idea], memory: dict[str, str], version: int) -> object:
    b = BundleBuilder(memory_version=version, curator="scripted@1", frozen_at=f"2026-12-{day:02}T12:00:00Z")
    for key, text in sorted(memory.items()):
        b.memory_instruction(key, text, scope=REPO)
    b.materialization("mat-ok", repository="acme/api", source_revision="a1")
    b.materialization("mat-bad", repository="acme/api", source_revision="b2", status="incompatible")
    for idea in ideas:
        support, against = [], []
        for k, s in enumerate(x for x in idea.seen if x.day <= day):
            trace, evidence = f"tr-{idea.name}-{k}", f"ev-{idea.name}-{k}"
            b.trace(trace, lineage=s.task, materialization="mat-ok" if s.sound else "mat-bad", steps=4)
            b.evidence(evidence, trace=trace, step=1, signal=s.signal, observed_at=f"2026-12-{s.day:02}T09:00:00Z")
            (against if s.against else support).append(evidence)
        b.lesson(f"les-{idea.name}", text=idea.text, evidence=support)
        for copy in range(idea.copies):
            b.propose(
                f"p-{idea.name}/{copy}",
                lesson=f"les-{idea.name}",
                scope=idea.scope,
                confidence=0.8,
                operations=[Add(idea.key, idea.text)],
                support=support,
                contradict=against,
            )
    return b.build(f"day-{day}")


def _fingerprints(report: dict, ideas: Sequence[Idea]) -> dict[str, str]:
    return {e["id"].split("/")[0].removeprefix("p-"): e["fingerprint"] for e in report["proposals"]}


def _idea(name: str) -> Idea:
    (idea,) = [i for i in WORLD if i.name == name]
    return idea


def _name_of(fingerprint: str, fingerprints: dict[str, str]) -> str:
    names = [n for n, f in fingerprints.items() if f == fingerprint]
    return _idea(names[0]).key if names else ""


# --- the two policies ----------------------------------------------------------------------


def new_notes(ledger: Path) -> tuple[str, dict[str, str]]:
    """Today's notes (``ranking.ledger.read_notes``, the default budget) and what each says."""
    notes = read_notes(ledger)
    return prompt_block(notes), {n.fingerprint: n.kind for n in notes}


def old_notes(ledger: Path) -> tuple[str, dict[str, str]]:
    """The notes before issue 47 (commit 4776fa1's ``refusals`` and ``note_lines``, limit 20):
    every fingerprint ever rejected, superseded or deferred, "do not re-propose"."""
    if not ledger.exists():
        return "", {}
    with Ledger.open(ledger, read_only=True) as opened:
        decisions = opened.decisions()
        latest: dict[str, DecisionRow] = {}
        times: dict[str, int] = {}
        for d in decisions:
            if d.disposition in REFUSED and d.fingerprint is not None:
                times[d.fingerprint] = times.get(d.fingerprint, 0) + 1
                latest.pop(d.fingerprint, None)
                latest[d.fingerprint] = d
        found = list(reversed(latest.items()))[:20]
        edits = opened.edits_of(f for f, _ in found)
    lines = [
        f"do not re-propose: {describe_edit(edits[f]) if f in edits else one_line(d.rationale)} — refused "
        f"{times[f]}×, latest {d.disposition}: {', '.join(d.distinct_codes)}"
        for f, d in found
    ]
    header = "The evidence gate refused these edits before. Do not propose them again as they are:"
    return ("\n".join([header, *lines]) if lines else ""), {f: "do-not-repeat" for f, _ in found}


# --- the table -------------------------------------------------------------------------------


def table(outcomes: dict[str, Outcome]) -> list[str]:
    good = [i for i in WORLD if i.good]
    rows = ["| | " + " | ".join(outcomes) + " |", "| --- |" + " ---: |" * len(outcomes)]

    def row(label: str, value: Callable[[Outcome], object]) -> None:
        rows.append(f"| {label} | " + " | ".join(str(value(o)) for o in outcomes.values()) + " |")

    row("good edits admitted (recall)", lambda o: f"{sum(i.name in o.admitted for i in good)} of {len(good)}")
    for idea in good:
        first = min(s.day for s in idea.seen)
        row(
            f"days to admission: {idea.name}",
            lambda o, i=idea, f=first: o.admitted[i.name] - f if i.name in o.admitted else "never",
        )
    row("bad edits admitted", lambda o: sum(i.name in o.admitted for i in WORLD if not i.good))
    row("refused-for-cause edits proposed again (waste)", lambda o: o.waste)
    row("notes against the memory (days × notes)", lambda o: o.against_memory)
    row("notes a prompt, most", lambda o: max(o.notes))
    row("prompt bytes of notes a day, days 1-6", lambda o: " / ".join(map(str, o.prompt_bytes)))
    row("prompt bytes of notes a day, most", lambda o: max(o.prompt_bytes))
    return rows


def main(argv: Sequence[str] = ()) -> int:
    outcomes = {}
    for name, policy in (("before (4776fa1)", old_notes), ("now", new_notes)):
        with tempfile.TemporaryDirectory() as folder:
            outcomes[name] = run(policy, Path(folder))
    print("\n".join(table(outcomes)))
    budget = DEFAULT_BUDGET
    print(f"\nbudget: {budget.notes} notes, {budget.per_lesson} a lesson, {budget.prompt_bytes} bytes a prompt")
    now = outcomes["now"]
    good = sum(i.name in now.admitted for i in WORLD if i.good)
    met = good == sum(i.good for i in WORLD) and now.waste == 0 and max(now.prompt_bytes) <= (budget.prompt_bytes or 0)
    print(f"targets (recall 100%, waste 0, within the budget): {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
