"""The kinds of object a bundle holds (SPEC §1), each described once: its members
in the order SPEC §1 lists them, each with its rule (:class:`curator_io.grammar.Rule`:
the check, the message, the JSON Schema fragment).

Everything else is derived from these tables, never restated:

- checking one object member by member, naming the first that fails
  (:func:`curator_io.artifacts.build_item`, the head of :mod:`curator_io.bundle`);
- checking a chunk of artifacts one member at a time across the chunk, where that is
  faster (:mod:`curator_io._fast.bulk`, from each rule's ``shape``);
- the published JSON Schema of a bundle (:func:`curator_io.schema_generator.generate_schema`),
  proposals and operations included, so an editor flags a misspelled member;
- the structure of a proposal (SPEC §3.1): :mod:`validator.proposal` rejects one as
  ``proposal.incomplete`` naming :meth:`Kind.first_offending` of :data:`PROPOSAL`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from curator_io import grammar as g
from curator_io.catalogue import BUNDLE_SCHEMA
from curator_io.grammar import DIGEST, ID, INT, INT_FROM_1, PATH, PATH_OR_NULL, REPO, STRING, TIMESTAMP, Rule
from curator_io.models import SIGNAL_WEIGHTS, Evidence, Instruction, Lesson, Materialization, Scope, Trace

__all__ = [
    "Kind",
    "is_scope",
    "parse_scope",
    "SCOPES",
    "INSTRUCTION",
    "MATERIALIZATION",
    "TRACE",
    "EVIDENCE",
    "LESSON",
    "RUN",
    "MEMORY",
    "FROZEN",
    "OPERATIONS",
    "PROPOSAL",
    "BUNDLE",
    "ARTIFACTS",
    "DEFINITIONS",
]


_ABSENT = object()


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of JSON object in a bundle."""

    title: str
    """Its name in the published schema."""
    members: tuple[tuple[str, Rule], ...]
    """Every required member and its rule, in the order SPEC §1 lists them: the first that
    fails is the one an error names."""
    model: Callable[..., Any] | None = None
    """What an artifact is built into: its kept members, then its seal's verdict (SPEC §3.3)."""
    kept: tuple[str, ...] = ()
    """The first members, which the model keeps, in its field order."""
    keeps_object: bool = False
    """The model keeps the JSON object too, last (memory instructions: SPEC §8 writes them back)."""
    closed: bool = False
    """No member beyond these (a scope); otherwise unknown members are allowed and count in seals."""
    optional: frozenset[str] = frozenset()
    """The members that may be absent (a proposal's ``rationale``); every other one is required."""
    description: str | None = None
    names: frozenset[str] = field(init=False)
    _checks: tuple[tuple[str, Callable[[Any], bool], bool], ...] = field(init=False, repr=False)
    """(name, its rule's check, whether it is optional) for each member, in order."""

    def __post_init__(self) -> None:
        assert tuple(name for name, _ in self.members[: len(self.kept)]) == self.kept, self.title
        object.__setattr__(self, "names", frozenset(name for name, _ in self.members))
        checks = tuple((name, rule.holds, name in self.optional) for name, rule in self.members)
        object.__setattr__(self, "_checks", checks)

    def rule(self, name: str) -> Rule:
        return dict(self.members)[name]

    def matches(self, value: Any) -> bool:
        """Whether ``value`` is an object of this kind: every required member there, each as its
        rule says, and (for a closed kind) nothing else."""
        return type(value) is dict and self.first_offending(value) is None

    def first_offending(self, value: dict[str, Any]) -> str | None:
        """The member of the object ``value`` to name when it is not of this kind: the first, in
        the order of ``members``, that is missing (and not optional) or breaks its rule; else,
        for a closed kind, the first unknown member in ordinal order. None when it is of this
        kind. (SPEC §3.1's subject, for a proposal.)"""
        if value.keys() == self.names:  # the usual case: every member there, and no other
            for name, holds, _ in self._checks:
                if not holds(value[name]):
                    return name
            return None
        get = value.get
        for name, holds, optional in self._checks:
            member = get(name, _ABSENT)
            if member is _ABSENT:
                if not optional:
                    return name
            elif not holds(member):
                return name
        if self.closed and not self.names.issuperset(value):
            return min(name for name in value if name not in self.names)
        return None


def _object_of(kind: Kind) -> Rule:
    return Rule("an object", lambda v: type(v) is dict, {"$ref": f"#/$defs/{kind.title}"})


