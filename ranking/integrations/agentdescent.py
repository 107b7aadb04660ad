"""Let an evidence-ranking-v1 report gate agentdescent's acceptance stage.

agentdescent (PyPI ``agentdescent``, 0.7.x) is the optimizer that commits
edits: a merge commits only when its acceptance policy says so.
:class:`EvidenceRankingAcceptance` is such a policy. A diff that implements a
proposal the report *selected* (SPEC §5.4) goes on to the wrapped policy —
by default agentdescent's Beta-posterior test, which still decides whether it
commits. So does a fused diff (the union agentdescent builds from several
workers' diffs) made only of whole selected proposals; see
:mod:`ranking.integrations.agentdescent_fused`. Any other diff is refused as
``critic-rejected``, and the refusal names the proposal (or, for a fused diff,
the first offending parent or key), its disposition and its reason codes
(SPEC §6).

The report is verified when the policy is built (SPEC §7), so a tampered or
inconsistent report stops a run before its first rollout, never in the middle.
So is its policy: the report must have been ranked with the pinned config
(``config=``, by default the SPEC §2 defaults; ``ranking.checking.policy``). And, with
``trust=``, its provenance: the bundle (or, without one, the report) must be
signed by a key the trust file lists (docs/provenance.md).

Needs the optional extra: ``pip install 'evidence-rank[agentdescent]'``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Protocol

try:
    from agentdescent import AcceptancePolicy, AcceptDecision, Diff, MergeContext, MergeOutcome
    from agentdescent.defaults import DefaultAcceptance
except ImportError as e:
    raise ImportError(
        "ranking.integrations.agentdescent needs agentdescent 0.7.x: pip install 'evidence-rank[agentdescent]'"
    ) from e

from curator_io import Bundle, bundle_from_document
from curator_io.catalogue import REPORT_SCHEMA
from curator_io.config import DEFAULT_CONFIG, Config
from curator_io.report_model import RankingReport
from ranking.checking.acceptance import Accepted, Replayed, Sources, accept
from ranking.checking.apply import apply_selection
from ranking.integrations.agentdescent_fused import OpMap, RankedProposal, is_fused, judge_fused
from ranking.integrations.provenance import SignatureSource, Trust, read_signature, read_trust, signature_path
from ranking.ledger.curator import Runs
from ranking.ledger.fate import COMMITTED
from ranking.ledger.notes.composing import curator_notes
from ranking.ledger.notes.model import DEFAULT_BUDGET, Budget, Note
from ranking.ledger.records import Outcome, edits_of, finite
from ranking.ledger.store import Ledger, record_outcome
from ranking.running.inputs import read_input
from ranking.signing.signers import Signer
from validator import proposals_of

__all__ = [
    "EvidenceRankingAcceptance",
    "ProposalMatcher",
    "RankedProposal",
    "match_diff",
    "report_notes",
]

Source = str | os.PathLike[str] | bytes | Mapping[str, Any]
"""A path to a JSON file, the file's bytes, or the parsed document."""

# The aggregator turns a refusal's category into a MergeOutcome, so anything
# else stops the run with ValueError (agentdescent/aggregator.py, `_decide`).
_REFUSED = MergeOutcome.CRITIC_REJECTED.value
_TAG = f"{REPORT_SCHEMA}:"


class ProposalMatcher(Protocol):
    """Which proposals of the report a diff implements."""

    def __call__(self, diff: Diff, proposals: Sequence[RankedProposal], /) -> Iterable[str]:
        """Return the ids of the proposals ``diff`` implements; none when it implements none."""
        ...


def match_diff(diff: Diff, proposals: Sequence[RankedProposal]) -> tuple[str, ...]:
    """The default matcher.

    A diff matches the proposal whose id is ``diff.diff_id`` (and, when the
    bundle is known, whose op map equals ``diff.ops``). Otherwise it matches
    every proposal whose op map equals ``diff.ops``; op maps are known only
    when the policy was given the bundle.
    """
    ops = dict(diff.ops) if isinstance(diff.ops, Mapping) else None
    named = tuple(p for p in proposals if p.id == diff.diff_id)
    if named:
        # A diff that names a proposal must also carry its edit when the bundle
        # tells us what that edit is: a name alone must not smuggle other ops in.
        return tuple(p.id for p in named if p.ops is None or p.ops == ops)
    if ops is None:
        return ()
    return tuple(p.id for p in proposals if p.ops is not None and p.ops == ops)


