"""What a page's prose takes for granted, made in the page's scratch folder before a block marked
`<!-- given: NAME -->` (tests/docs/test_doc_blocks.py): the reader's own inbox, a pull request's
checkout, the ledger a documented example leaves.

Each given makes only what the page has not made itself (a trust file the page wrote with
`keygen` stays the one the base branch holds), and returns the environment variables it
sets for the block, as a CI job's secrets would be.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import yaml

from tests.conftest import FIXTURES, REPO
from tests.docs.doc_blocks import read_blocks
from tests.signing import key_pem, signing_key, trust_file

__all__ = ["GIVENS", "BIN"]

#: The environment's scripts: `evidence-rank` as `make install` puts it in .venv/bin.
BIN = Path(sys.executable).parent
GIT = ["git", "-c", "user.name=evidence-rank docs", "-c", "user.email=docs@example.invalid"]
GIT += ["-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"]
#: The base branch's policy: the SPEC §2 defaults, as a policy file pins them.
POLICY = {"threshold": 40, "min_lineages": 2}


def _run(folder: Path, env: dict[str, str], *argv: str | Path) -> None:
    subprocess.run([str(a) for a in argv], cwd=folder, env=env, check=True, capture_output=True)


def an_inbox(folder: Path, env: dict[str, str]) -> dict[str, str]:
    """`inbox/acme-api.json` (the example bundle), and `nightly.jsonl` (gzipped too): one bundle
    where nothing clears the threshold, then one whose conflict leaves one edit selected."""
    (folder / "inbox").mkdir()
    (folder / "inbox" / "acme-api.json").write_bytes((FIXTURES / "example.json").read_bytes())
    lines = [
        json.dumps(json.loads((FIXTURES / f"{name}.json").read_bytes())) + "\n"
        for name in ("nothing-clears-threshold", "conflicting-pair")
    ]
    (folder / "nightly.jsonl").write_text("".join(lines), "utf-8")
    (folder / "nightly.jsonl.gz").write_bytes(gzip.compress("".join(lines).encode(), mtime=0))
    return {}


def a_broken_bundle_in_the_inbox(folder: Path, env: dict[str, str]) -> dict[str, str]:
    """`inbox/broken.json`: a bundle cut off mid-document."""
    (folder / "inbox" / "broken.json").write_text('{"schema": "curator-bundle-v1",\n', "utf-8")
    return {}


def the_curators_bundle_and_key(folder: Path, env: dict[str, str]) -> dict[str, str]:
    """`curator/bundle.json` (the example bundle) and `$KEY_FILE`, the Curator's private key: the
    page's `curator.key` when it made one with `keygen`, else a test key whose line
    `.evidence-rank/trusted-signers` lists as "Curator CI"."""
    bundle = folder / "curator" / "bundle.json"
    if not bundle.exists():
        bundle.parent.mkdir(exist_ok=True)
        bundle.write_bytes((FIXTURES / "example.json").read_bytes())
    if (folder / "curator.key").exists():
        return {"KEY_FILE": str(folder / "curator.key")}
    key = folder.parent / "curator-ci-secret.key"  # a CI secret: never in the checkout
    key.write_bytes(key_pem("curator"))
    (folder / ".evidence-rank").mkdir(exist_ok=True)
    (folder / ".evidence-rank" / "trusted-signers").write_bytes(trust_file((signing_key("curator"), "Curator CI")))
    return {"KEY_FILE": str(key)}


def a_pull_request(folder: Path, env: dict[str, str]) -> dict[str, str]:
    """The checkout of a pull request as `actions/checkout` leaves it: a git repository with no
    ref of the base branch, whose `origin` has `main` holding the base: the agent's memory (the
    bundle's own), the policy and the trust file. The pull request holds the Curator's signed
    bundle, its report ranked under the policy, and the memory the Writer wrote from it."""
    key = the_curators_bundle_and_key(folder, env)
    env = env | key
    policy = folder / ".evidence-rank" / "policy.json"
    if not policy.exists():
        policy.write_text(json.dumps(POLICY), "utf-8")
    bundle, report, memory = "curator/bundle.json", "curator/report.json", "agent/memory.json"
    if not (folder / f"{bundle}.intoto.json").exists():
        _run(folder, env, BIN / "evidence-rank", "sign", bundle, "--key", env["KEY_FILE"])
    if not (folder / report).exists():
        _run(folder, env, BIN / "evidence-rank", "score", bundle, "--config", policy, "--out-dir", "curator", "-q")
    if not (folder / memory).exists():
        (folder / "agent").mkdir(exist_ok=True)
        _run(folder, env, BIN / "evidence-rank", "apply", bundle, report, "--out", memory)
    base = _base_branch(folder, env)
    _run(folder, env, *GIT, "init", "-q", "-b", "pull-request")
    _run(folder, env, *GIT, "remote", "add", "origin", base.as_uri())
    _run(folder, env, *GIT, "add", "curator", "agent")
    _run(folder, env, *GIT, "commit", "-qm", "a curator run, and the memory it permits")
    return key


def _base_branch(folder: Path, env: dict[str, str]) -> Path:
    """A repository beside ``folder`` whose `main` holds the bundle's memory as the agent's, and
    the policy and the trust file ``folder`` has."""
    base = folder.parent / "origin"
    (base / "agent").mkdir(parents=True)
    (base / ".evidence-rank").mkdir()
    memory = json.loads((folder / "curator" / "bundle.json").read_bytes())["memory"]
    (base / "agent" / "memory.json").write_text(json.dumps(memory, indent=2) + "\n", "utf-8")
    for name in ("policy.json", "trusted-signers"):
        (base / ".evidence-rank" / name).write_bytes((folder / ".evidence-rank" / name).read_bytes())
    _run(base, env, *GIT, "init", "-q")
    _run(base, env, *GIT, "add", "-A")
    _run(base, env, *GIT, "commit", "-qm", "the base: the agent's memory, the policy, the trust file")
    return base


def the_base_branch_in_runner_temp(folder: Path, env: dict[str, str]) -> dict[str, str]:
    """What docs/gate.md's workflow step "from the base branch" writes, run as written there."""
    (workflow,) = [b for b in read_blocks(REPO / "docs" / "gate.md", "docs/gate.md") if b.kind == "workflow"]
    steps = yaml.safe_load(workflow.text)["jobs"]["gate"]["steps"]
    (script,) = [step["run"] for step in steps if step.get("name") == "from the base branch"]
    _run(folder, env, "bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script)
    return {}


def the_examples_ledger_in_admissions_db(folder: Path, env: dict[str, str]) -> dict[str, str]:
    """docs/gepa.md's example, run with its ledger kept in `admissions.db` rather than in a
    temporary folder."""
    (example,) = [
        b
        for b in read_blocks(REPO / "docs" / "gepa.md", "docs/gepa.md")
        if b.section == "### Example" and b.kind == "python"
    ]
    kept = (
        "import contextlib, os, tempfile\ntempfile.TemporaryDirectory = lambda: contextlib.nullcontext(os.getcwd())\n"
    )
    _run(folder, env, BIN / "python", "-c", kept + example.text)
    return {}


#: The givens by the name a page's mark uses.
def the_agents_logs(folder: Path, env: dict[str, str]) -> dict[str, str]:
    """`logs/`: the reader's own agent's logs, as Claude Code and an OTLP exporter wrote them (three
    Claude Code sessions in `acme/shop` and one OTLP JSON file: tests/data/README.md)."""
    (folder / "logs").mkdir(exist_ok=True)
    for log in sorted((REPO / "tests" / "data" / "transcripts").glob("*.jsonl")):
        (folder / "logs" / log.name).write_bytes(log.read_bytes())
    return {}


GIVENS: dict[str, Callable[[Path, dict[str, str]], dict[str, str]]] = {
    "an inbox": an_inbox,
    "a broken bundle in the inbox": a_broken_bundle_in_the_inbox,
    "the Curator's bundle and key": the_curators_bundle_and_key,
    "a pull request": a_pull_request,
    "the base branch's files in $RUNNER_TEMP": the_base_branch_in_runner_temp,
    "the Example's ledger in admissions.db": the_examples_ledger_in_admissions_db,
    "the agent's logs in logs/": the_agents_logs,
}
