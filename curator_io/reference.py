"""``EVIDENCE_RANK_REFERENCE=1``: run on the reference paths alone (rfc8785 for canonical bytes,
the strict parser for JSON, the whole parse for every bundle, item-by-item checks, jsonschema
for schema verdicts), importing nothing from :mod:`curator_io._fast`.

``EVIDENCE_RANK_REFERENCE=jcs,bulk`` (any of :data:`SPEED_MODULES`, comma-separated) turns off
only those, which is how bench/seam.py measures what each one gains.

Read once, when the tool starts: a process-wide choice, as ``PYTHONHASHSEED`` is, not an input.
The reports are the same bytes on every path; CI runs the parity corpus and the fuzz targets on
the reference path too.
"""

from __future__ import annotations

import os

__all__ = ["REFERENCE", "SPEED_MODULES", "off"]

#: The modules of :mod:`curator_io._fast` that a reference path stands beside.
SPEED_MODULES = ("jcs", "json_parse", "chunked", "bulk", "conformance")

_ASKED = os.environ.get("EVIDENCE_RANK_REFERENCE", "")
#: True when the environment asks for the reference paths alone.
REFERENCE = _ASKED == "1"
_OFF = frozenset(SPEED_MODULES) if REFERENCE else frozenset(_ASKED.split(",")) & frozenset(SPEED_MODULES)


def off(module: str) -> bool:
    """Whether the speed module ``module`` (of :data:`SPEED_MODULES`) is turned off."""
    return module in _OFF
