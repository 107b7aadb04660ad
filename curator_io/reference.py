"""``EVIDENCE_RANK_REFERENCE=1``: run on the reference paths alone (rfc8785 for canonical bytes,
the strict parser for JSON, the whole parse for every bundle, jsonschema for schema verdicts),
importing nothing from :mod:`curator_io._fast`.

Read once, when the tool starts: a process-wide choice, as ``PYTHONHASHSEED`` is, not an input.
The reports are the same bytes on either path; CI runs the parity corpus and the fuzz targets
on both.
"""

from __future__ import annotations

import os

__all__ = ["REFERENCE"]

#: True when the environment asks for the reference paths alone.
REFERENCE = os.environ.get("EVIDENCE_RANK_REFERENCE") == "1"
