"""How the gate's verdict is shown (SPEC §8; the comparison is :mod:`ranking.checking.gate`):
text for a terminal, canonical JSON, GitHub workflow commands, and a Markdown section for
``$GITHUB_STEP_SUMMARY``; and a refusal, which a CI step reads as a verdict too, in the same
formats.

Every key, member and pointer a finding names was chosen by whoever wrote the memory
file. Text for a terminal or a CI log is returned as lines and workflow commands, which
the door out escapes (:mod:`ranking.views.terminal`); the Markdown of the step summary,
a file GitHub renders, is escaped here so that it is never markup.
"""

from __future__ import annotations

from urllib.parse import quote

from curator_io.canonical import canon
from curator_io.errors import EvidenceRankError
from ranking.checking.findings import ProseLookalikeWarning
from ranking.checking.gate import Finding, GateResult, LookalikeWarning
from ranking.views.terminal import Command, printable

__all__ = [
    "render_text",
    "render_json",
    "render_github",
    "render_step_summary",
    "render_refusal_json",
    "render_refusal_github",
    "render_refusal_summary",
    "escape_markdown",
]

#: Every workflow command of the gate is titled so, and a refusal's with its code after it.
TITLE = "evidence-rank gate"


def _counted(n: int | None, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _verdict(result: GateResult) -> str:
    lookalikes = _counted(len(result.warnings) + result.lookalikes_left_out, "look-alike")
    if result.passed:
        held = f"version {result.version}, {_counted(result.instructions, 'instruction')}"
        passed = {
            "curated": f"gate passed: memory-after is exactly what the selection permits ({held})",
            "person": f"gate passed: a change with no curated run, and the managed section is the base's ({held})",
            "adoption": f"gate passed: an adoption, and the managed section holds list items of the base's prose "
            f"alone ({held})",
        }[result.mode]
        return passed + (f"; {lookalikes} under other keys to review" if result.warnings else "")
    failing = f"{lookalikes} under other keys (--fail-on-lookalikes)"
    if not result.findings:
        return f"gate failed: {failing}"
    counts: dict[str, int] = {}
    for f in result.findings:
        counts[f.kind] = counts.get(f.kind, 0) + 1
    summary = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    verdict = f"gate failed: {len(result.findings)} finding(s) ({summary})"
    why = [
        what
        for kind, what in (
            ("base_mismatch", "the bundle was not curated against the base"),
            ("config_mismatch", "the report was not ranked with the pinned policy"),
        )
        if kind in counts
    ]
    if why:
        verdict += f"; {' and '.join(why)}, so memory-after was not compared"
    if result.fail_on_lookalikes and result.warnings:
        verdict += f"; and {failing}"
    return verdict


def _signed(result: GateResult) -> list[str]:
    return [] if result.signer is None else [f"the bundle is signed by {result.signer.shown}"]


#: What a pass says nothing about, for each check the gate was told to skip (``GateResult.unchecked``).
_UNCHECKED = {
    "signature": "not checked: who signed the bundle (no --trust), so anyone who can edit the change can "
    "invent evidence and reseal it",
    "base": "not checked: the memory the bundle was curated against (--skip-base-check), so an old signed "
    "bundle could roll memory back",
    "prose": "not checked: the prose around the Markdown memory's managed section (--allow-prose-changes, or no "
    "base to compare it with), which an agent reads as instructions too",
}


def unchecked_lines(unchecked: tuple[str, ...]) -> list[str]:
    """One warning per check the gate skipped, in the order of ``ranking.checking.gate.UNCHECKED``."""
    return [_UNCHECKED[name] for name in unchecked]


def render_text(result: GateResult) -> list[str]:
    """One line per finding, one per look-alike (a warning, unless it fails the gate), who signed
    the bundle (when the gate checked), what it did not check, then the verdict."""
    lines = [f"{f.kind}  {_where(f)}  {f.message}" for f in result.findings]
    warning = "" if result.fail_on_lookalikes else "warning: "
    lines += [f"{warning}{w.kind}  {_where(w)}  {w.message}" for w in result.warnings]
    lines += [f"{warning}{line}" for line in _left_out(result)]
    lines += _signed(result)
    lines += [f"warning: {line}" for line in unchecked_lines(result.unchecked)]
    lines += [f"warning: accepted: {f.message}" for f in result.prose_changes]
    lines.append(_verdict(result))
    return lines


_Warning = LookalikeWarning | ProseLookalikeWarning


def _left_out(result: GateResult) -> list[str]:
    """The line that says how many look-alikes the lists leave out, when they leave out any."""
    line = result.left_out_line
    return [] if line is None else [line]


def _where(f: Finding | _Warning) -> str:
    """Where a finding is, as the text says it: the Markdown line, else the JSON Pointer."""
    line = f.named_line
    return f.pointer if line is None else f"line {line}"


def render_json(result: GateResult) -> bytes:
    """The result as canonical JSON (RFC 8785)."""
    return canon(result.to_json())


#: What GitHub's Markdown (GFM, with inline HTML and math) acts on inside a line: emphasis,
#: code, links and images, table cells, strikethrough, math, and the backslash itself.
_MARKDOWN = frozenset("\\`*_[]!|~$")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def escape_markdown(s: str) -> str:
    """Text for ``$GITHUB_STEP_SUMMARY`` that shows as it is and is never markup: on one line
    (line breaks and controls escaped as :func:`ranking.views.terminal.printable` writes them, so
    nothing can start a heading, a list or a raw HTML block), HTML's specials as entities, and
    Markdown's inline specials behind a backslash."""
    return "".join(_HTML.get(c) or ("\\" + c if c in _MARKDOWN else c) for c in printable(s))


def render_github(
    result: GateResult,
    file: str | None = None,
    report_file: str | None = None,
    base_file: str | None = None,
) -> list[Command | str]:
    """``::error`` workflow commands, one per finding (a ``::notice`` when the gate passes), a
    ``::warning`` per look-alike (``::error`` when look-alikes fail the gate) and per check the
    gate skipped, then the verdict.

    A finding is annotated on the file its pointer is into: ``file`` (memory-after), ``report_file``
    or ``base_file`` (memory-before), at the line and column the gate found it at
    (:attr:`~ranking.checking.findings.Finding.at`), so that it shows on the changed line of a
    pull request.
    """
    files = {"memory-after": file, "report": report_file, "memory-before": base_file}
    lines: list[Command | str] = []
    for f in result.findings:
        path = files[f.document]
        lines.append(Command("error", f.message + _pointer(f), _place(f, path) | {"title": TITLE}))
    level = "error" if result.fail_on_lookalikes else "warning"
    for w in result.warnings:
        place = _place(w, file) | {"title": f"{TITLE}: look-alike"}
        lines.append(Command(level, w.message + _pointer(w), place))
    lines += [Command(level, line, {"title": f"{TITLE}: look-alike"}) for line in _left_out(result)]
    lines += [Command("notice", line, {"title": TITLE}) for line in _signed(result)]
    lines += [Command("warning", line, {"title": TITLE}) for line in unchecked_lines(result.unchecked)]
    lines += [
        Command("warning", f"accepted: {f.message}", _place(f, file) | {"title": TITLE}) for f in result.prose_changes
    ]
    if result.passed:
        lines.append(Command("notice", _verdict(result), {"title": TITLE}))
    lines.append(_verdict(result))
    return lines


def _pointer(f: Finding | _Warning) -> str:
    return f" ({f.pointer})" if f.pointer and f.named_line is None else ""


def _place(f: Finding | _Warning, path: str | None) -> dict[str, str | int]:
    """A workflow command's ``file``, ``line`` and ``col``: where the gate found it in its file."""
    if not path:
        return {}
    return {"file": path} | ({} if f.at is None else {"line": f.at[0], "col": f.at[1]})


def _link(target: str) -> str:
    """A Markdown link destination: percent-encoded, in angle brackets so parentheses cannot end it."""
    return "<" + quote(target, safe="/:?#&=%@+~.,;!$'*()[]-_") + ">"


def render_step_summary(result: GateResult, html: str | None = None) -> str:
    """A Markdown section for ``$GITHUB_STEP_SUMMARY``: the verdict, a link to the run view
    (``evidence-rank render``) when ``html`` is given, and a table of findings."""
    status = "passed" if result.passed else "failed"
    lines = [f"### evidence-rank gate: {status}", "", escape_markdown(_verdict(result)), ""]
    lines += [escape_markdown(line) + "\n" for line in _signed(result)]
    lines += [f"**Warning:** {escape_markdown(line)}\n" for line in unchecked_lines(result.unchecked)]
    lines += [f"**Accepted:** {escape_markdown(f.message)}\n" for f in result.prose_changes]
    if html is not None:
        lines += [f"Run view: [{escape_markdown(html)}]({_link(html)})", ""]
    if result.findings:
        lines += ["| kind | key | pointer | message |", "| --- | --- | --- | --- |"]
        for f in result.findings:
            cells = (f.kind, escape_markdown(f.key or ""), escape_markdown(f.pointer), escape_markdown(f.message))
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    if result.warnings:
        fails = " (they fail this gate: --fail-on-lookalikes)" if result.fail_on_lookalikes else ""
        lines += [f"**Look-alikes under other keys**{fails}:", ""]
        lines += ["| key | pointer | resembles | score | shared words |", "| --- | --- | --- | --- | --- |"]
        for w in result.warnings:
            if isinstance(w, LookalikeWarning):
                key, other, score, words = w.key, w.lookalike.other.describe(), w.lookalike.score, w.lookalike.words
            else:
                key, other, score, words = f"prose line {w.line}", f"instruction {w.key!r}", w.score, w.words
            row = (
                escape_markdown(key),
                escape_markdown(w.pointer),
                escape_markdown(other),
                f"{score:g}",
                escape_markdown(", ".join(words)),
            )
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        lines += [escape_markdown(line) + "\n" for line in _left_out(result)]
    return "\n".join(lines) + "\n"


# -- a refusal -------------------------------------------------------------------------------


def render_refusal_json(e: EvidenceRankError) -> bytes:
    """``{"passed": false, "error": {...}}``: one JSON document, whatever the values hold. A
    file name that is not UTF-8 (surrogate escapes) is shown escaped (``\\udcff``), as I-JSON
    has no way to carry it."""
    shown = {name: None if value is None else printable(value) for name, value in e.to_json().items()}
    file = None if e.source is None else printable(e.source)
    return canon({"passed": False, "error": {**shown, "file": file, "exit_code": e.exit_code}})


def render_refusal_github(e: EvidenceRankError, at: tuple[int, int] | None = None) -> Command:
    """An ``::error`` on the file the refusal is about, at ``at``, the line and column of what it
    is about in it (:func:`curator_io.positions.refusal_position`) when known; else on the file
    as a whole."""
    line: dict[str, str | int] = {} if at is None else {"line": at[0], "col": at[1]}
    where: dict[str, str | int] = {"file": e.source, **line} if e.source else {}
    return Command("error", e.message, where | {"title": f"{TITLE}: {e.code}"})


def render_refusal_summary(e: EvidenceRankError) -> str:
    """A Markdown section for ``$GITHUB_STEP_SUMMARY``: the refusal, its code and the file."""
    where = f" in <code>{escape_markdown(e.source)}</code>" if e.source else ""
    heading = f"### evidence-rank gate: refused (exit {e.exit_code})"
    return f"{heading}\n\n<code>{escape_markdown(e.code)}</code>{where}: {escape_markdown(e.detail)}\n"
