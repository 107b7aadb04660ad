"""The codes catalogue: every name SPEC.md fixes once, written here and only here.

Schema ids, dispositions and outcomes, the reason codes with the disposition
each implies and the sentence that explains it, which codes are informational,
the §4 components with their maxima, the members of each report object, and
every error code with its exit code. Every other module imports these;
``tests/test_catalogue.py`` fails when an error is raised with a code the table
lacks or exits otherwise than it says.

At the floor (:mod:`curator_io`), because the validator and the ranking both
need it; it imports only :mod:`typing`, so importing it costs a command nothing
it can measure. The words of the layers above stay with them: which dispositions
the ledger counts as refused (:mod:`ranking.ledger.records`), a batch summary's
outcomes (:mod:`ranking.running.batch_summary`), the run view's order. Every
error code is here, the command line's too: errors live at the floor, so that
nothing imports upward to raise one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, get_args

__all__ = [
    "DIGEST_PREFIX",
    "ValidationSchema",
    "RankingSchema",
    "BUNDLE_SCHEMA",
    "VALIDATION_SCHEMA",
    "REPORT_SCHEMA",
    "SUMMARY_SCHEMA",
    "SCHEMA_IDS",
    "ValidationDisposition",
    "FinalDisposition",
    "Outcome",
    "ACCEPTED",
    "DEFERRED",
    "QUARANTINED",
    "REJECTED",
    "SELECTED",
    "SUPERSEDED",
    "UNSELECTED",
    "VALIDATION_DISPOSITIONS",
    "FINAL_OF_ACCEPTED",
    "OUTCOMES",
    "NO_OP",
    "INFORMATIONAL_CODES",
    "DISPOSITION_OF",
    "SENTENCES",
    "reason_label",
    "MAXIMA",
    "COMPONENTS",
    "RECURRENCE_PER_LINEAGE",
    "PENALTY_MAXIMUM",
    "REASON_MEMBERS",
    "SUPPORT_MEMBERS",
    "VALIDATION_ENTRY_MEMBERS",
    "VALIDATION_REPORT_MEMBERS",
    "SCORE_MEMBERS",
    "RANKING_ENTRY_MEMBERS",
    "COUNTS_MEMBERS",
    "RANKING_REPORT_MEMBERS",
    "INVARIANTS",
    "MARKDOWN_REFUSALS",
    "EXIT_FAILED",
    "EXIT_USAGE",
    "EXIT_INPUT",
    "EXIT_REFUSED",
    "EXIT_OF_CODE",
]

DIGEST_PREFIX: Final = "sha256:"
"""SPEC §0: a DIGEST is this prefix and the 64 lowercase hex digits of a SHA-256."""

# -- Schema ids (SPEC §1, §3.7, §6; docs/batch.md) --------------------------------------------

ValidationSchema = Literal["evidence-validation-v1"]
RankingSchema = Literal["evidence-ranking-v1"]

BUNDLE_SCHEMA: Final = "curator-bundle-v1"
VALIDATION_SCHEMA: Final[str] = get_args(ValidationSchema)[0]
REPORT_SCHEMA: Final[str] = get_args(RankingSchema)[0]
SUMMARY_SCHEMA: Final = "evidence-rank-batch-v1"
"""A batch folder's ``summary.json`` (docs/batch.md); no JSON Schema is published for it."""

#: The name ``evidence-rank schema NAME`` takes, and the schema id (and file name) it stands for.
SCHEMA_IDS: Final[Mapping[str, str]] = {
    "bundle": BUNDLE_SCHEMA,
    "validation": VALIDATION_SCHEMA,
    "report": REPORT_SCHEMA,
}

# -- Dispositions and outcomes (SPEC §3, §5, §6) -----------------------------------------------

#: SPEC §3: a proposal's validation disposition.
ValidationDisposition = Literal["accepted", "deferred", "quarantined", "rejected"]
#: SPEC §6: a proposal's final disposition, in the order the published schema lists them.
FinalDisposition = Literal["selected", "superseded", "unselected", "deferred", "quarantined", "rejected"]
#: SPEC §5.5: a report's outcome.
Outcome = Literal["selected", "no_op"]

