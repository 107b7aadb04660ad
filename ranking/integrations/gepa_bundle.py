"""A GEPA proposal as a curator bundle (curator-bundle-v1, SPEC §1): pure, no gepa import.

GEPA's acceptance step sees a parent candidate, a child candidate, and both
evaluated on one minibatch. :func:`bundle_of` writes that as the bundle a
curator would have written, so the SPEC's rules judge it (docs/gepa.md has
the table of which fact feeds which rule):

1. the parent candidate is the memory (``memory.version`` = its index in
   GEPA's pool), one curated instruction per component, all with one scope:
   the repository ``repository`` (SPEC §3.5.9: the evidenced scope of support
   that spans one repository, so ``min_lineages`` applies, not the broad one);
2. each changed component is a keyed operation: ``replace``; ``add`` for a
   component the parent lacks; ``remove`` for one the child lacks;
3. each minibatch example is a lineage, with one materialization, and one
   trace of two steps per position: step 0 the metric's two scores, step 1
   the two trajectories. A trace is ``complete`` when both trajectories are
   there and RFC 8785 can write them (their digests are in the trace, so they
   are sealed with it); otherwise ``partial``, verified up to the scores, so
   its evidence has the lower ``prefix`` integrity (SPEC §3.5.2);
4. one ``deterministic`` evidence item per position, at step 0: support where
   the child scored higher, contradiction where it scored lower, neither where
   the scores are equal (or not comparable, NaN);
5. the reflection's own claim that the edit helps is one more item of
   support: ``self_assessment``, in a trace verified to no step, so it is
   ``unverified`` and never counts (§3.5.3). It makes every proposal
   structurally complete (§3.1 needs one support item), so even a mutation
   that improved nothing has a fingerprint and the ledger remembers it.

Several children of one parent (one GEPA iteration's, :func:`bundle_of_children`)
share the memory, the claim and the lesson (``les-gepa``, citing every child's
support); each child is a proposal with its own traces and evidence, numbered on
from the last child's, citing only its own minibatch. An example in two
minibatches is one lineage. SPEC §5 then ranks the children against each other.
One child gives the bundle :func:`bundle_of` gives.

The bundle is written by :class:`curator_io.BundleBuilder`, the project's one
writer of bundles, which seals it and checks it with the loader's rules. Nothing
here reads a clock: every timestamp is :data:`EPOCH`, and the run id is named by
the content (``build_named``), so the same proposals always make one bundle, byte
for byte. How names and data ids become IDs, and what cannot be written, is
:mod:`ranking.integrations.gepa_names`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from curator_io import Add, BundleBuilder, Remove, Replace, Scope, SealedBundle, fit_text
from curator_io.canonical import digest
from curator_io.grammar import is_repo
from ranking.integrations.gepa_names import check_writable, key_of, keys_of, lineage_of

__all__ = ["EPOCH", "Child", "Minibatch", "bundle_of", "bundle_of_children", "stances_of", "component_at"]

EPOCH = "2000-01-01T00:00:00Z"
"""Every ``frozen_at`` and ``observed_at``: GEPA gives no time, and a report has none (STYLE)."""

LESSON = "les-gepa"
CLAIM = "reflection"
"""The lineage, materialization, trace and evidence suffix of the reflection's own claim."""
_CLAIM_EVIDENCE = f"ev-{CLAIM}"

_MAX_RATIONALE = 2000  # SPEC §1: a rationale of at most 2000 bytes


@dataclass(frozen=True, slots=True)
class Minibatch:
    """One proposal's minibatch, as GEPA's ``CandidateProposal`` holds it."""

    ids: Sequence[Any]
    """The examples' data ids (``subsample_indices``), in minibatch order."""
    before: Sequence[float]
    """The parent's scores (``eval_before.scores``)."""
    after: Sequence[float]
    """The child's scores (``eval_after.scores``)."""
    trajectories_before: Sequence[Any] | None = None
    trajectories_after: Sequence[Any] | None = None

    def __post_init__(self) -> None:
        n = len(self.ids)
        lengths = [len(self.before), len(self.after)]
        lengths += [len(t) for t in (self.trajectories_before, self.trajectories_after) if t is not None]
        if n == 0 or any(length != n for length in lengths):
            raise ValueError(f"a minibatch of {n} examples with scores or trajectories of lengths {lengths}")


@dataclass(frozen=True, slots=True)
class Child:
    """One proposal of a parent: its ID in the bundle, the child candidate, and its minibatch."""

    proposal: str
    """The proposal's ID (SPEC §0), unique in its bundle: ``p-3-0``."""
    candidate: Mapping[str, str]
    minibatch: Minibatch