class EvidenceRankingAcceptance:
    """An agentdescent ``AcceptancePolicy`` that commits only selected proposals.

    ``report`` is an evidence-ranking-v1 report: a path, its bytes, or the
    parsed document. ``inner`` decides on backed diffs (default:
    ``agentdescent.defaults.DefaultAcceptance``). ``match`` says which
    proposals a diff implements (default: :func:`match_diff`). ``bundle`` is
    the bundle the report ranked; without it only ``diff.diff_id`` can match,
    because a report carries no operations (SPEC §6). ``ledger`` is a ledger
    file (docs/ledger.md): the report is recorded in it, and so is each
    decision of ``inner`` on a backed diff (``ranking.ledger.Outcome``).

    ``config`` is the pinned policy: a ``curator_io.Config`` or a config
    object as in a config file. It defaults to the SPEC §2 defaults, so a
    report ranked with a looser config than the defaults never backs a diff
    unless the caller says so; pass the config you rank with, or ``None`` to
    trust the report's own config (only for a report your own code produced).

    Raises, when built: the error of :func:`ranking.checking.verification.check_report`
    for an unsealed or invalid report; ``curator_io.InputError`` for a file
    that is not I-JSON or a bundle that does not load; ``curator_io.TamperError``
    (``report.tampered``) when the report is not the one the bundle produces;
    ``curator_io.PolicyError`` (``policy.config_mismatch``) when it was ranked
    with another config than ``config``; ``curator_io.ConfigError`` for a
    ``config`` outside SPEC §2.

    ``trust`` is a trust file (docs/provenance.md), pinned like ``config``:
    its path, its bytes or a ``ranking.signing.trust.TrustList``. With it, the
    bundle (without a bundle, the report) must be signed by a key it lists:
    ``signature`` is the signature file's path or bytes, by default the
    document's path with ``.intoto.json`` added. Else building the policy
    raises ``curator_io.SignatureError`` (``signature.*``), and
    ``curator_io.ConfigError`` (``trust.invalid``) for a trust file that
    cannot be read. :attr:`signer` names who signed.
    """

    def __init__(
        self,
        report: Source,
        inner: AcceptancePolicy | None = None,
        match: ProposalMatcher | None = None,
        *,
        bundle: Source | None = None,
        config: Config | Mapping[str, Any] | None = DEFAULT_CONFIG,
        ledger: str | os.PathLike[str] | None = None,
        trust: Trust | None = None,
        signature: SignatureSource | None = None,
    ) -> None:
        given = None if bundle is None else _read(bundle)  # read once: the replay and the ledger's pool
        accepted = _accepted(report, given, config, trust, signature, named=bundle)
        model = accepted.report
        self.signer: Signer | None = accepted.signer
        """Who signed the bundle (without one, the report), when a trust file was given."""
        self.pinned: Config | None = accepted.pinned
        """The config the report was required to be ranked with; ``None`` when not pinned."""
        self.proposals: tuple[RankedProposal, ...] = _entries(model, _operations_of(accepted))
        """Every proposal of the report, sorted by id (SPEC §6)."""
        self.run: str = model.run
        self.digest: str = model.digest
        """The report's seal: which report this policy enforces."""
        self.inner: AcceptancePolicy = inner if inner is not None else DefaultAcceptance()
        self.match: ProposalMatcher = match if match is not None else match_diff
        self._by_id = {p.id: p for p in self.proposals}
        self.ledger = _Recorder(ledger, accepted, given) if ledger is not None else None
        """Where what the acceptance test does with each backed diff is recorded (docs/ledger.md)."""

    # The aggregator offers every installed policy its verifier and config
    # through these optional hooks (agentdescent/aggregator.py,
    # `install_policy`); they belong to the rule that reads them.
    def bind(self, verifier: Any) -> None:
        """Hand the engine's verifier on to ``inner``, if it takes one."""
        hook = getattr(self.inner, "bind", None)
        if callable(hook):
            hook(verifier)

    def configure(self, config: Any) -> None:
        """Hand the run's ``AggregatorConfig`` on to ``inner``, if it takes one."""
        hook = getattr(self.inner, "configure", None)
        if callable(hook):
            hook(config)

    def accept(self, ctx: MergeContext) -> AcceptDecision:
        """Refuse a diff no selected proposal backs; let ``inner`` decide the rest.

        A fused diff is judged by
        :func:`~ranking.integrations.agentdescent_fused.judge_fused`: backed
        when it is made only of whole selected proposals. A custom ``match``
        is asked first, so a scheme of one's own can still back it.
        """
        diff = ctx.diff
        fused = diff is not None and is_fused(diff.diff_id)
        # The default matcher is not asked about a fused diff: its parents'
        # names say what it is made of, and a union that happens to equal one
        # proposal's edit must not hide a parent that is not selected.
        matched = self._matched(diff) if not fused or self.match is not match_diff else ()
        if any(p.disposition == "selected" for p in matched):
            return self._decided(ctx, matched)
        if diff is None or not fused:
            return self._refusal(ctx, self._detail(diff, matched))
        # A Diff's ops are a dict; anything else carries no edit we can read.
        ops = diff.ops if isinstance(diff.ops, Mapping) else {}
        verdict = judge_fused(diff.diff_id, ops, self.proposals, self.run)
        if verdict.refusal is not None:
            return self._refusal(ctx, f"{_TAG} {verdict.refusal}")
        return self._decided(ctx, verdict.proposals)

    def _decided(self, ctx: MergeContext, backing: Sequence[RankedProposal]) -> AcceptDecision:
        """``inner``'s decision on a backed diff, recorded against each backing proposal."""
        decision = self.inner.accept(ctx)
        if self.ledger is not None:
            self.ledger.record(ctx, backing, decision)
        return decision

    @staticmethod
    def _refusal(ctx: MergeContext, detail: str) -> AcceptDecision:
        return AcceptDecision(
            False,
            _REFUSED,
            detail,
            # What DefaultAcceptance reports too: the measured change, which the
            # aggregator folds into the artifact's prior on every refusal.
            observed_delta=MergeContext.rate(ctx.cand_counts) - MergeContext.rate(ctx.base_counts),
        )

    def _matched(self, diff: Diff | None) -> tuple[RankedProposal, ...]:
        if diff is None:
            return ()
        ids = tuple(self.match(diff, self.proposals))
        unknown = [i for i in ids if i not in self._by_id]
        if unknown:
            raise ValueError(f"matcher returned {unknown[0]!r}, which is not a proposal of run {self.run!r}")
        return tuple(self._by_id[i] for i in ids)

    def _detail(self, diff: Diff | None, matched: Sequence[RankedProposal]) -> str:
        diff_id = diff.diff_id if diff is not None else "(none)"
        if not matched:
            return f"{_TAG} no proposal of run {self.run} matched diff {diff_id}"
        named = "; ".join(f"{p.id} ({p.disposition}: {', '.join(p.codes)})" for p in matched)
        return f"{_TAG} diff {diff_id} matches {named}"