def _array_of(kind: Kind) -> Rule:
    return Rule("an array", lambda v: type(v) is list, {"type": "array", "items": {"$ref": f"#/$defs/{kind.title}"}})


# --- scopes ---------------------------------------------------------------------------

GLOBAL_SCOPE = Kind("GlobalScope", (("level", g.const("global")),), closed=True)
REPOSITORY_SCOPE = Kind("RepositoryScope", (("level", g.const("repository")), ("repository", REPO)), closed=True)
PATH_SCOPE = Kind("PathScope", (("level", g.const("path")), ("repository", REPO), ("path", PATH)), closed=True)
#: SPEC §1: a scope has exactly the members of its level and no others.
SCOPES = {"global": GLOBAL_SCOPE, "repository": REPOSITORY_SCOPE, "path": PATH_SCOPE}


def is_scope(value: Any) -> bool:
    """Whether ``value`` has exactly the members of its level, each as its rule says (SPEC §1)."""
    if type(value) is not dict:
        return False
    level = value.get("level")
    kind = SCOPES.get(level) if type(level) is str else None
    return kind is not None and kind.first_offending(value) is None


def parse_scope(value: Any) -> Scope | None:
    """A Scope when ``value`` has exactly the members of its level, each as its rule says; else None."""
    # Its members are then some of Scope's fields.
    return Scope(**value) if is_scope(value) else None


_SCOPE = Rule(
    "a scope with exactly the members of its level",
    is_scope,
    {
        "discriminator": {
            "mapping": {level: f"#/$defs/{kind.title}" for level, kind in SCOPES.items()},
            "propertyName": "level",
        },
        "oneOf": [{"$ref": f"#/$defs/{kind.title}"} for kind in SCOPES.values()],
    },
    read=parse_scope,
)

# --- artifacts ------------------------------------------------------------------------


def _are_unique_ids(v: Any) -> bool:
    return type(v) is list and len(v) >= 1 and all(map(g.is_id, v)) and len(set(v)) == len(v)


_UNIQUE_IDS = Rule(
    "a non-empty array of unique IDs",
    _are_unique_ids,
    {"type": "array", "items": dict(ID.schema), "minItems": 1, "uniqueItems": True},
    tuple,
    shape=("unique_ids",),
)
_SEAL = ("digest", STRING)  # whether it is a DIGEST is a validation question (SPEC §3.3)

INSTRUCTION = Kind(
    "InstructionModel",
    (
        ("key", ID),
        ("text", g.text(1, 4000)),
        ("scope", _SCOPE),
        ("origin", g.one_of("user", "curated", "repository")),
        _SEAL,
    ),
    Instruction,
    kept=("key", "text", "scope", "origin", "digest"),
    keeps_object=True,
)
MATERIALIZATION = Kind(
    "MaterializationModel",
    (
        ("id", ID),
        ("repository", REPO),
        ("source_revision", g.text(1, 100)),
        ("status", g.one_of("compatible", "incompatible", "invalid")),
        _SEAL,
    ),
    Materialization,
    kept=("id", "repository", "source_revision", "status"),
)
TRACE = Kind(
    "TraceModel",
    (
        ("id", ID),
        ("lineage", ID),
        ("materialization", ID),
        ("steps", INT_FROM_1),
        ("completeness", g.one_of("complete", "partial")),
        ("verified_prefix", INT),
        _SEAL,
    ),
    Trace,
    kept=("id", "lineage", "materialization", "steps", "completeness", "verified_prefix"),
)
EVIDENCE = Kind(
    "EvidenceModel",
    (
        ("id", ID),
        ("trace", ID),
        ("step", INT),
        ("signal", g.one_of(*SIGNAL_WEIGHTS)),
        ("observed_at", TIMESTAMP),
        ("path", PATH_OR_NULL),
        ("summary", g.text(0, 1000)),
        _SEAL,
    ),
    Evidence,
    kept=("id", "trace", "step", "signal", "observed_at", "path"),
)
LESSON = Kind(
    "LessonModel",
    (("id", ID), ("text", g.text(1, 2000)), ("evidence", _UNIQUE_IDS), _SEAL),
    Lesson,
    kept=("id", "text", "evidence"),
)

# --- proposals (SPEC §1; checked one by one, §3.1) -------------------------------------
# A proposal that does not match is not an input error: validation rejects it as
# proposal.incomplete. The schema is looser than §3.1 where no schema can state a rule:
# UTF-8 bytes (it counts characters) and keys unique within a proposal.

