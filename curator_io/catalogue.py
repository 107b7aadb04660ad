"""The codes catalogue: every name SPEC.md fixes once, written here and only here.

Schema ids, dispositions and outcomes, the reason codes with the disposition
each implies and the sentence that explains it, which codes are informational,
the §4 components with their maxima, the members of each report object, and
every error code with its exit code. Every other module imports these;
``tests/curator_io/test_catalogue.py`` fails when an error is raised with a code the table
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
from typing import Any, Final, Literal, get_args

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
    "FINAL_DISPOSITIONS",
    "FINAL_OF_ACCEPTED",
    "OUTCOMES",
    "NO_OP",
    "INFORMATIONAL_CODES",
    "DISPOSITION_OF",
    "SENTENCES",
    "REMEDIES",
    "SUBJECTS",
    "reason_label",
    "reason_sentence",
    "reason_meaning",
    "reason_remedy",
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
#: SPEC §6: every final disposition, in the order the published schema lists them.
FINAL_DISPOSITIONS: Final = _FINAL
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

#: One row per reason code (SPEC §3, §5): what its subject is (SPEC's tables; None when it has
#: none), the sentence that explains it, and the remedy a curator's note gives (None where there is
#: nothing to do differently). Sentences and remedies may use ``{subject}`` and the config's members;
#: a remedy also ``{memory}`` (" (now version N)" when the current memory version is known, else
#: empty), ``{more_tasks}`` (how many more independent tasks a deferral needs), ``{weights}`` (the
#: strengths counterevidence and support had) and ``{final}`` (the score). One table, so that a
#: code's sentence and its remedy cannot drift apart.
_REASONS: Final[Mapping[str, tuple[str | None, str, str | None]]] = {
    "proposal.incomplete": (
        "member",
        "The proposal is structurally incomplete at member '{subject}': it is missing, "
        "of the wrong type or format, or not allowed, so no other check ran (SPEC §3.1).",
        "Write every member SPEC §1 requires, each of its type, and no other.",
    ),
    "closure.unknown_lesson": (
        "lesson id",
        "Its lesson {subject} is not among the bundle's lessons.",
        "Cite a lesson that is in the bundle.",
    ),
    "closure.unknown_evidence": (
        "evidence id",
        "It cites evidence {subject}, which is not in the bundle.",
        "Cite only evidence that is in the bundle.",
    ),
    "closure.unknown_trace": (
        "trace id",
        "A cited evidence item belongs to trace {subject}, which is not in the bundle.",
        "Cite only evidence whose trace is in the bundle.",
    ),
    "closure.unknown_materialization": (
        "materialization id",
        "A cited trace ran in materialization {subject}, which is not in the bundle.",
        "Cite only evidence whose trace's materialization is in the bundle.",
    ),
    "closure.outside_lesson": (
        "evidence id",
        "It cites {subject} as support, but its lesson does not list that evidence.",
        "Cite as support only evidence its lesson lists.",
    ),
    "closure.conflicting_stance": (
        "evidence id",
        "It cites {subject} both as support and as contradiction.",
        "Cite {subject} as support or as contradiction, not both.",
    ),
    "closure.step_out_of_range": (
        "evidence id",
        "Evidence {subject} points at a step past the end of its trace.",
        "Cite a step of the trace: steps count from 0 and stay below the trace's number of steps.",
    ),
    "closure.stale_memory": (
        None,
        "It was written against another memory version: base_memory_version is not the bundle's memory.version.",
        "Re-read the memory{memory} and write the edit against it, with its version as base_memory_version.",
    ),
    "closure.unknown_instruction": (
        "key",
        "It replaces or removes instruction {subject}, which is not in memory.",
        "There is no instruction {subject} to change: use add for a new instruction, or name a key the memory holds.",
    ),
    "closure.key_exists": (
        "key",
        "It adds instruction {subject}, but that key already exists in memory or among the instructions in force.",
        "To change {subject}, use replace on it with its current digest as expected_digest; to add a new "
        "instruction, choose a key the memory does not hold.",
    ),
    "closure.stale_instruction": (
        "key",
        "It edits instruction {subject} as it used to be: its expected_digest is not the instruction's current digest.",
        "Re-read {subject} in the current memory{memory} and write the edit against its current digest.",
    ),
    "artifact.invalid_digest": (
        "artifact id",
        "Artifact {subject} in its closure has a digest member that is not a sha256 digest.",
        "Record the bundle again from the original artifacts: the edit itself was not judged.",
    ),
    "artifact.digest_mismatch": (
        "artifact id",
        "Artifact {subject} in its closure was changed after it was sealed: its digest does not match its content.",
        "Record the bundle again from the original artifacts: the edit itself was not judged.",
    ),
    "delta.oversized": (
        None,
        "Its edit is too large: more than {max_operations} operations, an operation text over "
        "{max_operation_bytes} bytes, or over {max_delta_bytes} text bytes in all.",
        "Split it into smaller edits: at most {max_operations} operations, {max_operation_bytes} bytes an "
        "operation text and {max_delta_bytes} bytes in all.",
    ),
    "delta.noop": (
        "key",
        "Its replace of {subject} changes nothing: the same text (once normalized) in the same scope.",
        "Nothing to do: memory already says this for {subject}.",
    ),
    "instruction.duplicate": (
        "key",
        "Its text for {subject} duplicates an instruction that already exists (once normalized): in memory "
        "under another key, in force in a containing scope, or in the same proposal.",
        "Nothing to add: an instruction in force already says this; to change that instruction, replace it "
        "under its own key.",
    ),
    "evidence.quarantined": (
        "evidence id",
        "Evidence {subject} comes from a materialization marked incompatible or invalid: it is quarantined "
        "and influences nothing (informational).",
        None,
    ),
    "support.quarantined": (
        None,
        "Once quarantined evidence is set aside, too few independent lineages support it; it is quarantined "
        "until evidence from sound materializations recurs.",
        "Propose it again when evidence from sound materializations (not incompatible or invalid) shows the lesson.",
    ),
    "support.insufficient_lineages": (
        None,
        "Its verified support comes from fewer independent lineages (root tasks) than required; it is "
        "deferred until the lesson recurs.",
        "Propose it again, as it is, once the lesson recurs in {more_tasks}: tasks other than those it "
        "cites, as more runs of one task count once.",
    ),
    "support.counterevidence": (
        None,
        "Verified counterevidence is at least as strong as its verified support.",
        "The evidence contradicts it{weights}: propose it only if new, independent support outweighs that "
        "counterevidence.",
    ),
    "scope.mismatch": (
        None,
        "Its scope is not the scope its evidence actually covers.",
        "Give it the scope its supporting evidence covers: the repositories and paths of the cited traces.",
    ),
    "rank.selected": (
        None,
        "It cleared the threshold of {threshold}, neither duplicates nor conflicts with a higher-ranked "
        "proposal, and is among the first {max_selected} survivors: the Writer may apply it.",
        None,
    ),
    "rank.limit": (
        None,
        "It survived the ranking, but {max_selected} higher-ranked survivors were already selected (max_selected).",
        "Propose it again as it is: it passed every rule, and only the limit of {max_selected} selected edits "
        "a run stopped it.",
    ),
    "rank.duplicate": (
        "proposal id",
        "It makes exactly the same edits as {subject}, which ranks higher (same fingerprint).",
        None,
    ),
    "rank.conflict": (
        "proposal id",
        "It edits a key that {subject}, a higher-ranked survivor, also edits: the two operations differ, or "
        "the two scopes do.",
        "Do not compete with that edit: once it is in memory, re-read the memory and replace the key against it "
        "if it still needs to change.",
    ),
    "rank.below_threshold": (
        None,
        "It was accepted, but its final score is below the threshold of {threshold}.",
        "Its score{final} is below the threshold of {threshold}: propose it again when more independent tasks "
        "(10 points each, up to 30) or stronger signals support it.",
    ),
}

#: One sentence per reason code (SPEC §3, §5). ``{subject}`` and the config members may be used.
SENTENCES: Final[Mapping[str, str]] = {code: sentence for code, (_, sentence, _) in _REASONS.items()}
#: What a curator's note says to do next, per reason code; None where there is nothing to do
#: differently (the fields a remedy may use are above ``_REASONS``).
REMEDIES: Final[Mapping[str, str | None]] = {code: remedy for code, (_, _, remedy) in _REASONS.items()}
#: What each reason's subject names (SPEC's tables), None for a code whose subject is always null.
SUBJECTS: Final[Mapping[str, str | None]] = {code: subject for code, (subject, _, _) in _REASONS.items()}

_NOT_AN_OBJECT: Final = "The proposal is not a JSON object, so no other check ran (SPEC §3.1)."
"""``proposal.incomplete``'s sentence when its subject is null (SPEC §3.1: not an object)."""


