"""Every error the pipeline raises, at the floor so nothing imports upward.

One base class, shallow subclasses by stage. Each error carries the spec's
stable ``code``, a JSON Pointer (RFC 6901) to the offending place when there is
one, and builds its message from those fields. A proposal that fails a rule is
*data* (a reason in a report), never one of these.
"""

from __future__ import annotations

from typing import Any

from curator_io.catalogue import EXIT_FAILED, EXIT_INPUT, EXIT_REFUSED, EXIT_USAGE

__all__ = [
    "EvidenceRankError",
    "InputError",
    "ConfigError",
    "TamperError",
    "InvariantError",
    "PolicyError",
    "SignatureError",
    "escape_pointer",
    "pointer_of",
]


def escape_pointer(token: str | int) -> str:
    """Escape one reference token as RFC 6901 §4 requires (``~`` first)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer_of(*tokens: str | int) -> str:
    """Join reference tokens into a JSON Pointer: ``pointer_of("a", 0) == "/a/0"``."""
    return "".join("/" + escape_pointer(t) for t in tokens)


class EvidenceRankError(Exception):
    """Base of every error the pipeline refuses input with."""

    #: The exit code of every code this class raises (:data:`curator_io.catalogue.EXIT_OF_CODE`).
    exit_code: int = EXIT_FAILED

    def __init__(
        self,
        code: str,
        detail: str,
        *,
        pointer: str | None = None,
        source: str | None = None,
        at: tuple[int, int] | None = None,
    ) -> None:
        self.code = code
        self.detail = detail
        self.pointer = pointer
        #: The file the pointer points into, when the command read one.
        self.source = source
        #: The 1-based line and column of the place in a text file that has no JSON Pointer
        #: (a Markdown memory, docs/markdown-memory.md).
        self.at = at
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """``CODE at 'POINTER': detail`` (``CODE at line L, column C: detail`` in a Markdown
        memory): what ``error.json`` records."""
        if self.pointer is not None:
            where = f" at {self.pointer!r}"
        elif self.at is not None:
            where = f" at line {self.at[0]}, column {self.at[1]}"
        else:
            where = ""
        return f"{self.code}{where}: {self.detail}"

    @property
    def line(self) -> str:
        """The message with the file first, as a person reads it: ``FILE: CODE at 'POINTER': detail``."""
        return f"{self.source}: {self.message}" if self.source is not None else self.message

    def in_file(self, source: str) -> EvidenceRankError:
        """The same error, naming the file it was found in."""
        return _rebuilt(type(self), {**self.__dict__, "source": source})

    def to_json(self) -> dict[str, str | None]:
        """The machine-readable form written to ``error.json``."""
        return {"code": self.code, "pointer": self.pointer, "message": self.message}

    def diagnostics(self) -> str:
        """Advice for a person; kept apart from the stable code."""
        return ""

    def __reduce__(self) -> tuple[Any, ...]:
        # A worker process sends its error back pickled. Exception's own reduce would
        # call ``cls(message)``, which no subclass accepts; rebuild from the fields instead.
        return _rebuilt, (type(self), self.__dict__)


def _rebuilt(cls: type[EvidenceRankError], fields: dict[str, Any]) -> EvidenceRankError:
    error = cls.__new__(cls)
    error.__dict__.update(fields)
    Exception.__init__(error, error.message)
    return error


#: What a bundle read as a report, or a report read as a bundle, is refused with.
_SWAPPED = frozenset(
    {
        "expected 'curator-bundle-v1', got 'evidence-ranking-v1'",
        "expected 'evidence-ranking-v1', got 'curator-bundle-v1'",
        "this is a curator bundle, not a ranking report (expected schema 'evidence-ranking-v1')",
    }
)


class InputError(EvidenceRankError):
    """The bundle is refused as a whole (SPEC §1, "Input errors")."""

    exit_code = EXIT_INPUT

    def diagnostics(self) -> str:
        if self.code == "input.frozen_digest_mismatch":
            return "If you edited the bundle by hand, reseal it: evidence-rank seal BUNDLE"
        if self.code == "input.malformed_json":
            return (
                "Every input must be I-JSON (RFC 7493): UTF-8 without a byte-order mark, no duplicate "
                "member names, no lone surrogates, every number finite as a binary64."
            )
        if self.code == "input.schema" and self.pointer == "/schema" and self.detail in _SWAPPED:
            return (
                "BUNDLE and REPORT swapped? A command that takes both takes the bundle first: "
                "evidence-rank apply BUNDLE REPORT"
            )
        return ""


class ConfigError(EvidenceRankError):
    """A config outside SPEC §2, or a command line that cannot run: a usage error."""

    exit_code = EXIT_USAGE


class TamperError(EvidenceRankError):
    """A report that is not what the bundle and config produce (SPEC §7, §8)."""

    exit_code = EXIT_REFUSED

    def diagnostics(self) -> str:
        if self.code == "report.tampered" and self.pointer == "/input_digest":
            # Most often a mix-up, not a forgery: two runs' files side by side.
            return (
                "The report was scored from another bundle (its input_digest is that bundle's frozen.digest): "
                "if the two files are from different runs, pass the bundle this report was scored from."
            )
        return ""


class InvariantError(EvidenceRankError):
    """A ranking report that violates an invariant of SPEC §7."""

    exit_code = EXIT_REFUSED


class PolicyError(EvidenceRankError):
    """A genuine report ranked under another policy than the one the caller pinned.

    Replay (SPEC §7, §8) recomputes a report with its *own* config, so it proves
    only that the report is the bundle's under some policy, chosen by whoever
    made the report. A caller that pins a config refuses every other one:
    ``policy.config_mismatch``, pointing at the first differing ``/config`` member.
    Exit 1, as a failed gate: the report is not forged, it does not pass.
    """

    exit_code = EXIT_FAILED

    def diagnostics(self) -> str:
        return (
            "Rank the bundle again with the pinned config (evidence-rank score BUNDLE --config POLICY), "
            "or change the pinned policy file where its owners review the change."
        )


class SignatureError(EvidenceRankError):
    """A document the caller required to be signed by a trusted key is not (docs/provenance.md).

    Raised only when the caller gave a trust file (``--trust``). The code says
    what failed: ``signature.unsigned`` (no signature file),
    ``signature.malformed`` (not a DSSE envelope of an in-toto Statement as
    evidence-rank writes one), ``signature.unknown_key`` (signed by a key the
    trust file does not list), ``signature.invalid`` (the signature does not
    verify), ``signature.subject_mismatch`` (a genuine signature over another
    document). Exit 4, as tampering: a seal anyone can recompute proves
    nothing about who made the document.
    """

    exit_code = EXIT_REFUSED

    def diagnostics(self) -> str:
        if self.code in ("signature.unsigned", "signature.subject_mismatch"):
            return "The trusted signer signs each document it hands over: evidence-rank sign PATH --key KEY"
        if self.code == "signature.unknown_key":
            return "A rotated key is added to the trust file (one line per key) where its owners review the change."
        return ""