def bundle_of(
    parent: Mapping[str, str],
    child: Mapping[str, str],
    minibatch: Minibatch,
    *,
    version: int,
    proposal: str,
    repository: str = "gepa",
    curator: str = "gepa",
) -> dict[str, Any]:
    """The sealed bundle document of one GEPA proposal: :func:`bundle_of_children` with one child.

    ``version`` is the parent's index in GEPA's pool; ``proposal`` the proposal's ID. Raises
    :class:`~ranking.integrations.gepa_names.Unwritable` for a component's text or a data id RFC 8785 cannot write, or a
    component name two names map to; ValueError for a ``repository`` that is not a REPO.
    """
    only = Child(proposal, child, minibatch)
    sealed = bundle_of_children(parent, [only], version=version, repository=repository, curator=curator)
    return dict(sealed.document)


def bundle_of_children(
    parent: Mapping[str, str],
    children: Sequence[Child],
    *,
    version: int,
    repository: str = "gepa",
    curator: str = "gepa",
) -> SealedBundle:
    """Several proposals of one parent as one sealed bundle (the module docstring has the
    layout): its document, canonical bytes and loaded :class:`~curator_io.Bundle`.

    Each child is a proposal citing its own minibatch, so SPEC §5 ranks them against each other:
    the same edit twice is ``rank.duplicate``, two edits of one component ``rank.conflict``.
    Raises :class:`~ranking.integrations.gepa_names.Unwritable` as its ``check_writable`` does for any child, or for two
    children's component names that map to one key; ``curator_io.InputError`` where the loader
    refuses what was written (a parent's text over SPEC's limit); ValueError for a ``repository``
    that is not a REPO or proposal IDs that repeat.
    """
    if not is_repo(repository):
        raise ValueError(f"repository must be 1-200 bytes without control characters: {repository!r}")
    ids = [child.proposal for child in children]
    if not children or len(set(ids)) != len(ids):
        raise ValueError(f"a bundle needs one child or more, with distinct proposal ids: {ids!r}")
    for child in children:
        check_writable(parent, child.candidate, child.minibatch.ids)
    scope = Scope("repository", repository)
    keys = keys_of(parent, *(child.candidate for child in children))
    b = BundleBuilder(memory_version=version, curator=curator, frozen_at=EPOCH)
    for name, text in sorted(parent.items(), key=lambda item: keys[item[0]]):
        b.memory_instruction(keys[name], text, scope=scope)
    examples = [[lineage_of(example) for example in child.minibatch.ids] for child in children]
    for lineage in sorted({CLAIM}.union(*examples)):
        b.materialization(f"mat-{lineage}", repository=repository, source_revision=lineage)
    # Each child's traces and evidence are numbered on from the last child's: each cites its own.
    starts = [sum(len(e) for e in examples[:c]) for c in range(len(children))]
    for child, at, lineages in zip(children, starts, examples, strict=True):
        for k, lineage in enumerate(lineages):
            _record_example(b, at + k, lineage, child.minibatch, k)
    # The reflection's claim, one per bundle, in a trace verified to no step: the reflection's
    # call is not sealed here, so its claim is unverified.
    b.trace(f"tr-{CLAIM}", lineage=CLAIM, materialization=f"mat-{CLAIM}", steps=1, verified_prefix=0)
    b.evidence(
        _CLAIM_EVIDENCE,
        trace=f"tr-{CLAIM}",
        step=0,
        signal="self_assessment",
        observed_at=EPOCH,
        summary="The reflection proposed this edit: its own judgement that the edit helps.",
    )
    stances = [stances_of(child.minibatch) for child in children]
    improved = [f"ev-{at + k}" for at, s in zip(starts, stances, strict=True) for k, v in enumerate(s) if v > 0]
    cited = [_CLAIM_EVIDENCE, *improved]
    b.lesson(LESSON, text=_lesson_text(stances), evidence=cited)
    for child, at, stance in zip(children, starts, stances, strict=True):
        _propose(b, child, at, stance, parent, keys, scope)
    return b.build_named("gepa")


def _record_example(b: BundleBuilder, n: int, lineage: str, minibatch: Minibatch, k: int) -> None:
    """Position ``k`` of ``minibatch``, numbered ``n`` in its bundle: a trace of two steps (step 0
    the metric's scores, step 1 the trajectories that produced them) and the scores' evidence."""
    before = _sealed_digest(minibatch.trajectories_before[k]) if minibatch.trajectories_before is not None else None
    after = _sealed_digest(minibatch.trajectories_after[k]) if minibatch.trajectories_after is not None else None
    b.trace(
        f"tr-{n}",
        lineage=lineage,
        materialization=f"mat-{lineage}",
        steps=2,
        # Complete when both trajectories are sealed in it; otherwise verified up to the scores.
        verified_prefix=None if before is not None and after is not None else 1,
        members={"parent_trajectory": before, "candidate_trajectory": after},
    )
    b.evidence(
        f"ev-{n}",
        trace=f"tr-{n}",
        step=0,
        signal="deterministic",
        observed_at=EPOCH,
        summary=f"{lineage}: the parent scored {minibatch.before[k]!r}, the candidate {minibatch.after[k]!r}",
    )


