"""What the render tests share: bundles built from the fixtures and the parity corpus,
a hostile bundle whose texts hold markup, and headless Chromium.

Chromium is the Debian package ``chromium`` (``make browser`` installs it), or
the binary ``EVIDENCE_RANK_CHROMIUM`` names. A missing browser fails the browser
tests with that advice: they are never skipped.
"""

from __future__ import annotations

import copy
import json
import os
import random
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from curator_io import load_bundle
from curator_io.canonical import digest
from curator_io.sealing import seal_bundle
from ranking.pipeline import rank
from tests.conftest import FIXTURES, PARITY

#: Every final disposition but ``superseded`` (002), and a supersession by conflict (069).
MIXED = PARITY / "002-mixed-dispositions"
CONFLICT = PARITY / "069-rank-conflict-same-key-different-text"

#: Each would show itself if it ever ran: a changed title, an attribute, an element.
PAYLOADS = (
    "<script>document.title='pwned'</script>",
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">",
    "<script>alert(1)</script>",
    '</textarea></details></td></tr></table><svg onload="document.body.append(Object.assign('
    "document.createElement('p'),{id:'pwned'}))\">",
)
HOSTILE = " · ".join(PAYLOADS)


def case_bundle_doc(case: Path) -> dict[str, Any]:
    return json.loads((case / "bundle.json").read_bytes())


def ranked_report(doc: dict[str, Any]) -> dict[str, Any]:
    """The ranking report of a bundle document (not a parity case's expected one: see tests/conftest.py)."""
    return rank(load_bundle(json.dumps(doc).encode())).report


def hostile_bundle_doc() -> dict[str, Any]:
    """fixtures/example.json with markup in every free text the page shows, resealed."""
    doc = json.loads((FIXTURES / "example.json").read_bytes())
    doc["run"]["curator"] = HOSTILE
    for p in doc["proposals"]:
        p["rationale"] = f"{p['id']}: {HOSTILE}"
        for op in p["operations"]:
            if "text" in op:
                op["text"] = f"{op['key']}: {HOSTILE}"
    for lesson in doc["lessons"]:
        lesson["text"] = f"{lesson['id']}: {HOSTILE}"
    return seal_bundle(doc)


def shuffled(doc: dict[str, Any], seed: int) -> dict[str, Any]:
    """The same bundle with every array in another order, resealed (SPEC §7 "Replay": any order)."""
    out = copy.deepcopy(doc)
    rng = random.Random(seed)
    for name in ("proposals", "evidence", "traces", "lessons", "materializations", "instructions"):
        rng.shuffle(out[name])
    rng.shuffle(out["memory"]["instructions"])
    out.pop("frozen")
    out["frozen"] = {"digest": digest(out)}
    return out


# -- the browser ------------------------------------------------------------------------------


def chromium_path() -> str:
    found = os.environ.get("EVIDENCE_RANK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        raise RuntimeError(
            "the browser tests need Chromium: `make browser` installs the Debian package, "
            "or set EVIDENCE_RANK_CHROMIUM to a Chromium or Chrome binary"
        )
    return found


@dataclass
class Browser:
    binary: str
    profile: Path

    def _run(self, *args: str) -> str:
        command = [
            self.binary,
            "--headless",
            "--no-sandbox",  # CI runs as root, where Chromium's sandbox cannot start
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            f"--user-data-dir={self.profile}",
            *args,
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
        return done.stdout

    def dom(self, page: Path, query: str = "") -> Dom:
        """The DOM after the page loaded and its scripts ran, serialized by the browser."""
        return Dom.parse(self._run("--dump-dom", page.resolve().as_uri() + query))

    def screenshot(self, page: Path, out: Path, size: tuple[int, int] = (1280, 900)) -> Path:
        self._run(
            f"--screenshot={out}", f"--window-size={size[0]},{size[1]}", "--hide-scrollbars", page.resolve().as_uri()
        )
        return out


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Browser:
    return Browser(chromium_path(), tmp_path_factory.mktemp("chromium-profile"))


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None]
    children: list[Element | str] = field(default_factory=list)
    """Elements and text, in document order."""

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def all_text(self) -> str:
        return "".join(c if isinstance(c, str) else c.all_text() for c in self.children)

    def walk(self) -> Iterator[Element]:
        yield self
        for c in self.children:
            if not isinstance(c, str):
                yield from c.walk()

    def find(self, tag: str, **attrs: str) -> list[Element]:
        return [e for e in self.walk() if e.tag == tag and all(e.attrs.get(k) == v for k, v in attrs.items())]


_VOID = {"meta", "img", "br", "input", "link", "hr", "source", "wbr", "col", "area", "base", "embed", "track"}


class Dom(HTMLParser):
    """A small tree of the browser's serialized DOM (which closes every element it opens)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]

    @classmethod
    def parse(cls, html: str) -> Dom:
        dom = cls()
        dom.feed(html)
        dom.close()
        return dom

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs))
        self.stack[-1].children.append(element)
        if tag not in _VOID:
            self.stack.append(element)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)

    def one(self, tag: str, **attrs: str) -> Element:
        found = self.root.find(tag, **attrs)
        assert len(found) == 1, f"expected one <{tag} {attrs}>, found {len(found)}"
        return found[0]