VALIDATION_DISPOSITIONS: Final[tuple[str, ...]] = get_args(ValidationDisposition)
_FINAL: Final[tuple[str, ...]] = get_args(FinalDisposition)
OUTCOMES: Final[tuple[str, ...]] = get_args(Outcome)

ACCEPTED, DEFERRED, QUARANTINED, REJECTED = VALIDATION_DISPOSITIONS
SELECTED, SUPERSEDED, UNSELECTED = _FINAL[:3]
#: The outcome of a report that selects nothing; one that selects is ``SELECTED`` (SPEC §5.5).
NO_OP: Final = OUTCOMES[1]

#: SPEC §5: the final dispositions an accepted proposal can end with (§5.1 defers it, §5.3-4 the rest).
FINAL_OF_ACCEPTED: Final = frozenset({SELECTED, SUPERSEDED, UNSELECTED, DEFERRED})


# -- Reason codes (SPEC §3.1-§3.5, §5) -------------------------------------------------------

#: The disposition each validation reason implies (SPEC §3.1-§3.5).
DISPOSITION_OF: Final[dict[str, str]] = {
    "proposal.incomplete": REJECTED,
    "closure.unknown_lesson": REJECTED,
    "closure.unknown_evidence": REJECTED,
    "closure.unknown_trace": REJECTED,
    "closure.unknown_materialization": REJECTED,
    "closure.outside_lesson": REJECTED,
    "closure.conflicting_stance": REJECTED,
    "closure.step_out_of_range": REJECTED,
    "closure.stale_memory": REJECTED,
    "closure.unknown_instruction": REJECTED,
    "closure.key_exists": REJECTED,
    "closure.stale_instruction": REJECTED,
    "artifact.invalid_digest": REJECTED,
    "artifact.digest_mismatch": REJECTED,
    "delta.oversized": REJECTED,
    "delta.noop": REJECTED,
    "instruction.duplicate": REJECTED,
    "evidence.quarantined": ACCEPTED,
    "support.quarantined": QUARANTINED,
    "support.insufficient_lineages": DEFERRED,
    "support.counterevidence": REJECTED,
    "scope.mismatch": REJECTED,
}


def reason_label(code: str, subject: str | None) -> str:
    """``code(subject)``, or ``code`` when the subject is null: a reason as tables and notes show it."""
    return code if subject is None else f"{code}({subject})"


#: Reason codes that refuse nothing (SPEC §3.5.1 quarantine is informational; rank.selected is
#: the selection itself): counts of refusals leave them out.
INFORMATIONAL_CODES: Final = frozenset({"evidence.quarantined", "rank.selected"})

