"""How long a large report's run view takes to make and to open in headless Chromium.

    python bench/render.py                 # 10,000 proposals, seed 1, best of 3
    python bench/render.py --n 2000 --repeat 1

1. generate a sealed bundle (bench/generate.py) and rank it;
2. time ``render_report`` (its verification included) without and with the bundle;
3. open the page in headless Chromium (``EVIDENCE_RANK_CHROMIUM`` or ``chromium``):
   - ``--dump-dom``: process start to exit, the whole DOM parsed, the page's script
     run and the DOM serialized back; and the page's own clock (``data-enhanced``:
     milliseconds from navigation start to the end of its script, which sits at
     the end of the body, so the whole document has been parsed);
   - ``--screenshot``: process start to exit, laid out and painted;
   each against the same command on a one-line page (the browser's own start-up).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run as a script from a checkout: the packages sit one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.generate import generate_bundle
from curator_io import load_bundle
from ranking.checking.acceptance import accept
from ranking.pipeline import rank
from ranking.views.html import render_report

LIMIT_S = 2.0


def _chromium() -> str:
    found = os.environ.get("EVIDENCE_RANK_CHROMIUM") or shutil.which("chromium")
    if not found:
        sys.exit("bench/render.py needs Chromium: make browser, or set EVIDENCE_RANK_CHROMIUM")
    return found


def _open(binary: str, profile: Path, page: Path, mode: str, out: Path) -> tuple[float, str]:
    action = ["--dump-dom"] if mode == "dom" else [f"--screenshot={out}", "--window-size=1280,900"]
    command = [binary, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}", *action]
    start = time.perf_counter()
    done = subprocess.run([*command, page.resolve().as_uri()], capture_output=True, text=True, timeout=300, check=True)
    return time.perf_counter() - start, done.stdout


def _best(repeat: int, fn) -> tuple[float, object]:
    results = [fn() for _ in range(repeat)]
    return min(results, key=lambda r: r[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10_000, help="proposals (default 10000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    args = parser.parse_args(argv)
    binary = _chromium()

    raw = json.dumps(generate_bundle(args.n, args.seed)).encode()
    bundle = load_bundle(raw)
    report = rank(bundle).report
    t_alone, page = _best(args.repeat, lambda: _timed(lambda: render_report(accept(report))))
    t_bundle, _ = _best(args.repeat, lambda: _timed(lambda: render_report(accept(report, bundle=bundle))))

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path, blank = folder / "run.html", folder / "blank.html"
        path.write_text(page, encoding="utf-8")
        blank.write_text("<!DOCTYPE html><title>blank</title><p>blank</p>", encoding="utf-8")
        profile, shot = folder / "profile", folder / "shot.png"
        _open(binary, profile, blank, "dom", shot)  # warm the profile and the page cache
        dom_s, dom = _best(args.repeat, lambda: _open(binary, profile, path, "dom", shot))
        blank_dom_s, _ = _best(args.repeat, lambda: _open(binary, profile, blank, "dom", shot))
        shot_s, _ = _best(args.repeat, lambda: _open(binary, profile, path, "shot", shot))
        blank_shot_s, _ = _best(args.repeat, lambda: _open(binary, profile, blank, "shot", shot))
        enhanced = re.search(r'<html[^>]* data-enhanced="(\d+)"', dom)
        rows = dom.count('<tr id="proposal-')

    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"machine: nproc={os.cpu_count()}, Python {platform.python_version()}, {version}")
    print(f"command: python bench/render.py --n {args.n} --seed {args.seed} --repeat {args.repeat}")
    print(f"report: {args.n} proposals, outcome {report['outcome']}; page {len(page.encode()) / 1e6:.1f} MB")
    print(f"render_report (verification included): {t_alone:.2f} s; with the bundle (replayed): {t_bundle:.2f} s")
    print(f"chromium --dump-dom: {dom_s:.2f} s (a one-line page: {blank_dom_s:.2f} s); rows in the DOM: {rows}")
    print(f"page's own clock, navigation start to its script done: {enhanced.group(1) if enhanced else '?'} ms")
    print(f"chromium --screenshot: {shot_s:.2f} s (a one-line page: {blank_shot_s:.2f} s)")
    worst = max(dom_s, shot_s)
    print(
        f"opens in under {LIMIT_S:g} s, browser start-up included: {'yes' if worst < LIMIT_S else 'NO'} ({worst:.2f} s)"
    )
    return 0 if worst < LIMIT_S and rows == args.n else 1


def _timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


if __name__ == "__main__":
    sys.exit(main())
