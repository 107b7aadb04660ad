"""What a bundle can hold of a text: a model's words fitted to SPEC §1's byte bounds (a rationale
2000 bytes, a summary 1000, a revision 100), for every writer of a bundle: the builder, the
transcript readers, GEPA's and ACE's bundles."""

from __future__ import annotations

__all__ = ["fit_text"]


def fit_text(text: str, most: int) -> str:
    """``text`` as a bundle can hold it in at most ``most`` UTF-8 bytes (SPEC §1: a rationale
    2000, a summary 1000): cut at a character, ending in ``…`` when cut; a lone surrogate (a
    model's reply cut inside a character) written ``?``, so a model's words can always be written."""
    raw = text.encode("utf-8", "replace")
    if len(raw) <= most:
        return raw.decode("utf-8")
    return raw[: most - 3].decode("utf-8", "ignore") + "…"