class _Recorder:
    """``ledger=``: the report goes into the ledger when the policy is built, and
    each decision on a backed diff after it is made, against the selected
    proposals' fingerprints. Only what this policy sees: a commit that the
    aggregator's oracle or a CAS conflict stops afterwards is not known here."""

    def __init__(
        self, path: str | os.PathLike[str], accepted: Accepted, bundle: bytes | Mapping[str, Any] | None
    ) -> None:
        self.path = path
        self.report: str = accepted.report.digest
        self.fingerprints = {e.id: e.fingerprint for e in accepted.report.proposals}
        with Ledger.open(path) as ledger:
            # With who signed, and when replayed its edits, its memory and its pool (docs/ledger.md).
            ledger.add_report(accepted, bundle=bundle)

    def record(self, ctx: MergeContext, matched: Sequence[RankedProposal], decision: AcceptDecision) -> None:
        version = getattr(ctx.artifact, "version", None)
        for p in matched:
            if p.disposition != "selected":
                continue
            outcome = Outcome(
                report=self.report,
                proposal=p.id,
                fingerprint=self.fingerprints[p.id],
                diff=ctx.diff.diff_id if ctx.diff is not None else "",
                version=version if isinstance(version, int) else None,
                category=COMMITTED if decision.accept else decision.category,
                p_improve=finite(decision.p_improve),
                observed_delta=finite(decision.observed_delta),
            )
            record_outcome(self.path, outcome)


