"""The text look-alikes compare: what a reader sees, not the code points that spell it (issue 55).

Advice only: SPEC §0's ``norm``, the reports and every decision are untouched. A word written
with an invisible character inside it ("te\\u200bsts") or a letter of another script that looks
like a Latin one (Cyrillic U+0440 for the "p" of "pytest") reads as the plain word to a person and to a model,
so it is compared as the plain word. :func:`fold`:

1. NFKC (compatibility forms: fullwidth and mathematical letters, ligatures);
2. every Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties: the soft hyphen,
   zero-width spaces and joiners, bidi marks and overrides, variation selectors, tags) removed;
3. each character of :data:`CONFUSABLES` replaced by the ASCII letter or digit it is
   confusable with;
4. full case folding (``str.casefold``).

:data:`CONFUSABLES` is derived from UTS #39's confusables data (as confusable-homoglyphs 3.3.1
ships it) by one rule: a character that is not ASCII, that NFKC keeps as it is and that NFKC
plus case folding does not already make ASCII, and that is confusable with exactly one ASCII
letter (case folded; else with exactly one ASCII digit) maps to it. A character confusable with
two letters, or only with a sequence of characters, is left as it is.
"""

from __future__ import annotations

import unicodedata

__all__ = ["CONFUSABLES", "IGNORABLE", "fold"]

#: Unicode 15.1's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt), inclusive.
IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)

