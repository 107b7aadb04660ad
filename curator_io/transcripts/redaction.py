"""What a log's command may not carry into a bundle: values that look like secrets, each
replaced by ``[REDACTED]`` before anything is written (docs/transcripts.md, "Redaction").

The rules, applied in this order, each to the text the one before left:

1. A private key block (``-----BEGIN ... PRIVATE KEY-----`` to its ``END`` line, or to the
   end of the text) is replaced whole.
2. Credentials in a URL: ``scheme://user:password@`` keeps the scheme.
3. An ``Authorization:`` header's value, and the word after ``Bearer`` or ``Basic``.
4. A variable whose name says it holds a secret (it contains ``TOKEN``, ``SECRET``,
   ``PASSWORD``, ``PASSWD``, ``PASS``, ``KEY``, ``CREDENTIAL``, ``AUTH``, ``SESSION`` or
   ``COOKIE``, in any case) set to a value: ``NAME=value``, ``export NAME=value``,
   ``NAME: value``; the value to the next blank, or within its quotes.
5. An option so named: ``--password value``, ``--token=value``, ``--api-key value``, and
   every ``--`` option whose name contains one of those words; and ``-p`` glued to a value
   (``mysql -psecret``).
6. A value of a known form, after anything but a letter or a digit (``mcp__ghp_...``):
   GitHub (``ghp_``, ``gho_``, ``ghu_``, ``ghs_``, ``ghr_``, ``github_pat_``), GitLab
   (``glpat-``), Slack (``xox?-``), OpenAI and Anthropic (``sk-``), AWS access key ids
   (``AKIA`` and 16 more), Google API keys (``AIza`` and 35 more), npm (``npm_``), PyPI
   (``pypi-``), a JSON Web Token (three base64url parts, the first two starting ``eyJ``).

Pure and total: any text in, a text out; it never fails.
"""

from __future__ import annotations

import re

__all__ = ["REDACTED", "redact"]

REDACTED = "[REDACTED]"

_WORDS = r"(?:TOKEN|SECRET|PASSWORD|PASSWD|PASS|KEY|CREDENTIAL|AUTH|SESSION|COOKIE)"
_VALUE = r"(?:\"[^\"]*\"|'[^']*'|[^\s\"';&|]+)"

_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.S)
_URL_CREDENTIALS = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/\s:@]+:[^/\s@]*@")
_AUTHORIZATION = re.compile(r"(?i)(?P<name>authorization\s*:\s*)(?:(?:bearer|basic|token)\s+)?[^\s\"']+")
_BEARER = re.compile(r"(?i)\b(?P<name>bearer|basic)\s+(?!\[REDACTED\])[A-Za-z0-9._~+/=-]{8,}")
_VARIABLE = re.compile(rf"(?i)(?P<name>\b[A-Z0-9_]*{_WORDS}[A-Z0-9_]*\s*(?:=|:\s+))(?P<value>{_VALUE})")
_OPTION = re.compile(rf"(?i)(?P<name>(?<![\w-])--[A-Za-z0-9-]*{_WORDS}[A-Za-z0-9-]*(?:=|\s+))(?P<value>{_VALUE})")
_GLUED_P = re.compile(r"(?P<name>(?<![\w-])-p)(?P<value>[^\s\"';&|]+)")
_KNOWN = re.compile(
    r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abeoprs]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}"
    r"|npm_[A-Za-z0-9]{36}|pypi-[A-Za-z0-9_-]{16,}"
    r"|eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*)"
)


def redact(text: str) -> str:
    """``text`` with every value the rules above find replaced by :data:`REDACTED`."""
    text = _PRIVATE_KEY.sub(REDACTED, text)  # 1
    text = _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)  # 2
    text = _AUTHORIZATION.sub(lambda m: f"{m['name']}{REDACTED}", text)  # 3
    text = _BEARER.sub(lambda m: f"{m['name']} {REDACTED}", text)
    text = _VARIABLE.sub(_named, text)  # 4
    text = _OPTION.sub(_named, text)  # 5
    text = _GLUED_P.sub(_named, text)
    return _KNOWN.sub(REDACTED, text)  # 6


def _named(match: re.Match[str]) -> str:
    value = match["value"]
    if value == REDACTED or value.startswith("$"):  # a variable's name is not its value
        return match[0]
    return f"{match['name']}{REDACTED}"
