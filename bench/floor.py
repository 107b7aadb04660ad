"""The floor: the work any scorer of a bundle must do, and nothing else.

    python bench/floor.py BUNDLE                  # one bundle, as a whole process
    python bench/floor.py --batch FOLDER OUT_DIR  # every *.json under FOLDER, two files written for each

For one bundle: read the file, ``orjson.loads`` it, then canonicalize
(``orjson.dumps`` with sorted keys) and ``sha256`` every sealed artifact and
the whole document. ``--batch`` does that for each bundle and writes two files
in a folder of its own under ``OUT_DIR/reports`` (as ``evidence-rank batch``
lays them out). ``bench/run.py`` calls :func:`floor_once` in its own process;
``bench/whole.py`` runs this file as a process, against ``evidence-rank``'s.

Only orjson and the standard library are imported: a floor process pays for no
module of the project.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import orjson

#: Where sealed artifacts live in a bundle (SPEC §1); the same as ``curator_io.sealing.ARTIFACT_LISTS``,
#: written out so that the floor process imports nothing of the project.
ARTIFACT_LISTS: tuple[tuple[str, ...], ...] = (
    ("memory", "instructions"),
    ("instructions",),
    ("materializations",),
    ("traces",),
    ("evidence",),
    ("lessons",),
)


def floor_once(raw: bytes) -> bytes:
    """Parse, then canonicalize and hash every sealed artifact and the bundle; the bundle's sorted bytes."""
    doc = orjson.loads(raw)
    for path in ARTIFACT_LISTS:
        node = doc
        for token in path:
            node = node[token]
        for artifact in node:
            hashlib.sha256(orjson.dumps(artifact, option=orjson.OPT_SORT_KEYS)).hexdigest()
    body = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)
    hashlib.sha256(body).hexdigest()
    return body


def floor_batch(folder: Path, out_dir: Path) -> int:
    """:func:`floor_once` for every bundle under ``folder``, in path order; two files written for each."""
    reports = out_dir / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    bundles = sorted(folder.rglob("*.json"))
    for i, path in enumerate(bundles, 1):
        body = floor_once(path.read_bytes())
        own = reports / f"{i:06d}-{path.stem}"
        own.mkdir()
        digest = "sha256:" + hashlib.sha256(body).hexdigest()
        (own / "validation.json").write_bytes(orjson.dumps({"input_digest": digest}))
        (own / "report.json").write_bytes(body)
    return len(bundles)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--batch"] and len(argv) == 3:
        floor_batch(Path(argv[1]), Path(argv[2]))
    elif len(argv) == 1:
        floor_once(Path(argv[0]).read_bytes())
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
