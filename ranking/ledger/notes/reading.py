"""Notes as ``ledger notes --format json`` writes them, read back (docs/ledger.md, "JSON"): the
same :class:`~ranking.ledger.notes.model.Notes`, each :class:`~ranking.ledger.notes.model.Note` and what
the budget left out, or ``notes.invalid`` naming the first place
that is not a note's. Pure: bytes in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from curator_io.catalogue import FINAL_DISPOSITIONS
from curator_io.errors import InputError, pointer_of
from curator_io.grammar import is_digest
from curator_io.jsonio import parse_json
from ranking.ledger.fate import KIND, KINDS
from ranking.ledger.notes.current_memory import Resemblance
from ranking.ledger.notes.model import Note, NoteReason, Notes
from ranking.ledger.notes.wording import one_line

__all__ = ["notes_from_json"]

_UNCUT: Final = 1 << 62

_TEXT = (lambda v: type(v) is str, "a string")
_TEXT_OR_NULL = (lambda v: v is None or type(v) is str, "a string or null")
_COUNT = (lambda v: type(v) is int and v >= 0, "a whole number of 0 or more")
_NOTE_MEMBERS: Final = {
    "kind": (lambda v: type(v) is str and v in KIND, f"one of {', '.join(k.name for k in KINDS)}"),
    "fingerprint": (lambda v: type(v) is str and is_digest(v), "a DIGEST"),
    "edit": _TEXT_OR_NULL,
    "proposal": _TEXT,
    "run": _TEXT,
    "lesson": _TEXT_OR_NULL,
    "disposition": (lambda v: v in FINAL_DISPOSITIONS, "a final disposition (SPEC §6)"),
    "times": _COUNT,  # 0 for a note on an edit admitted last (a look-alike): decided 0 times since
    "reasons": (lambda v: type(v) is list, "an array"),
    "more_reasons": _COUNT,
    "winner": _TEXT_OR_NULL,
    "admitted": _TEXT_OR_NULL,
    "resembles": (lambda v: type(v) is list, "an array"),
    "text": (lambda v: type(v) is str and v != "" and one_line(v, _UNCUT) == v, "one line of text"),
    "carried": (lambda v: v is None or type(v) is bool, "true, false or null"),
}
_REASON_MEMBERS: Final = {"code": _TEXT, "subject": _TEXT_OR_NULL, "sentence": _TEXT, "remedy": _TEXT_OR_NULL}
_SCORE = (lambda v: type(v) in (int, float) and 0 <= v <= 100, "a number from 0 to 100")
_WORDS = (lambda v: type(v) is list and all(type(w) is str for w in v), "an array of strings")
_RESEMBLANCE_MEMBERS: Final = {
    "key": _TEXT,
    "other": _TEXT,
    "text": _TEXT,
    "score": _SCORE,
    "words": _WORDS,
    "advice": _TEXT,
    "relation": (lambda v: v in ("restates", "contradicts"), "'restates' or 'contradicts'"),
    "origin": _TEXT_OR_NULL,
}
_LEFT_OUT_MEMBERS: Final = {k.name: _COUNT for k in KINDS}
_TOP_MEMBERS: Final = {
    "notes": (lambda v: type(v) is list, "an array"),
    "left_out": (lambda v: type(v) is dict, "an object"),
}


def notes_from_json(raw: bytes) -> Notes:
    """Notes as ``ledger notes --format json`` writes them, read back: ``notes_from_json(canon(notes.to_json()))``
    is ``notes``, with the same ``left_out``. Anything else is refused whole, naming the first place
    that is not the notes': ``notes.invalid`` (or ``input.malformed_json`` for bytes that are not I-JSON)."""
    value = parse_json(raw)
    _checked(value, _TOP_MEMBERS, "the notes")
    _checked(value["left_out"], _LEFT_OUT_MEMBERS, "the count of notes left out", "left_out")
    return Notes((_note_from(item, at) for at, item in enumerate(value["notes"])), value["left_out"])


def _note_from(item: Any, at: int) -> Note:
    _checked(item, _NOTE_MEMBERS, "a note", "notes", at)
    reasons = []
    for k, reason in enumerate(item["reasons"]):
        _checked(reason, _REASON_MEMBERS, "a reason", "notes", at, "reasons", k)
        reasons.append(NoteReason(reason["code"], reason["subject"], reason["sentence"], reason["remedy"]))
    alike = []
    for k, found in enumerate(item["resembles"]):
        _checked(found, _RESEMBLANCE_MEMBERS, "a resemblance", "notes", at, "resembles", k)
        alike.append(Resemblance(**{**found, "words": tuple(found["words"])}))
    fields = {
        name: item[name]
        for name in _NOTE_MEMBERS
        if name not in ("reasons", "more_reasons", "resembles", "text", "carried")
    }
    return Note(
        **fields,
        reasons=tuple(reasons),
        more_reasons=item["more_reasons"],
        resembles=tuple(alike),
        line=item["text"],
        carried=item["carried"],
    )


def _checked(value: Any, members: Mapping[str, tuple[Callable[[Any], bool], str]], what: str, *at: str | int) -> None:
    if type(value) is not dict:
        raise InputError("notes.invalid", f"not {what} (an object)", pointer=pointer_of(*at))
    for name, (holds, kind) in members.items():
        if name not in value:
            raise InputError("notes.invalid", f"{what} without {name!r}", pointer=pointer_of(*at))
        if not holds(value[name]):
            raise InputError("notes.invalid", f"{name!r} is not {kind}", pointer=pointer_of(*at, name))
    extra = sorted(set(value) - set(members))
    if extra:
        raise InputError("notes.invalid", f"{what} has no member {extra[0]!r}", pointer=pointer_of(*at, extra[0]))