def report_notes(
    report: Source,
    *,
    bundle: Source | None = None,
    lesson: str | None = None,
    budget: Budget = DEFAULT_BUDGET,
) -> tuple[Note, ...]:
    """The curator's notes on one report's edits (:mod:`ranking.ledger.notes.composing`, the policy every
    host shares): what to do next with each edit it did not select. With ``bundle`` (the report
    is then replayed from it), each note names its edit; without, its proposal and rationale.
    ``lesson`` keeps the notes on that lesson's edits. The report is accepted first, as for
    :class:`EvidenceRankingAcceptance`. Across runs, read them from a ledger
    (:func:`ranking.ledger.read_notes`)."""
    accepted = _accepted(report, bundle, None, None, None)
    runs = Runs()
    edits = edits_of(e.proposal for e in accepted.result.validation.entries) if isinstance(accepted, Replayed) else ()
    runs.add(accepted.document, edits)
    # With the bundle, the memory the selection permits: the look-alikes the write would keep are named.
    memory = apply_selection(accepted) if isinstance(accepted, Replayed) else None
    return curator_notes(runs, lesson=lesson, budget=budget, memory=memory)


def _accepted(
    report: Source,
    bundle: Source | None,
    config: Config | Mapping[str, Any] | None,
    trust: Trust | None,
    signature: SignatureSource | None,
    *,
    named: Source | None = None,
) -> Accepted:
    """The report, accepted (:func:`ranking.checking.acceptance.accept`): each source read once,
    by the reader's rules when it is a path. ``named``: the source ``bundle`` was read from, when
    the caller read it (for the signature's place and the errors)."""
    named = bundle if named is None else named
    signed = named if named is not None else report
    where = signature_path(signature, signed)
    return accept(
        _read(report),
        bundle=None if bundle is None else _bundle(bundle),
        config=dict(config) if isinstance(config, Mapping) else config,
        trust=read_trust(trust),
        signature=read_signature(signature, where),
        sources=Sources(report=_name(report), bundle=_name(named), signature=where, trust=_name(trust)),
    )


def _read(source: Source) -> bytes | Mapping[str, Any]:
    return source if isinstance(source, (bytes, Mapping)) else read_input(source)


def _bundle(source: Source) -> Bundle | bytes:
    if isinstance(source, Mapping):
        return bundle_from_document(dict(source))
    return source if isinstance(source, bytes) else read_input(source)


def _name(source: object) -> str | None:
    """The file a source was read from, for errors; None for bytes or a document."""
    return os.fspath(source) if isinstance(source, (str, os.PathLike)) else None


def _operations_of(accepted: Accepted) -> dict[str, OpMap]:
    """The op map of every structurally complete proposal of the bundle the report was replayed
    from; none without the bundle."""
    if not isinstance(accepted, Replayed):
        return {}
    out: dict[str, OpMap] = {}
    for proposal in proposals_of(accepted.bundle).values():
        # SPEC §1: add/replace carry text, remove carries none (text is None).
        out[proposal.id] = MappingProxyType({op.key: op.text for op in proposal.operations})
    return out


def _entries(report: RankingReport, operations: Mapping[str, OpMap]) -> tuple[RankedProposal, ...]:
    return tuple(
        RankedProposal(
            id=entry.id,
            disposition=entry.disposition,
            codes=tuple(dict.fromkeys(reason.code for reason in entry.reasons)),
            rationale=entry.rationale,
            lesson=entry.lesson,
            ops=operations.get(entry.id),
        )
        for entry in report.proposals
    )
