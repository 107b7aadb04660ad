"""Where start-up is paid (docs/architecture.md): the command table imports a command's module
when it runs, every other module imports at its top. An import inside a function is a cost moved
where no reader looks for it, so each one left is listed here with why; and a module imported by
a string is an arrow neither grep nor an import graph sees, so only the tables do it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import REPO

PACKAGES = ("curator_io", "validator", "ranking")
OURS = PACKAGES

#: (file, what it imports inside a function) -> why. What it imports: the top-level name of another
#: distribution or of the standard library, the whole module name of one of ours.
IN_FUNCTIONS = {
    # The speed seam: EVIDENCE_RANK_REFERENCE=1 imports nothing from curator_io/_fast/, so the
    # reference imports its speed module where it first calls it (docs/architecture.md, "The seam").
    ("curator_io/artifacts.py", "curator_io._fast.bulk"): "the seam",
    ("curator_io/bundle.py", "curator_io._fast.chunked"): "the seam",
    ("curator_io/jsonio.py", "curator_io._fast.json_parse"): "the seam",
    ("ranking/checking/verification.py", "curator_io._fast.conformance"): "the seam",
    ("curator_io/_fast/jcs.py", "rfc8785"): "the reference, only where orjson cannot write JCS",
    # A heavy dependency, on the one path of the one module that uses it.
    ("curator_io/markdown/structure.py", "markdown_it"): "only a Markdown memory is parsed by CommonMark",
    ("curator_io/report_model.py", "pydantic"): "only generating the published schemas needs the models",
    ("ranking/advice/lookalikes.py", "rapidfuzz"): "only two texts that share enough words are scored",
    ("ranking/checking/verification.py", "jsonschema"): "only a report the compiled predicate refuses",
    ("ranking/signing/keys.py", "cryptography"): "only to verify: a trust file is read without it",
    ("ranking/cli/logs.py", "structlog"): "only when a log is shown (-v, or a program that configured it)",
    ("ranking/cli/logs.py", "logging"): "only when a log is shown",
    ("ranking/running/batch_inputs.py", "fsspec"): "an optional dependency, for URLs alone",
    ("ranking/running/outputs/lock.py", "fcntl"): "POSIX only: elsewhere the lock is filelock's",
    ("ranking/running/outputs/lock.py", "filelock"): "only where fcntl is not",
    # The standard library's, on a rare path of a module every command imports.
    ("ranking/__init__.py", "importlib"): "importlib.metadata, only when __version__ is read",
    ("curator_io/published.py", "importlib"): "importlib.resources, only to print or check a schema",
    ("ranking/pipeline/numbers.py", "fractions"): "only a score that is not an integer",
    ("ranking/cli/__init__.py", "difflib"): "only for a mistyped command's suggestion",
    # One of ours, on a path of a command that others of its paths, measured, do not pay for
    # (bench/doors.py: score with its table and -q, gate on a JSON memory, a small batch).
    ("ranking/cli/__init__.py", "ranking.cli.commands.gate"): "only a refused command line (gate --format json)",
    ("ranking/cli/commands/batch.py", "ranking.running.recorder"): "only with --ledger",
    ("ranking/cli/commands/batch.py", "ranking.integrations.dask_engine"): "an optional integration (dask)",
    ("ranking/running/batch.py", "ranking.ledger.records"): "only with --ledger: sqlite3 and the ledger",
    ("ranking/cli/commands/gate.py", "ranking.running.outputs"): "only on a GitHub runner (the step summary)",
    ("ranking/cli/commands/gate.py", "ranking.checking.uncurated"): "only a gate with no curated run",
    ("ranking/cli/commands/gate.py", "ranking.checking.review_label"): "only with a review label",
    ("ranking/checking/gate.py", "ranking.advice.lookalikes"): "only when memory-after adds or changes a text",
    ("ranking/checking/findings.py", "ranking.advice.lookalikes"): "only a verdict that left look-alikes out",
    ("ranking/checking/uncurated.py", "ranking.advice.lookalikes"): "only a prose change to compare",
    ("ranking/checking/acceptance.py", "ranking.signing.trust"): "only with a trust file (PyCA with it)",
    ("ranking/running/inputs.py", "curator_io.memory"): "only the commands that take a memory",
    ("ranking/running/inputs.py", "curator_io.transcripts.reader"): "only the commands that read agents' logs",
    ("curator_io/memory.py", "curator_io.markdown.document"): "only a Markdown memory (gate on JSON does not)",
    ("curator_io/builder.py", "curator_io.transcripts.into_bundle"): "only a builder given an agent's log",
    ("ranking/ledger/store.py", "ranking.checking.acceptance"): "score and batch --ledger record their own reports",
    ("ranking/ledger/audit.py", "ranking.checking.acceptance"): "score and batch --ledger record their own reports",
    ("ranking/ledger/notes/current_memory.py", "ranking.advice.lookalikes"): "only notes given the current memory",
}

#: The modules that import a module by its name in a string: the command table, and the packages'
#: tables of public names (PEP 562), each name beside the module it comes from.
BY_NAME = {"ranking/cli/commands/__init__.py", "ranking/__init__.py", "curator_io/__init__.py"}


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            yield path.relative_to(REPO).as_posix(), ast.parse(path.read_text("utf-8"))


def _imported(node: ast.Import | ast.ImportFrom, file: str) -> list[str]:
    """What ``node`` imports, named as ``IN_FUNCTIONS`` names it."""
    if isinstance(node, ast.ImportFrom):
        if node.level:  # relative: resolved against the importing module's package
            base = Path(file).parent.parts[: len(Path(file).parent.parts) - node.level + 1]
            names = [".".join([*base, node.module] if node.module else base)]
        else:
            names = [node.module or ""]
    else:
        names = [alias.name for alias in node.names]
    return [name if name.split(".")[0] in OURS else name.split(".")[0] for name in names]


def _in_functions(node: ast.AST, file: str, inside: bool = False) -> Iterator[tuple[str, str]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom) and inside:
            yield from ((file, name) for name in _imported(child, file))
        in_function = inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield from _in_functions(child, file, in_function)


def _found() -> set[tuple[str, str]]:
    return {pair for file, tree in _modules() for pair in _in_functions(tree, file)}


def test_no_module_imports_inside_a_function_what_the_list_does_not_name() -> None:
    assert sorted(_found() - IN_FUNCTIONS.keys()) == []


def test_every_import_the_list_names_is_still_made_inside_a_function() -> None:
    # An entry whose import moved to the top of its module goes, so that the list stays what is left.
    assert sorted(IN_FUNCTIONS.keys() - _found()) == []


def _by_name(tree: ast.Module) -> Iterator[int]:
    """The lines of ``import_module(...)``, ``importlib.import_module(...)`` and ``__import__(...)``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = node.func
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", None)
            if name in {"import_module", "__import__"}:
                yield node.lineno


def test_only_the_command_table_and_the_public_names_import_a_module_by_a_string() -> None:
    found = {file for file, tree in _modules() if any(_by_name(tree))}
    assert found <= BY_NAME
    assert "ranking/cli/commands/__init__.py" in found  # the rule is not met by finding nothing
