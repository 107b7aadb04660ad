"""Speed only: a JSON Schema compiled to one yes-or-no predicate, the accept path of a
schema check whose failures jsonschema describes.

Equals: ``jsonschema.Draft202012Validator(schema).is_valid``, its errors included, except that
on a document jsonschema cannot walk (one that contains itself, under a recursive schema) the
predicate may say no where jsonschema raises RecursionError: it never says yes there, and a
caller asks jsonschema whenever it says no. Proven by: ``tests/curator_io/test_conformance.py``,
``test_every_single_value_mutation_gets_the_same_verdict``,
``test_random_mutations_of_parity_documents_get_the_same_verdict``,
``test_what_no_json_holds_gets_the_same_verdict_or_the_same_error`` (hypothesis) and
``test_a_document_that_contains_itself_is_never_accepted_and_raises_only_what_jsonschema_raises``.

jsonschema's ``iter_errors`` builds a validator, a path and an error object
at each step so that it can say *where* a document fails; most documents do
not fail, and for them only the verdict matters. :func:`compile_schema`
turns a schema into nested closures that return that verdict and nothing
else. A caller asks jsonschema for the error only when the predicate says no,
so every message and pointer stays jsonschema's own.

The predicate accepts exactly what ``jsonschema.Draft202012Validator`` accepts
(``tests/curator_io/test_conformance.py`` proves it on every published schema,
on valid and on mutated documents). To keep that true as schemas change,
each keyword is implemented with jsonschema's semantics (its type checker,
``re.search`` for ``pattern``, bounds that ignore non-numbers, ...), and a
Draft 2020-12 keyword that is not implemented here refuses to compile
(:class:`UnsupportedSchema`) instead of being skipped. Members that are not
keywords (pydantic's ``ge``/``le`` on a union, titles) are ignored, as
jsonschema ignores them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from numbers import Number
from typing import Any

__all__ = ["Predicate", "UnsupportedSchema", "compile_schema", "VOCABULARY"]

Predicate = Callable[[Any], bool]

#: Every Draft 2020-12 keyword (core, applicator, validation, unevaluated, format,
#: content and meta-data vocabularies). A member outside this set is not a keyword.
VOCABULARY = frozenset(
    "$id $schema $ref $anchor $dynamicRef $dynamicAnchor $vocabulary $comment $defs "
    "allOf anyOf oneOf not if then else dependentSchemas prefixItems items contains properties "
    "patternProperties additionalProperties propertyNames unevaluatedItems unevaluatedProperties "
    "type const enum multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength minLength "
    "pattern maxItems minItems uniqueItems maxContains minContains maxProperties minProperties required "
    "dependentRequired format title description default deprecated readOnly writeOnly examples "
    "contentEncoding contentMediaType contentSchema".split()
)

#: Keywords that never reject: identifiers, annotations, and ``$defs`` (compiled when referenced).
_ANNOTATIONS = frozenset(
    "$id $schema $comment $defs title description default deprecated readOnly writeOnly examples".split()
)


_OBJECT_KEYWORDS = ("properties", "required", "additionalProperties")


class UnsupportedSchema(ValueError):
    """The schema uses a keyword (or a form of one) this compiler does not implement."""


def _is_integer(x: Any) -> bool:
    # jsonschema's Draft 6+ type checker: 1.0 is an integer; True is not.
    t = type(x)
    if t is int:  # the exact types first: isinstance against an ABC is slow
        return True
    if t is float:
        return bool(x.is_integer())
    return not isinstance(x, bool) and (isinstance(x, int) or (isinstance(x, float) and x.is_integer()))


def _is_number(x: Any) -> bool:
    t = type(x)
    if t is int or t is float:
        return True
    return isinstance(x, Number) and not isinstance(x, bool)


_TYPES: dict[str, Predicate] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "null": lambda x: x is None,
    "boolean": lambda x: isinstance(x, bool),
    "integer": _is_integer,
    "number": _is_number,
}


def compile_schema(schema: Mapping[str, Any] | bool) -> Predicate:
    """The predicate of ``schema``: true exactly when jsonschema finds no error."""
    return _Compiler(schema).compile(schema)


class _Compiler:
    def __init__(self, root: Mapping[str, Any] | bool) -> None:
        self.root = root
        self.refs: dict[str, Predicate | None] = {}

    def compile(self, node: Mapping[str, Any] | bool) -> Predicate:
        if node is True:
            return lambda x: True
        if node is False:
            return lambda x: False
        keywords = (self._keyword(name, node) for name in node if name in VOCABULARY and name not in _ANNOTATIONS)
        return _all_of([c for c in keywords if c is not None])

    def _keyword(self, name: str, node: Mapping[str, Any]) -> Predicate | None:
        """One keyword's check, or None when another keyword of the node does its work."""
        value = node[name]
        if name == "type":
            return _type(value)
        if name in _OBJECT_KEYWORDS:
            # One pass over the object for all three: compiled at the first of them.
            first = next(k for k in node if k in _OBJECT_KEYWORDS)
            return self._object(node) if name == first else None
        if name == "items":
            each = self.compile(value)
            return lambda x: not isinstance(x, list) or all(map(each, x))
        if name == "anyOf":
            return _any_of([self.compile(s) for s in value])
        if name == "$ref":
            return self._ref(value)
        if name in ("enum", "const"):
            return _enum(value if name == "enum" else [value])
        if name == "pattern":
            search = re.compile(value).search  # jsonschema: re.search, so "$" also matches before a final "\n"
            return lambda x: not isinstance(x, str) or search(x) is not None
        if name == "minimum":
            return lambda x: not _is_number(x) or not x < value
        if name == "maximum":
            return lambda x: not _is_number(x) or not x > value
        if name == "maxItems":
            return lambda x: not isinstance(x, list) or len(x) <= value
        raise UnsupportedSchema(f"keyword {name!r} is not implemented")

    def _object(self, node: Mapping[str, Any]) -> Predicate:
        """``properties``, ``required`` and ``additionalProperties`` of one node together."""
        if "patternProperties" in node:
            raise UnsupportedSchema("keyword 'patternProperties' is not implemented")
        properties = tuple((k, self.compile(s)) for k, s in node.get("properties", {}).items())
        required = frozenset(node.get("required", ()))
        allowed = frozenset(k for k, _ in properties)
        additional = node.get("additionalProperties", True)
        extra = None if additional is True or additional is False else self.compile(additional)

        def check(x: Any) -> bool:
            if not isinstance(x, dict):
                return True
            keys = x.keys()
            if not keys >= required:
                return False
            if additional is False and not keys <= allowed:
                return False
            if extra is not None and not all(extra(x[k]) for k in keys - allowed):
                return False
            for name, check_value in properties:  # noqa: SIM110 (the loop reads as the keyword's rule)
                if name in x and not check_value(x[name]):
                    return False
            return True

        return check

    def _ref(self, ref: str) -> Predicate:
        if not ref.startswith("#/"):
            raise UnsupportedSchema(f"only references within the schema are implemented, not {ref!r}")
        refs = self.refs
        if ref not in refs:
            refs[ref] = None  # compiling: a reference back to it from inside binds late, below
            target: Any = self.root
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            refs[ref] = self.compile(target)
        compiled = refs[ref]
        if compiled is not None:
            return compiled

        def late(x: Any) -> bool:
            bound = refs[ref]
            assert bound is not None  # Cannot fail: bound when the outer compile returned.
            return bound(x)

        return late


def _type(value: str | list[str]) -> Predicate:
    names = [value] if isinstance(value, str) else list(value)
    return _any_of([_TYPES[n] for n in names])


# Two-check forms first: closures calling closures are the whole cost here, and
# a generator per call would double it.
def _all_of(checks: list[Predicate]) -> Predicate:
    if len(checks) <= 1:
        return checks[0] if checks else lambda x: True
    if len(checks) == 2:
        a, b = checks
        return lambda x: a(x) and b(x)
    return lambda x: all([check(x) for check in checks])  # noqa: C419 (a list beats a generator here)


def _any_of(checks: list[Predicate]) -> Predicate:
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        a, b = checks
        return lambda x: a(x) or b(x)
    return lambda x: any([check(x) for check in checks])  # noqa: C419 (a list beats a generator here)


def _enum(values: list[Any]) -> Predicate:
    if not all(isinstance(v, str) for v in values):
        raise UnsupportedSchema("only enums and consts of strings are implemented")
    # jsonschema's `equal` compares a string with `==`, whatever the other side is.
    members = frozenset(values)
    return lambda x: isinstance(x, str) and x in members
