"""The floor for one short command: a Python process that parses and hashes a
bundle with orjson and writes two files, and nothing else.

    python bench/floor_startup.py fixtures/example.json OUT_DIR

``evidence-rank score BUNDLE --out-dir OUT_DIR`` does this and more (it also
validates, ranks and checks); ``bench/commands.py`` compares the two as whole
processes.
"""

import hashlib
import sys
from pathlib import Path

import orjson


def main(bundle: str, out_dir: str) -> None:
    raw = Path(bundle).read_bytes()
    doc = orjson.loads(raw)
    body = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)
    digest = "sha256:" + hashlib.sha256(body).hexdigest()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "validation.json").write_bytes(orjson.dumps({"input_digest": digest}))
    (out / "report.json").write_bytes(body)


if __name__ == "__main__":
    main(*sys.argv[1:3])
