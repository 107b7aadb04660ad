"""Text normalization ``norm(s)`` (SPEC §0), used only to detect duplicate instructions."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["norm"]

# SPEC §0: exactly the Unicode White_Space property, not a regex \s.
_WHITESPACE = re.compile("[\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_TRAILING = ".!;:,"


def norm(s: str) -> str:
    """1. NFC; 2. full lowercase; 3. fold whitespace runs; 4. trim; 5. strip trailing ``.!;:,``."""
    s = unicodedata.normalize("NFC", s)  # 1
    s = s.lower()  # 2
    # Every White_Space character but U+0020 is unprintable (Cc, Zs, Zl, Zp), so
    # printable text without a double space has nothing to fold.
    if not s.isprintable() or "  " in s:
        s = _WHITESPACE.sub(" ", s)  # 3
    s = s.strip(" ")  # 4
    while s and s[-1] in _TRAILING:  # 5
        s = s[:-1].rstrip(" ")
    return s