_OPERATION_TEXT = Rule(
    "a string of 1 byte or more", lambda v: type(v) is str and v != "", {"type": "string", "minLength": 1}
)
#: SPEC §1: one keyed edit of memory, with exactly the members of its action.
OPERATIONS = {
    "add": Kind("AddOperation", (("action", g.const("add")), ("key", ID), ("text", _OPERATION_TEXT)), closed=True),
    "replace": Kind(
        "ReplaceOperation",
        (("action", g.const("replace")), ("key", ID), ("text", _OPERATION_TEXT), ("expected_digest", DIGEST)),
        closed=True,
    ),
    "remove": Kind(
        "RemoveOperation", (("action", g.const("remove")), ("key", ID), ("expected_digest", DIGEST)), closed=True
    ),
}


def _are_operations(v: Any) -> bool:
    """Operations as §3.1 wants them: each has exactly the members of its action, and no key twice."""
    if type(v) is not list or not v:
        return False
    for op in v:
        action = op.get("action") if type(op) is dict else None
        kind = OPERATIONS.get(action) if type(action) is str else None
        if kind is None or kind.first_offending(op) is not None:
            return False
    return len({op["key"] for op in v}) == len(v)


_OPERATION_LIST = Rule(
    "a non-empty array of operations, each key once",
    _are_operations,
    {
        "type": "array",
        "minItems": 1,
        "items": {
            "discriminator": {
                "mapping": {action: f"#/$defs/{kind.title}" for action, kind in OPERATIONS.items()},
                "propertyName": "action",
            },
            "oneOf": [{"$ref": f"#/$defs/{kind.title}"} for kind in OPERATIONS.values()],
        },
    },
)
_CONFIDENCE = Rule(
    "a number from 0 to 1", lambda v: g.is_number(v) and 0 <= v <= 1, {"type": "number", "minimum": 0, "maximum": 1}
)
_IDS = Rule(
    "an array of unique IDs",
    lambda v: type(v) is list and all(map(g.is_id, v)) and len(set(v)) == len(v),
    {"type": "array", "items": dict(ID.schema), "uniqueItems": True},
)
PROPOSAL = Kind(
    "ProposalModel",
    (
        ("id", ID),
        ("lesson", ID),
        ("scope", _SCOPE),
        ("confidence", _CONFIDENCE),
        ("rationale", g.text(0, 2000)),
        ("base_memory_version", INT),
        ("operations", _OPERATION_LIST),
        ("support", _UNIQUE_IDS),
        ("contradict", _IDS),
    ),
    closed=True,
    optional=frozenset({"rationale"}),
    description="A proposal (SPEC §1). One that does not match is rejected as proposal.incomplete (SPEC §3.1); "
    "the bundle is still scored.",
)

# --- the document ---------------------------------------------------------------------

RUN = Kind("RunModel", (("id", ID), ("curator", STRING), ("frozen_at", TIMESTAMP)))
MEMORY = Kind("MemoryModel", (("version", INT), ("instructions", _array_of(INSTRUCTION))))
FROZEN = Kind("FrozenModel", (("digest", DIGEST),))

#: The top-level artifact lists, in the order SPEC §1 lists them.
ARTIFACTS = {
    "instructions": INSTRUCTION,
    "materializations": MATERIALIZATION,
    "traces": TRACE,
    "evidence": EVIDENCE,
    "lessons": LESSON,
}
BUNDLE = Kind(
    "BundleModel",
    (
        ("schema", g.const(BUNDLE_SCHEMA)),
        ("run", _object_of(RUN)),
        ("memory", _object_of(MEMORY)),
        *((name, _array_of(kind)) for name, kind in ARTIFACTS.items()),
        ("proposals", _array_of(PROPOSAL)),  # the loader checks only that it is an array: each is checked on its own
        ("frozen", _object_of(FROZEN)),
    ),
    description="``curator-bundle-v1`` (SPEC §1). A proposal that does not match ProposalModel does not refuse "
    "the bundle: validation rejects it as proposal.incomplete (SPEC §3.1).",
)
#: Every kind a bundle's schema defines.
DEFINITIONS = (*SCOPES.values(), *ARTIFACTS.values(), RUN, MEMORY, FROZEN, PROPOSAL, *OPERATIONS.values())