#: One sentence per reason code (SPEC §3, §5). ``{subject}`` and the config members may be used.
SENTENCES: Final[Mapping[str, str]] = {
    "proposal.incomplete": "The proposal is structurally incomplete at member '{subject}': it is missing, "
    "of the wrong type or format, or not allowed, so no other check ran (SPEC §3.1).",
    "closure.unknown_lesson": "Its lesson {subject} is not among the bundle's lessons.",
    "closure.unknown_evidence": "It cites evidence {subject}, which is not in the bundle.",
    "closure.unknown_trace": "A cited evidence item belongs to trace {subject}, which is not in the bundle.",
    "closure.unknown_materialization": "A cited trace ran in materialization {subject}, which is not in the bundle.",
    "closure.outside_lesson": "It cites {subject} as support, but its lesson does not list that evidence.",
    "closure.conflicting_stance": "It cites {subject} both as support and as contradiction.",
    "closure.step_out_of_range": "Evidence {subject} points at a step past the end of its trace.",
    "closure.stale_memory": "It was written against another memory version: base_memory_version is not "
    "the bundle's memory.version.",
    "closure.unknown_instruction": "It replaces or removes instruction {subject}, which is not in memory.",
    "closure.key_exists": "It adds instruction {subject}, but that key already exists in memory or among "
    "the instructions in force.",
    "closure.stale_instruction": "It edits instruction {subject} as it used to be: its expected_digest is not "
    "the instruction's current digest.",
    "artifact.invalid_digest": "Artifact {subject} in its closure has a digest member that is not a sha256 digest.",
    "artifact.digest_mismatch": "Artifact {subject} in its closure was changed after it was sealed: its digest "
    "does not match its content.",
    "delta.oversized": "Its edit is too large: more than {max_operations} operations, an operation text over "
    "{max_operation_bytes} bytes, or over {max_delta_bytes} text bytes in all.",
    "delta.noop": "Its replace of {subject} changes nothing: the same text (once normalized) in the same scope.",
    "instruction.duplicate": "Its text for {subject} duplicates an instruction that already exists (once "
    "normalized): in memory under another key, in force in a containing scope, or in the same proposal.",
    "evidence.quarantined": "Evidence {subject} comes from a materialization marked incompatible or invalid: "
    "it is quarantined and influences nothing (informational).",
    "support.quarantined": "Once quarantined evidence is set aside, too few independent lineages support it; "
    "it is quarantined until evidence from sound materializations recurs.",
    "support.insufficient_lineages": "Its verified support comes from fewer independent lineages (root tasks) "
    "than required; it is deferred until the lesson recurs.",
    "support.counterevidence": "Verified counterevidence is at least as strong as its verified support.",
    "scope.mismatch": "Its scope is not the scope its evidence actually covers.",
    "rank.selected": "It cleared the threshold of {threshold}, neither duplicates nor conflicts with a "
    "higher-ranked proposal, and is among the first {max_selected} survivors: the Writer may apply it.",
    "rank.limit": "It survived the ranking, but {max_selected} higher-ranked survivors were already selected "
    "(max_selected).",
    "rank.duplicate": "It makes exactly the same edits as {subject}, which ranks higher (same fingerprint).",
    "rank.conflict": "It edits a key that {subject}, a higher-ranked survivor, also edits: the two operations "
    "differ, or the two scopes do.",
    "rank.below_threshold": "It was accepted, but its final score is below the threshold of {threshold}.",
}

# -- Scores (SPEC §4) ------------------------------------------------------------------------

#: The six components in the order SPEC §4 lists them, each with its maximum (they add up to 100).
MAXIMA: Final[Mapping[str, int]] = {
    "recurrence": 30,
    "provenance": 20,
    "source_signal": 15,
    "scope_coverage": 15,
    "confidence": 10,
    "completeness": 10,
}
COMPONENTS: Final[tuple[str, ...]] = tuple(MAXIMA)
#: The points each independent lineage adds to ``recurrence``, up to its maximum: 10 · n.
RECURRENCE_PER_LINEAGE: Final = 10
#: The contradiction penalty's maximum: 40 · C / S, and a proposal with C >= S is rejected (§3.5).
PENALTY_MAXIMUM: Final = 40

# -- The reports' members (SPEC §3.7, §6) ----------------------------------------------------
# Each report object's members, in the order SPEC writes them: the order the validator and the
# pipeline write them in, and the field order of the classes that read them
# (curator_io.report_model checks it is theirs; writing a report does not build those classes).

REASON_MEMBERS: Final = ("code", "subject")
SUPPORT_MEMBERS: Final = ("lineages", "required", "strength", "contradiction", "verified", "quarantined", "earliest")
VALIDATION_ENTRY_MEMBERS: Final = ("id", "lesson", "fingerprint", "validation", "reasons", "support")
#: The seal, ``digest``, is last, as it is added last.
VALIDATION_REPORT_MEMBERS: Final = ("schema", "run", "input_digest", "config", "proposals", "digest")
SCORE_MEMBERS: Final = (*COMPONENTS, "contradiction_penalty", "final")
#: SPEC §6: the validation entry's members, then the ranking's.
RANKING_ENTRY_MEMBERS: Final = (*VALIDATION_ENTRY_MEMBERS, "disposition", "score", "rank", "superseded_by", "rationale")
COUNTS_MEMBERS: Final = (
    "proposals",
    *VALIDATION_DISPOSITIONS,
    "eligible",
    "below_threshold",
    SELECTED,
    SUPERSEDED,
    UNSELECTED,
)
RANKING_REPORT_MEMBERS: Final = (
    "schema",
    "run",
    "input_digest",
    "config",
    "validation_digest",
    "proposals",
    "ranking",
    "selected",
    "outcome",
    "counts",
    "digest",
)

