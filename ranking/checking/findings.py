"""What the CI gate finds (SPEC §8): a finding, a look-alike warning, the verdict they add up to,
and the names of their kinds. :mod:`ranking.checking.gate` decides; :mod:`ranking.views.gate`
renders.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ranking.checking.policy import BaseMismatch, ConfigMismatch

if TYPE_CHECKING:
    from ranking.advice.lookalikes import Lookalike
    from ranking.signing.signers import Signer

__all__ = ["KINDS", "MODES", "UNCHECKED", "Finding", "LookalikeWarning", "ProseLookalikeWarning", "GateResult"]

#: What the gate gates (``gate --mode``): ``curated`` (a bundle and a report), ``person``, ``adoption``
#: (:mod:`ranking.checking.uncurated`), or ``auto`` (which of them a pull request is).
MODES = ("curated", "person", "adoption", "auto")

#: Every kind of finding, in the order findings are reported.
KINDS = (
    "base_mismatch",
    "config_mismatch",
    "version_mismatch",
    "unexpected_member",
    "duplicate_key",
    "unexpected_addition",
    "unexpected_change",
    "unexpected_removal",
    "missing_edit",
    "prose_changed",
    "section_changed",
)

#: What a gate can be told not to check, in the order it says so: who signed the bundle
#: (no trust file), which memory the bundle was curated against (no base), and the prose
#: around a Markdown memory's section (``--allow-prose-changes``, or no base to compare it with).
UNCHECKED = ("signature", "base", "prose")


@dataclass(frozen=True, slots=True)
class Finding:
    """One write the selection does not account for, one selected edit that is missing,
    one member of the report's config that is not the pinned policy's, or a bundle
    curated against another memory than the base."""

    kind: str
    key: str | None
    """The instruction key; null for the version, other memory members and config members."""
    pointer: str
    """A JSON Pointer into :attr:`document` (where the instruction is, or where it should be)."""
    message: str
    members: tuple[str, ...] = ()
    """For ``unexpected_change``: the members of the instruction that differ;
    for ``config_mismatch``: the config member."""
    mismatch: ConfigMismatch | BaseMismatch | None = None
    """For ``config_mismatch``: the pinned value and the report's; for ``base_mismatch``,
    the versions and digests of both memories."""
    at: tuple[int, int] | None = None
    """Where it is in :attr:`document`, the 1-based line and column, whatever the form: in a
    Markdown memory a prose change, an instruction's item or the section's start marker; in
    JSON the value :attr:`pointer` names in the text (:mod:`curator_io.positions`). None when
    the gate was not given the file's text (:func:`~ranking.checking.accounting.compare_memory`
    alone, a report passed as a parsed object)."""
    markdown: bool = False
    """Whether :attr:`document` is a Markdown memory, where a finding is named by its line
    (:attr:`named_line`): a pointer into the memory object names no place its reader sees."""

    @property
    def named_line(self) -> int | None:
        """The line the text and JSON name it by, in a Markdown memory; None in JSON, where
        :attr:`pointer` names it."""
        return None if self.at is None or not self.markdown else self.at[0]

    @property
    def document(self) -> str:
        """The file :attr:`pointer` points into: ``report``, ``memory-before`` or ``memory-after``."""
        if isinstance(self.mismatch, ConfigMismatch):
            return "report"
        return "memory-before" if isinstance(self.mismatch, BaseMismatch) else "memory-after"

    def to_json(self) -> dict[str, Any]:
        out = {
            "kind": self.kind,
            "key": self.key,
            "document": self.document,
            # A prose change is in no member of the memory: it has a line and no JSON Pointer.
            "pointer": None if self.kind == "prose_changed" else self.pointer,
            "line": self.named_line,
            "message": self.message,
            "members": list(self.members),
        }
        if isinstance(self.mismatch, ConfigMismatch):
            values = self.mismatch.to_json()
            out |= {"pinned": values["pinned"], "report": values["report"]}
        elif isinstance(self.mismatch, BaseMismatch):
            out |= self.mismatch.to_json()
        return out


@dataclass(frozen=True, slots=True)
class LookalikeWarning:
    """An instruction memory-after adds or changes that resembles another instruction it keeps
    (or an applicable one) under another key: advice, a failure only with ``fail_on_lookalikes``."""

    lookalike: Lookalike
    pointer: str
    """Where the instruction is in memory-after (``/instructions/<index>``)."""
    at: tuple[int, int] | None = None
    """Its line and column in memory-after, whatever the form (a Markdown memory's item, the
    value in JSON text), as :attr:`Finding.at`."""
    markdown: bool = False
    """Whether memory-after is a Markdown memory, where it is named by its line."""

    kind = "lookalike"
    document = "memory-after"

    @property
    def key(self) -> str:
        return self.lookalike.subject.key

    @property
    def named_line(self) -> int | None:
        """As :attr:`Finding.named_line`."""
        return None if self.at is None or not self.markdown else self.at[0]

    @property
    def message(self) -> str:
        found = self.lookalike
        return (
            f"instruction {self.key!r} resembles {found.other.describe()} (score {found.score:g}; shared words: "
            f"{', '.join(found.words)}): {found.advice()}"
        )

    def to_json(self) -> dict[str, Any]:
        found = self.lookalike
        return {
            "kind": self.kind,
            "key": self.key,
            "document": self.document,
            "pointer": self.pointer,
            "line": self.named_line,
            "message": self.message,
            "resembles": {"where": found.other.where, "key": found.other.key}
            | ({"line": found.other.line} if found.other.where == "prose" else {}),
            "score": found.score,
            "words": list(found.words),
            "relation": found.relation,
        }


@dataclass(frozen=True, slots=True)
class ProseLookalikeWarning:
    """A list item of a Markdown memory's prose that resembles an instruction of its section (a
    change with no curated run, :mod:`ranking.checking.uncurated`): a rule people wrote beside one
    that was ranked, which may say the same or the opposite."""

    line: int
    """The 1-based line of the item in memory-after."""
    key: str
    """The key of the instruction it resembles."""
    score: float
    words: tuple[str, ...]
    pointer: str
    """Where the instruction is in memory-after (``/instructions/<index>``)."""
    advice: str
    """What to do about it (:func:`ranking.advice.lookalike_model.advice_for`)."""

    kind = "lookalike"
    document = "memory-after"

    @property
    def at(self) -> tuple[int, int]:
        return self.line, 1

    @property
    def named_line(self) -> int:
        """Its :attr:`line`: a prose item is in a Markdown memory."""
        return self.line

    @property
    def message(self) -> str:
        return (
            f"the prose's list item on line {self.line} resembles instruction {self.key!r} (score {self.score:g}; "
            f"shared words: {', '.join(self.words)}): {self.advice}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "key": self.key,
            "document": self.document,
            "pointer": self.pointer,
            "message": self.message,
            "resembles": {"where": "memory-after", "key": self.key},
            "score": self.score,
            "words": list(self.words),
            "line": self.line,
        }


@dataclass(frozen=True, slots=True)
class GateResult:
    findings: tuple[Finding, ...]
    version: Any
    """The ``version`` the selection permits; null when memory-after was not compared."""
    instructions: int | None
    """How many instructions the permitted memory holds; null when memory-after was not compared."""
    signer: Signer | None = None
    """Who signed the bundle, when the gate was given a trust file (docs/provenance.md)."""
    unchecked: tuple[str, ...] = ()
    """What the gate was told not to check, from :data:`UNCHECKED`: a pass says nothing of these."""
    prose_changes: tuple[Finding, ...] = ()
    """With ``allow_prose_changes``: each ``prose_changed`` the gate accepted, listed so that none
    passes silently."""
    warnings: tuple[LookalikeWarning | ProseLookalikeWarning, ...] = ()
    """Look-alikes the write adds or changes, in memory-after's key order; none when it was not compared."""
    fail_on_lookalikes: bool = False
    """Whether a warning fails the gate (``gate --fail-on-lookalikes``)."""
    mode: str = "curated"
    """What was gated: ``curated`` (a bundle and its report), ``person`` (a change with no curated
    run: the section is the base's) or ``adoption`` (a base with no section), as
    :mod:`ranking.checking.uncurated` names them."""
    lookalikes_left_out: int = 0
    """How many more look-alikes were found than ``warnings`` lists: at most
    :data:`~ranking.advice.lookalikes.PER_TEXT` an instruction and
    :data:`~ranking.advice.lookalikes.IN_ALL` in all are listed (docs/lookalikes.md)."""

    @property
    def passed(self) -> bool:
        return not self.findings and not (self.fail_on_lookalikes and self.warnings)

    @property
    def left_out_line(self) -> str | None:
        """What the lists of look-alikes leave out, in words; None when they leave out none."""
        n = self.lookalikes_left_out
        if not n:
            return None
        from ranking.advice.lookalikes import IN_ALL, PER_TEXT  # a gate with nothing to compare imports none of it

        return (
            f"{n} more look-alike{'' if n == 1 else 's'} not listed (at most {PER_TEXT} an instruction, "
            f"{IN_ALL} in all: docs/lookalikes.md)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "version": self.version,
            "instructions": self.instructions,
            "findings": [f.to_json() for f in self.findings],
            "warnings": [w.to_json() for w in self.warnings],
            "signer": None if self.signer is None else self.signer.to_json(),
            "unchecked": list(self.unchecked),
            "prose_changes": [f.to_json() for f in self.prose_changes],
            "warnings_left_out": self.lookalikes_left_out,
        }
