"""A selection written into a Markdown memory (SPEC §8, docs/markdown-memory.md): the file with
only its managed section replaced, its prose kept byte for byte, or refused when the file holds
another memory than the one the selection applies to."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from curator_io.canonical import canon
from curator_io.errors import PolicyError
from curator_io.markdown.document import MarkdownMemory, splice_memory, write_markdown_memory
from ranking.checking.acceptance import Replayed
from ranking.checking.policy import base_mismatch

__all__ = ["into_markdown", "FileNotBase"]


def into_markdown(accepted: Replayed, permitted: Mapping[str, Any], found: MarkdownMemory | None) -> bytes:
    """The Markdown file that holds ``permitted`` (:func:`apply_selection` of ``accepted``): ``found``
    with only its managed section replaced, every byte of its prose kept; a file of the section
    alone when there is none yet.

    ``found`` must hold the bundle's memory, the one the selection applies to, or already
    ``permitted`` (a second run): any other would be lost, so it is refused
    (``policy.base_mismatch``, exit 1). ``input.markdown_unrepresentable`` for a memory the
    Markdown form cannot hold.
    """
    if found is None:
        return write_markdown_memory(permitted)
    if canon(found.memory) != canon(permitted):
        stale = base_mismatch(accepted.bundle.memory, found.memory)
        if stale is not None:
            why = (
                f"the file holds memory version {canon(stale.base_version).decode()} ({stale.base_digest}), but the "
                f"bundle was curated against version {canon(stale.bundle_version).decode()} ({stale.bundle_digest}): "
                "writing the selection over it would lose what the file holds; curate a bundle against the file"
            )
            raise FileNotBase("policy.base_mismatch", why, at=(found.start, 1))
    return splice_memory(found, permitted)


class FileNotBase(PolicyError):
    """A Markdown memory that holds neither the bundle's memory nor the memory the selection permits."""

    def diagnostics(self) -> str:
        return (
            "Apply a bundle to the file it was curated against; the next bundle starts from this file: "
            "BundleBuilder.from_memory(ranking.read_memory_file(FILE).document, ...) (docs/gate-your-curator.md)."
        )