# -- Errors: every code, with its exit code (README, "Exit codes") ----------------------------

#: SPEC §7, in the order they are checked; each fails as ``invariant.<name>``.
INVARIANTS: Final = (
    "sealed",
    "schema",
    "partition",
    "components",
    "threshold",
    "order",
    "limit",
    "selection",
    "unique",
    "conflict_free",
)

#: A Markdown memory that is not in the form (docs/markdown-memory.md, "Reading", in the order of its
#: steps), and a memory the form cannot hold; each is ``input.markdown_<name>``, exit 3.
MARKDOWN_REFUSALS: Final = (
    "too_large",
    "encoding",
    "marker",
    "no_section",
    "two_sections",
    "unpaired",
    "tab",
    "heading",
    "block",
    "nested_list",
    "item",
    "scope",
    "no_scope",
    "no_key",
    "key",
    "duplicate_key",
    "text",
    "layout",
    "unrepresentable",
)

#: README, "Exit codes" (0 is success): a gate or check failed; usage, unreadable or unwritable;
#: invalid input; verification or integrity refused.
EXIT_FAILED, EXIT_USAGE, EXIT_INPUT, EXIT_REFUSED = 1, 2, 3, 4
_USAGE, _INPUT, _REFUSED, _FAILED = EXIT_USAGE, EXIT_INPUT, EXIT_REFUSED, EXIT_FAILED

#: Every code an :class:`~curator_io.errors.EvidenceRankError` may carry, and the exit code it
#: gives: SPEC §1's input errors, §2's config error, §7/§8's tamper and invariant errors, a report
#: ranked under another policy than the pinned one, the CLI's usage errors, the batch summary's,
#: the ledger's (docs/ledger.md), and the trust file's, the key's and the signature's
#: (docs/provenance.md). Each error class's ``exit_code`` is its codes' exit code.
EXIT_OF_CODE: Final[Mapping[str, int]] = {
    "input.malformed_json": _INPUT,
    "input.schema": _INPUT,
    "input.duplicate_id": _INPUT,
    "input.inconsistent_trace": _INPUT,
    "input.frozen_digest_mismatch": _INPUT,
    **{f"input.markdown_{name}": _INPUT for name in MARKDOWN_REFUSALS},
    "config.invalid": _USAGE,
    "usage.unreadable": _USAGE,
    "usage.unwritable": _USAGE,
    "usage.invalid_option": _USAGE,
    "usage.missing_extra": _USAGE,
    "usage.scheduler_unreachable": _USAGE,
    "usage.unknown_proposal": _USAGE,
    "trust.invalid": _USAGE,
    "key.invalid": _USAGE,
    "ledger.not_a_ledger": _USAGE,
    "ledger.version": _USAGE,
    "validation.tampered": _REFUSED,
    "report.tampered": _REFUSED,
    "summary.tampered": _REFUSED,
    "ledger.tampered": _REFUSED,
    "ledger.damaged": _REFUSED,
    **{f"invariant.{name}": _REFUSED for name in INVARIANTS},
    "signature.unsigned": _REFUSED,
    "signature.malformed": _REFUSED,
    "signature.unknown_key": _REFUSED,
    "signature.invalid": _REFUSED,
    "signature.subject_mismatch": _REFUSED,
    "policy.config_mismatch": _FAILED,
    "policy.base_mismatch": _FAILED,
}
