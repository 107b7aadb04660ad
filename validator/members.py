"""The objects a report is made of, built from their members' values (SPEC §3.7, §6).

Each report object's members are named once, in :mod:`curator_io.catalogue`, in
the order SPEC writes them (the field order of :mod:`curator_io.report_model`'s
classes, which read reports). The validator and the pipeline hand the values, in
that order, to the builder :func:`json_object` makes from those names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["json_object"]


def json_object(names: tuple[str, ...]) -> Callable[..., dict[str, Any]]:
    """A function of one value per name, by position, that returns them as a dict under
    those names, in that order.

    Generated, as :func:`collections.namedtuple` generates its ``__new__``, so that it builds
    the dict as a dict literal does: a report builds several of these for every proposal, and
    ``dict(zip(names, values))`` costs markedly more each time (bench/RESULTS.md).
    """
    assert all(name.isidentifier() for name in names), names  # each is written into the source
    values = [f"_{i}" for i in range(len(names))]
    items = ", ".join(f"{name!r}: {value}" for name, value in zip(names, values, strict=True))
    namespace: dict[str, Any] = {}
    exec(f"def build({', '.join(values)}):\n    return {{{items}}}\n", namespace)
    build: Callable[..., dict[str, Any]] = namespace["build"]
    return build
