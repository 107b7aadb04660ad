"""Pure validation of a frozen bundle (SPEC §3)."""

from validator.normalize import norm
from validator.proposal import Operation, Proposal, check_structure, fingerprint, proposals_of
from validator.reasons import DISPOSITION_OF, Reason
from validator.support import SupportFacts, derive_scope
from validator.validation import VALIDATION_SCHEMA, Validation, ValidationEntry, validate

__all__ = [
    "DISPOSITION_OF",
    "Operation",
    "Proposal",
    "Reason",
    "SupportFacts",
    "VALIDATION_SCHEMA",
    "Validation",
    "ValidationEntry",
    "check_structure",
    "derive_scope",
    "fingerprint",
    "norm",
    "proposals_of",
    "validate",
]