def reason_sentence(code: str, subject: str | None, config: Mapping[str, Any]) -> str:
    """The sentence of a reason (``code`` and ``subject``), the config's members by value: what
    ``explain``, the run view and a curator's note say of it."""
    if subject is None and code == "proposal.incomplete":
        return _NOT_AN_OBJECT
    return SENTENCES[code].format_map(_Fields(config, subject=subject))


def reason_meaning(code: str, config: Mapping[str, Any] | None = None) -> str:
    """What a reason code means, whoever carries it: its sentence with its subject named by kind
    (``‹key›``), the config's members by value, or by name (``‹threshold›``) without a config."""
    return SENTENCES[code].format_map(_Fields(config or {}, subject=f"‹{SUBJECTS[code] or 'subject'}›"))


def reason_remedy(code: str, subject: str | None, config: Mapping[str, Any], **facts: str) -> str | None:
    """What a curator's note says to do about a reason (:data:`REMEDIES`), its fields filled from
    the subject, the config and ``facts`` (``memory``, ``more_tasks``, ``weights``, ``final``:
    the words above ``_REASONS``); None where there is nothing to do differently."""
    template = REMEDIES[code]
    return None if template is None else template.format_map(_Fields(config, subject=subject, **facts))


class _Fields(dict[str, Any]):
    """A template's fields: numbers written as JSON writes them (``40``, ``12.5``), and a field
    nobody gave named in place (``‹max_selected›``)."""

    def __init__(self, config: Mapping[str, Any], **given: Any) -> None:
        super().__init__({name: _number(value) for name, value in config.items()}, **given)

    def __missing__(self, name: str) -> str:
        return f"‹{name}›"


def _number(value: Any) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


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
    "input.transcript_empty": _INPUT,
    # docs/gate-your-agents-md.md: the Claude Code hook's payload, and a settings file to merge into.
    "input.hook_payload": _INPUT,
    "input.settings": _INPUT,
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
    "notes.invalid": _INPUT,
    **{f"invariant.{name}": _REFUSED for name in INVARIANTS},
    "signature.unsigned": _REFUSED,
    "signature.malformed": _REFUSED,
    "signature.unknown_key": _REFUSED,
    "signature.invalid": _REFUSED,
    "signature.subject_mismatch": _REFUSED,
    "policy.config_mismatch": _FAILED,
    "policy.base_mismatch": _FAILED,
}
