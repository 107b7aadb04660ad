"""What every page shares: the Jinja2 environment, the stylesheet, the script and its hash.

A page is one self-contained HTML file: its CSS and its one script are inline,
and a Content-Security-Policy meta tag lets nothing else in. The script is
allowed by its SHA-256 (CSP Level 2 hash source), not by ``'unsafe-inline'``:
even if a text from the bundle escaped the template's autoescaping, a
``<script>`` or an ``onerror=`` attribute it smuggled in could not run.

Every view is a template that extends ``base.html.j2`` and a pure function that
builds its context; a new view (the admission ledger's) adds one of each.
Pure: templates are read as package data through the loader, never from a path.
"""

from __future__ import annotations

import base64
import hashlib
from fractions import Fraction
from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup

from curator_io.catalogue import INFORMATIONAL_CODES

__all__ = ["INFORMATIONAL_CODES", "render_page", "content_security_policy", "format_number", "exact", "percent"]

_SCRIPT = "page.js"


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("ranking.views.html", "templates"),
        # Every text from a bundle or a report is untrusted: escape all of it.
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Package data does not change under a running process: a template loaded once is not
        # stat()ed again for every page (a batch's hundreds of run views).
        auto_reload=False,
    )


@cache
def _script() -> str:
    env = _environment()
    assert env.loader is not None  # Cannot fail: set above.
    source, _, _ = env.loader.get_source(env, _SCRIPT)
    if "</" in source:
        raise AssertionError(f"{_SCRIPT} must not contain '</': it is inlined in a <script> element")
    return source


def content_security_policy() -> str:
    """No request leaves the page; inline styles; only our own script, by its hash."""
    digest = base64.b64encode(hashlib.sha256(_script().encode("utf-8")).digest()).decode("ascii")
    return (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
        "base-uri 'none'; form-action 'none'"
    )


def render_page(template: str, **context: Any) -> str:
    """Render one view's template with the shared head, stylesheet and script."""
    page = _environment().get_template(template)
    # Our own constants, not data: the quotes of the policy stay as written.
    return page.render(csp=Markup(content_security_policy()), script=Markup(_script()), **context)


def exact(x: int | float) -> Fraction:
    """A report number as the exact decimal it was written as (SPEC §0 "Numbers in output")."""
    return Fraction(repr(x)) if type(x) is float else Fraction(x)


def format_number(x: int | float | Fraction) -> str:
    """``81``, ``85.5``, ``33.33``: the shortest decimal, as the report writes it."""
    if not isinstance(x, Fraction):
        x = exact(x)
    if x.denominator == 1:
        return str(x.numerator)
    return repr(float(x))


def percent(x: int | float | Fraction) -> str:
    """A CSS length in percent (scores are out of 100, so a score is its own width)."""
    return f"{format_number(x)}%"
