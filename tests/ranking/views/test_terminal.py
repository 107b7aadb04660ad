"""The door out (``ranking.views.terminal``), called as a library: what a terminal or a CI
runner would act on is escaped, by :func:`printable`, :func:`printable_json` and
:class:`Command`, and the rest is left as it is.

tests/ranking/cli/test_doors.py and the hostile-name tests send the same text through the
command line; here each escape is held by calling the escaper itself.
"""

from __future__ import annotations

import json

import pytest

from ranking.views.terminal import Command, printable, printable_json

#: Text a terminal or a runner acts on, and how it is shown: as ``repr`` writes the character.
ESCAPED = [
    ("a\nb", "a\\nb"),  # a line break would start a line that passes for the tool's own
    ("a\rb", "a\\rb"),
    ("\x1b[31mred", "\\x1b[31mred"),  # an escape sequence recolours or hides the rest
    ("\x07bell", "\\x07bell"),
    ("evil\u202etxt.exe", "evil\\u202etxt.exe"),  # a bidi override reorders the line
    ("a\u2028b", "a\\u2028b"),  # a line separator
    ("n\x85el", "n\\x85el"),  # NEL, a line break to some terminals
    ("\ud800 lone", "\\ud800 lone"),  # a lone surrogate (a file name that is not UTF-8)
    ("\ue000", "\\ue000"),  # private use
    ("\U000e0001", "\\U000e0001"),  # a language tag, invisible
]


@pytest.mark.parametrize(("text", "shown"), ESCAPED)
def test_a_character_a_terminal_acts_on_or_hides_is_escaped(text: str, shown: str) -> None:
    assert printable(text) == shown


@pytest.mark.parametrize("text", ["plain", "crème brûlée 🚀", "a::b", "one # [x], one #[x]", "50%", "\u00a0nbsp"])
def test_text_a_terminal_shows_as_it_is_is_left_as_it_is(text: str) -> None:
    assert printable(text) == text


def test_a_workflow_command_anywhere_in_a_line_is_defused() -> None:
    assert printable("x ##[error]forged") == "x #\\x23[error]forged"
    assert printable("##[group]a ##[endgroup]") == "#\\x23[group]a #\\x23[endgroup]"


def test_a_workflow_command_at_the_start_of_a_line_is_defused_after_any_spaces() -> None:
    assert printable("::error::forged") == ":\\x3aerror::forged"
    assert printable("  ::warning::x") == "  :\\x3awarning::x"
    assert printable("\u00a0::x") == "\u00a0:\\x3ax"  # the runner trims every kind of space
    assert printable("\t::x") == "\\t::x"  # a tab is escaped first, so no "::" starts the line


@pytest.mark.parametrize("text", [t for t, _ in ESCAPED] + ["##[error]x", "  ::x::y", "a\\nb"])
def test_escaping_twice_is_escaping_once(text: str) -> None:
    assert printable(printable(text)) == printable(text)


# -- printable_json ---------------------------------------------------------------------------

JSON = [
    (b'{"a":"##[error]x"}', b'{"a":"#\\u0023[error]x"}'),
    ('{"a":"\u202e"}'.encode(), b'{"a":"\\u202e"}'),
    ('{"a":"\x85"}'.encode(), b'{"a":"\\u0085"}'),
    ('{"a":"\u2028"}'.encode(), b'{"a":"\\u2028"}'),
    ('{"a":"\U000e0001"}'.encode(), b'{"a":"\\udb40\\udc01"}'),  # beyond the BMP: a surrogate pair
]


@pytest.mark.parametrize(("data", "shown"), JSON)
def test_json_is_escaped_within_its_strings_and_keeps_its_value(data: bytes, shown: bytes) -> None:
    assert printable_json(data) == shown
    assert json.loads(printable_json(data)) == json.loads(data)


def test_json_a_terminal_shows_as_it_is_is_the_same_bytes() -> None:
    data = '{"a":"crème 🚀","b":[1,2.5,null]}'.encode()

    assert printable_json(data) == data


# -- Command ----------------------------------------------------------------------------------


def test_a_workflow_command_is_its_name_its_properties_and_its_message() -> None:
    assert Command("error", "gate failed").line() == "::error::gate failed"
    command = Command("warning", "m", {"file": "memory.json", "line": 3, "col": 5, "title": "evidence-rank gate"})

    assert command.line() == "::warning file=memory.json,line=3,col=5,title=evidence-rank gate::m"


def test_a_property_cannot_end_itself_or_the_command() -> None:
    line = Command("error", "m", {"file": "a:b,c%d"}).line()

    assert line == "::error file=a%3Ab%2Cc%25d::m"


def test_a_file_with_a_line_break_in_its_name_is_still_that_file() -> None:
    assert Command("error", "m", {"file": "a\nb\r.json"}).line() == "::error file=a%0Ab%0D.json::m"


def test_a_message_is_escaped_as_a_line_is_and_its_percent_signs_as_the_runner_unescapes_them() -> None:
    line = Command("error", "50% done\n::error::forged ##[x] \u202e").line()

    assert line == "::error::50%25 done\\n::error::forged #\\x23[x] \\u202e"
    assert "\n" not in line


def test_a_message_that_starts_as_a_command_is_defused() -> None:
    assert Command("notice", "::set-output name=x::y").line() == "::notice:::\\x3aset-output name=x::y"


def test_a_property_a_terminal_would_act_on_is_escaped() -> None:
    line = Command("error", "m", {"file": "evil\u202e.json", "title": "t ##[x]"}).line()

    assert line == "::error file=evil\\u202e.json,title=t #\\x23[x]::m"