def _propose(
    b: BundleBuilder,
    child: Child,
    at: int,
    stances: Sequence[int],
    parent: Mapping[str, str],
    keys: Mapping[str, str],
    scope: Scope,
) -> None:
    """The child's proposal: its operations on the parent, citing its own evidence, numbered from ``at``."""
    operations = _operations(parent, child.candidate, keys)
    support = [_CLAIM_EVIDENCE] + [f"ev-{at + k}" for k, s in enumerate(stances) if s > 0]
    contradict = [f"ev-{at + k}" for k, s in enumerate(stances) if s < 0]
    improved, worse, n = len(support) - 1, len(contradict), len(stances)
    b.propose(
        child.proposal,
        lesson=LESSON,
        scope=scope,
        # The share of the minibatch that improved; SPEC §4 reads the binary64 exactly.
        confidence=improved / n,
        operations=operations,
        support=support,
        contradict=contradict,
        rationale=_rationale(operations, parent, keys, improved, worse, n),
    )


def _lesson_text(stances: Sequence[Sequence[int]]) -> str:
    improved = sum(s.count(1) for s in stances)
    worse = sum(s.count(-1) for s in stances)
    n = sum(len(s) for s in stances)
    if len(stances) == 1:
        return (
            f"The candidate scored higher than its parent on {improved} of {n} minibatch examples and lower on {worse}."
        )
    return (
        f"{len(stances)} candidates of one parent, each scored on its own minibatch: higher than the parent"
        f" on {improved} of {n} examples and lower on {worse}."
    )


def component_at(pointer: str, parent: Mapping[str, str]) -> str | None:
    """The parent's component whose memory instruction a JSON Pointer into a bundle of its
    children names (``/memory/instructions/0/text``), or None when it names none."""
    parts = pointer.split("/")
    if parts[1:3] != ["memory", "instructions"] or len(parts) < 4 or not parts[3].isdigit():
        return None
    names = sorted(parent, key=key_of)  # the memory's order, as bundle_of_children writes it
    at = int(parts[3])
    return names[at] if at < len(names) else None


def _operations(
    parent: Mapping[str, str], child: Mapping[str, str], keys: Mapping[str, str]
) -> list[Add | Replace | Remove]:
    """The child's edit of the parent, in key order: the builder fills in each expected digest.
    ``keys`` names the components of every child of the bundle: one that neither this child nor
    the parent has is no edit of this child's."""
    ops: list[Add | Replace | Remove] = []
    for name in sorted(keys, key=keys.__getitem__):
        key, had, has = keys[name], name in parent, name in child
        if has and not had:
            ops.append(Add(key, child[name]))
        elif had and not has:
            ops.append(Remove(key))
        elif had and child[name] != parent[name]:
            ops.append(Replace(key, child[name]))
    return ops


def stances_of(minibatch: Minibatch) -> list[int]:
    """Each example's stance: 1 where the child scored higher, -1 lower, 0 equal or not
    comparable (NaN)."""
    return [1 if a > b else -1 if a < b else 0 for b, a in zip(minibatch.before, minibatch.after, strict=True)]


def _sealed_digest(trajectory: Any) -> str | None:
    """The digest of a trajectory RFC 8785 can write; None for none, or one it cannot (an object)."""
    if trajectory is None:
        return None
    try:
        return digest(trajectory)
    except (ValueError, RecursionError):
        return None


def _rationale(
    operations: Sequence[Add | Replace | Remove],
    parent: Mapping[str, str],
    keys: Mapping[str, str],
    improved: int,
    worse: int,
    n: int,
) -> str:
    """What the edit does, first (a curator's note shows the start), then its minibatch."""
    names = {key: name for name, key in keys.items()}
    edits = []
    for op in operations:
        name = names[op.key]
        if isinstance(op, Remove):
            edits.append(f"remove {name!r}")
        else:
            verb = "set" if name in parent else "add"
            edits.append(f"{verb} {name!r} to {op.text!r}")
    text = f"{'; '.join(edits) or 'no change'} (better on {improved}, worse on {worse} of {n} examples)"
    return fit_text(text, _MAX_RATIONALE)