#: ASCII letter or digit -> the characters confusable with it alone (the rule in the docstring).
CONFUSABLES: dict[str, str] = {
    "2": "\u01a7\u03e8\u14bf\ua644\ua6ef\ua75a",
    "3": ("\u01b7\u021c\u0417\u04e0\u2ccc\ua76a\ua7ab\U000118ca\U00016f3b\U0001d206"),
    "4": "\u13ce\U000118af",
    "5": "\u01bc\U000118bb",
    "6": "\u0431\u13ee\u2cd2\U000118d5",
    "7": "\U000104d2\U000118c6\U0001d212",
    "8": "\u0222\u0223\u09ea\u0a6a\u0b03\U0001031a",
    "9": ("\u09ed\u0a67\u0b68\u0d6d\u2cca\ua76e\U000118ac\U000118cc\U000118d6"),
    "a": ("\u0251\u0391\u03b1\u0410\u0430\u13aa\u15c5\u237a\ua4ee\U000102a0\U00016f40"),
    "b": ("\u0184\u0392\u0412\u042c\u13cf\u13f4\u1472\u15af\u15f7\ua4d0\ua7b4\U00010282\U000102a1\U00010301"),
    "c": (
        "\u0421\u0441\u13df\u1d04\u2ca4\u2ca5\ua4da\uabaf"
        "\U000102a2\U00010302\U00010415\U0001043d\U0001051c\U000118e9\U000118f2\U0001f74c"
    ),
    "d": "\u0501\u13a0\u13e7\u146f\u15de\u15ea\ua4d2\ua4d3",
    "e": ("\u0395\u0415\u0435\u04bd\u13ac\u212e\u22ff\u2d39\ua4f0\uab32\U00010286\U000118a6\U000118ae"),
    "f": (
        "\u03dc\u0584\u15b4\u1e9d\ua4dd\ua798\ua799\uab35\U00010287\U000102a5\U00010525\U000118a2\U000118c2\U0001d213"
    ),
    "g": "\u018d\u0261\u050c\u0581\u13c0\u13f3\u1d83\ua4d6",
    "h": ("\u0397\u041d\u04bb\u0570\u13bb\u13c2\u157c\u2c8e\ua4e7\U000102cf"),
    "i": ("\u0131\u0269\u026a\u03b9\u0456\u04cf\u13a5\u2373\ua647\uab75\U000118c3"),
    "j": "\u037f\u03f3\u0408\u0458\u13ab\u148d\ua4d9\ua7b2",
    "k": "\u039a\u041a\u13e6\u16d5\u2c94\ua4d7\U00010518",
    "l": (
        "\u0196\u01c0\u0399\u0406\u04c0\u06f1\u13de\u14aa"
        "\u16c1\u2223\u23fd\u2c92\u2cd0\u2d4f\ua4e1\ua4f2"
        "\U0001028a\U00010309\U00010320\U0001041b\U00010526\U000118a3\U000118b2\U00016f16"
        "\U00016f28\U0001d22a"
    ),
    "m": ("\u039c\u03fa\u041c\u13b7\u15f0\u16d6\u2c98\ua4df\U000102b0\U00010311"),
    "n": "\u039d\u0578\u057c\u2c9a\ua4e0\U00010513",
    "o": (
        "\u039f\u03bf\u03c3\u041e\u043e\u0555\u0585\u06f5"
        "\u0966\u09e6\u0a66\u0ae6\u0b20\u0b66\u0be6\u0c02"
        "\u0c66\u0c82\u0ce6\u0d02\u0d20\u0d66\u0d82\u0e50"
        "\u0ed0\u101d\u1040\u10ff\u12d0\u1d0f\u1d11\u2c9e"
        "\u2c9f\u2d54\u3007\ua4f3\uab3d\U00010292\U000102ab\U00010404"
        "\U0001042c\U000104c2\U000104ea\U00010516\U000114d0\U000118b5\U000118c8\U000118d7"
        "\U000118e0"
    ),
    "p": ("\u03a1\u03c1\u0420\u0440\u13e2\u146d\u2374\u2ca2\u2ca3\ua4d1\U00010295"),
    "q": "\u051b\u0563\u0566\u2d55",
    "r": ("\u01a6\u0433\u13a1\u13d2\u1587\u1d26\u2c85\ua4e3\uab47\uab48\uab81\U000104b4\U00016f35\U0001d216"),
    "s": ("\u01bd\u0405\u0455\u054f\u13d5\u13da\ua4e2\ua731\uabaa\U00010296\U00010420\U00010448\U000118c1\U00016f3a"),
    "t": ("\u03a4\u0422\u13a2\u22a4\u27d9\u2ca6\ua4d4\U00010297\U000102b1\U00010315\U000118bc\U00016f0a\U0001f768"),
    "u": (
        "\u028b\u03c5\u054d\u057d\u1200\u144c\u1d1c\u222a"
        "\u22c3\ua4f4\ua79f\uab4e\uab52\U000104ce\U000104f6\U000118b8"
        "\U000118d8\U00016f42"
    ),
    "v": (
        "\u03bd\u0474\u0475\u06f7\u13d9\u142f\u1d20\u2228"
        "\u22c1\u2d38\ua4e6\ua6df\uaba9\U0001051d\U00011706\U000118a0"
        "\U000118c0\U00016f08\U0001d20d"
    ),
    "w": (
        "\u026f\u0461\u051c\u051d\u0561\u13b3\u13d4\u1d21\ua4ea\uab83\U0001170a\U0001170e\U0001170f\U000118e6\U000118ef"
    ),
    "x": (
        "\u00d7\u03a7\u0425\u0445\u1541\u157d\u166d\u166e"
        "\u16b7\u2573\u292b\u292c\u2a2f\u2cac\u2d5d\ua4eb"
        "\ua7b3\U00010290\U000102b4\U00010317\U00010322\U00010527\U000118ec"
    ),
    "y": (
        "\u0263\u028f\u03a5\u03b3\u0423\u0443\u04ae\u04af"
        "\u10e7\u13a9\u13bd\u1d8c\u1eff\u2ca8\ua4ec\uab5a"
        "\U000102b2\U000118a4\U000118dc\U00016f43"
    ),
    "z": ("\u0396\u13c3\u1d22\ua4dc\uab93\U000102f5\U000118a9\U000118c4\U000118e5"),
}

_TABLE: dict[int, str | None] = {ord(c): plain for plain, chars in CONFUSABLES.items() for c in chars}
_TABLE.update({cp: None for low, high in IGNORABLE for cp in range(low, high + 1)})


def fold(text: str) -> str:
    """Steps 1-4 of this module's docstring."""
    if text.isascii():
        return text.casefold()  # nothing for steps 1-3 to change in ASCII
    return unicodedata.normalize("NFKC", text).translate(_TABLE).casefold()
