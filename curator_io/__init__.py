"""The boundary: bundle and report models, loading and writing bundles, input errors, canonical JSON, digests."""

import importlib
from typing import TYPE_CHECKING, Any

from curator_io.bundle import SCHEMA as BUNDLE_SCHEMA
from curator_io.bundle import bundle_from_document, load_bundle
from curator_io.canonical import canon, digest, is_sealed, seal
from curator_io.config import DEFAULT_CONFIG, Config, parse_config
from curator_io.errors import (
    ConfigError,
    EvidenceRankError,
    InputError,
    InvariantError,
    PolicyError,
    SignatureError,
    TamperError,
)
from curator_io.jsonio import parse_json
from curator_io.models import Bundle, Evidence, Instruction, Lesson, Materialization, Scope, Trace

if TYPE_CHECKING:
    from curator_io.builder import Add, BundleBuilder, Remove, Replace, SealedBundle, fit_text
    from curator_io.memory import MemoryDocument, MemoryFile, check_memory, read_memory

#: The names of the builder and of memory files, imported when first asked for (PEP 562): only a
#: program that writes a bundle, or a command that takes a memory file, needs them, and importing
#: them costs every command's start-up (bench/RESULTS.md, issue 48).
_LAZY = {
    **dict.fromkeys(("Add", "BundleBuilder", "Remove", "Replace", "SealedBundle", "fit_text"), "curator_io.builder"),
    **dict.fromkeys(("MemoryDocument", "MemoryFile", "check_memory", "read_memory"), "curator_io.memory"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        return getattr(module, name)
    raise AttributeError(f"module 'curator_io' has no attribute {name!r}")


__all__ = [
    "Add",
    "BUNDLE_SCHEMA",
    "Bundle",
    "BundleBuilder",
    "Config",
    "ConfigError",
    "DEFAULT_CONFIG",
    "Evidence",
    "EvidenceRankError",
    "InputError",
    "Instruction",
    "InvariantError",
    "Lesson",
    "Materialization",
    "MemoryDocument",
    "MemoryFile",
    "PolicyError",
    "Remove",
    "Replace",
    "Scope",
    "SealedBundle",
    "fit_text",
    "SignatureError",
    "TamperError",
    "Trace",
    "bundle_from_document",
    "canon",
    "check_memory",
    "digest",
    "is_sealed",
    "load_bundle",
    "parse_config",
    "parse_json",
    "read_memory",
    "seal",
]
