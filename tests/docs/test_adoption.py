"""Docs promise only what works: each way the README and docs/gate.md offer to install and adopt
evidence-rank, run as written against a local copy of this repository.

What a user replaces is replaced and nothing else: ``https://github.com/OWNER/evidence-rank``
becomes a ``file://`` URL of a committed copy, ``<commit-sha>`` that copy's commit, and a
workflow's ``uses: OWNER/evidence-rank@<commit-sha>`` the action in a copy of the checkout.
The workflow and the action run offline: their steps run in bash as the GitHub runner runs
them (``bash --noprofile --norc -eo pipefail``), with the ``${{ }}`` expressions they use
substituted; ``actions/checkout`` is the scratch clone itself and ``actions/setup-python``
this interpreter. pre-commit installs its hook environment as it always does, with pip's
own configuration.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ranking.cli import main
from tests.conftest import FIXTURES, REPO
from tests.installed import bare_environment, every_command_runs_outside_the_checkout, outside_env, source_copy
from tests.signing import key_pem, signing_key, trust_file

pytestmark = pytest.mark.slow

UPSTREAM = "https://github.com/OWNER/evidence-rank"
GIT = ["git", "-c", "user.name=evidence-rank tests", "-c", "user.email=tests@example.invalid"]
GIT += ["-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "advice.detachedHead=false"]
#: The SPEC §2 defaults, as a policy file would pin them.
POLICY = {"threshold": 40, "min_lineages": 2}


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _committed_copy(dest: Path) -> tuple[Path, str]:
    """A git repository holding the checkout's files in one commit, and that commit's SHA."""
    source_copy(dest)
    _git(dest, "init", "-q")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-qm", "evidence-rank as a user gets it")
    return dest, _git(dest, "rev-parse", "HEAD")


def _yaml_block(doc: Path, first_line: str) -> str:
    """The fenced YAML block of ``doc`` that starts with ``first_line``."""
    blocks = re.findall(r"```yaml\n(.*?)```", doc.read_text(encoding="utf-8"), flags=re.DOTALL)
    (block,) = [b for b in blocks if b.startswith(first_line + "\n")]
    return str(block)


def _scratch_gated_files(root: Path, *, extra_instruction: bool = False, bundle_bytes: bytes | None = None) -> Path:
    """The files a gated repository holds: a bundle signed by the Curator's key, its report ranked
    under POLICY, the memory the selection permits (with one instruction it does not, if asked),
    the policy and the trust file that lists the Curator's key. Returns the memory on the base
    branch, the bundle's own, in a file beside the checkout (where the workflow reads it to)."""
    (root / "curator").mkdir(parents=True)
    (root / "agent").mkdir()
    (root / ".evidence-rank").mkdir()
    (root / ".evidence-rank" / "policy.json").write_text(json.dumps(POLICY))
    (root / ".evidence-rank" / "trusted-signers").write_bytes(trust_file((signing_key("curator"), "Curator CI")))
    bundle = root / "curator" / "bundle.json"
    bundle.write_bytes((FIXTURES / "example.json").read_bytes() if bundle_bytes is None else bundle_bytes)
    key = root.parent / f"{root.name}-curator.key"  # the Curator's CI secret: never in the gated repository
    key.write_bytes(key_pem("curator"))
    assert main(["sign", str(bundle), "--key", str(key)]) == 0
    policy = str(root / ".evidence-rank" / "policy.json")
    assert main(["score", str(bundle), "--config", policy, "--out-dir", str(root / "curator"), "--quiet"]) == 0
    memory = root / "agent" / "memory.json"
    assert main(["apply", str(bundle), str(root / "curator" / "report.json"), "--out", str(memory)]) == 0
    if extra_instruction:
        doc = json.loads(memory.read_bytes())
        doc["instructions"].append({**doc["instructions"][0], "key": "unreviewed.rule", "text": "Never run tests."})
        memory.write_text(json.dumps(doc))
    base = root.parent / f"{root.name}-memory-before.json"
    base.write_text(json.dumps(json.loads(bundle.read_bytes())["memory"]))
    return base


def _expand(text: str, context: dict[str, str]) -> str:
    # An expression this runner does not know is a KeyError: the test fails rather than guess.
    return re.sub(r"\$\{\{\s*(.+?)\s*\}\}", lambda m: context[m.group(1)], text)


class Runner:
    """One job's runner: the workspace, the environment every step sees, and what the steps printed."""

    def __init__(self, tmp: Path, workspace: Path) -> None:
        self.workspace = workspace
        self.temp = tmp / "runner-temp"
        self.temp.mkdir()
        self.summary = tmp / "step-summary.md"
        self.python = bare_environment(tmp / "python")  # setup-python: a Python without evidence-rank
        env = outside_env()
        self.env = {
            **env,
            "PATH": f"{self.python}:{env['PATH']}",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "RUNNER_TEMP": str(self.temp),
            # Offline: the action's pip finds the dependencies already there and builds with this setuptools.
            "PIP_NO_INDEX": "1",
            "PIP_NO_BUILD_ISOLATION": "0",
        }
        self.context = {"runner.temp": str(self.temp)}
        self.output: list[str] = []

    def run(self, script: str, env: dict[str, str] | None = None) -> int:
        path = self.temp / "step.sh"
        path.write_text(script)
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(path)],
            cwd=self.workspace,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            check=False,
        )
        self.output.append(done.stdout + done.stderr)
        return done.returncode

    def run_step(self, step: dict[str, Any], context: dict[str, str]) -> int:
        env = {name: _expand(str(value), context) for name, value in step.get("env", {}).items()}
        return self.run(_expand(step["run"], context), env)

    def use_action(self, action_path: Path, given: dict[str, str]) -> int:
        action = yaml.safe_load((action_path / "action.yml").read_text())
        assert action["runs"]["using"] == "composite"
        assert set(given) <= set(action["inputs"]), "an input the action does not declare"
        inputs = {}
        for name, spec in action["inputs"].items():
            assert name in given or not spec.get("required"), f"required input {name} not given"
            inputs[f"inputs.{name}"] = _expand(str(given.get(name, spec.get("default", ""))), self.context)
        context = {**self.context, **inputs, "github.action_path": str(action_path)}
        for step in action["runs"]["steps"]:
            assert step["shell"] == "bash"
            code = self.run_step(step, context)
            if code != 0:
                return code
        return 0


def test_a_git_url_pinned_to_a_commit_installs_every_command(tmp_path: Path) -> None:
    documented = f'"evidence-rank @ git+{UPSTREAM}@<commit-sha>"'
    assert documented in (REPO / "README.md").read_text()
    repo, sha = _committed_copy(tmp_path / "evidence-rank")

    url = documented.strip('"').replace(UPSTREAM, repo.as_uri()).replace("<commit-sha>", sha)
    every_command_runs_outside_the_checkout(url, tmp_path / "user")


def test_make_wheel_builds_the_wheel_the_readme_installs(tmp_path: Path) -> None:
    recipe = re.split(r"\nwheel:[^\n]*\n", (REPO / "Makefile").read_text(), maxsplit=1)[1].split("\n\n", 1)[0]
    source = source_copy(tmp_path / "source")
    for line in recipe.splitlines():
        command = line.strip().removeprefix("@").replace("$(BIN)", str(Path(sys.executable).parent))
        done = subprocess.run(command, shell=True, cwd=source, check=True, capture_output=True)
    assert done.stdout.decode().startswith("Successfully built")  # what make wheel prints: the files, no log

    built = sorted(p.relative_to(source).as_posix() for p in (source / "dist").iterdir())
    wheel = next(name for name in built if name.endswith(".whl"))
    assert f"pip install {wheel}" in (REPO / "README.md").read_text()
    assert built == [wheel, wheel.replace("-py3-none-any.whl", ".tar.gz")]


GIVEN = {"bundle": "curator/bundle.json", "report": "curator/report.json", "memory-after": "agent/memory.json"}
TRUSTED = {"config": ".evidence-rank/policy.json", "trust": ".evidence-rank/trusted-signers"}


def test_the_action_installs_the_tool_from_its_own_checkout_and_gates(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    base = _scratch_gated_files(workspace)
    runner = Runner(tmp_path, workspace)
    action = source_copy(tmp_path / "action")

    assert runner.use_action(action, {**GIVEN, **TRUSTED, "memory-before": str(base)}) == 0, runner.output
    assert "gate passed" in runner.output[-1]
    assert "Curator CI" in runner.output[-1]  # the signer, named in the annotations
    assert "::warning" not in runner.output[-1]  # every check ran
    assert "gate passed" in runner.summary.read_text()
    # Installed in the runner's Python, from the action's checkout, not from this one.
    assert list((runner.python.parent / "lib").glob("python3.*/site-packages/ranking/__init__.py"))

    # format and config as the action's defaults give them: github annotations, the SPEC §2 defaults.
    bad_base = _scratch_gated_files(tmp_path / "bad", extra_instruction=True)
    runner.workspace = tmp_path / "bad"
    given = {**GIVEN, "trust": TRUSTED["trust"], "memory-before": str(bad_base)}
    assert runner.use_action(action, given) == 1
    assert "::error file=agent/memory.json" in runner.output[-1]


def test_the_action_with_a_trust_file_refuses_a_bundle_the_curator_did_not_sign(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    base = _scratch_gated_files(workspace)
    (workspace / "curator" / "bundle.json.intoto.json").unlink()  # unsigned, as a forger's bundle would be
    runner = Runner(tmp_path, workspace)
    action = source_copy(tmp_path / "action")
    given = {**GIVEN, "memory-before": str(base)}

    assert runner.use_action(action, {**given, "trust": ".evidence-rank/trusted-signers"}) == 4
    assert "signature.unsigned" in runner.output[-1]


def test_the_action_refuses_to_gate_unsigned_unless_told_and_then_warns(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    base = _scratch_gated_files(workspace)
    (workspace / "curator" / "bundle.json.intoto.json").unlink()
    runner = Runner(tmp_path, workspace)
    action = source_copy(tmp_path / "action")
    given = {**GIVEN, "memory-before": str(base)}

    assert runner.use_action(action, given) == 2  # no trust: refused before the gate runs
    assert "::error title=evidence-rank gate::trust is empty" in runner.output[-1]
    for fmt in ("github", "text"):
        assert runner.use_action(action, {**given, "allow-unsigned": "true", "format": fmt}) == 0, runner.output
        warnings = [line for line in runner.output[-1].splitlines() if line.startswith("::warning ")]
        assert len(warnings) == 1 and ("signature" in warnings[0] or "signed" in warnings[0])
    assert runner.use_action(action, {**given, "allow-unsigned": "yes"}) == 2  # not a boolean: refused


def test_the_action_refuses_to_gate_without_a_base_unless_told_and_then_warns(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    _scratch_gated_files(workspace)
    runner = Runner(tmp_path, workspace)
    action = source_copy(tmp_path / "action")
    given = {**GIVEN, **TRUSTED}

    assert runner.use_action(action, given) == 2
    assert "::error title=evidence-rank gate::memory-before is empty" in runner.output[-1]
    assert runner.use_action(action, {**given, "skip-base-check": "true"}) == 0, runner.output
    (warning,) = [line for line in runner.output[-1].splitlines() if line.startswith("::warning ")]
    assert "--skip-base-check" in warning


def test_the_action_warns_of_look_alikes_and_fails_on_them_only_when_told(tmp_path: Path) -> None:
    from tests.curator_scenario import scenario

    workspace = tmp_path / "workspace"
    base = _scratch_gated_files(workspace, bundle_bytes=scenario().canonical)
    runner = Runner(tmp_path, workspace)
    action = source_copy(tmp_path / "action")
    given = {**GIVEN, **TRUSTED, "memory-before": str(base)}

    assert runner.use_action(action, given) == 0, runner.output
    looks = [line for line in runner.output[-1].splitlines() if "look-alike::" in line]
    assert [line.split(" ", 1)[0] for line in looks] == ["::warning", "::warning"]
    assert runner.use_action(action, {**given, "fail-on-lookalikes": "true"}) == 1
    looks = [line for line in runner.output[-1].splitlines() if "look-alike::" in line]
    assert [line.split(" ", 1)[0] for line in looks] == ["::error", "::error"]
    assert runner.use_action(action, {**given, "fail-on-lookalikes": "yes"}) == 2  # not a boolean: refused


def test_nothing_the_checkout_adds_can_stand_in_for_the_action(tmp_path: Path) -> None:
    """A pull request adds packages named like the gate, its library and pip, and a sitecustomize,
    each of which would print a pass; the action's steps still install and run the real gate, which
    refuses the forged (unsigned) bundle."""
    workspace = tmp_path / "workspace"
    base = _scratch_gated_files(workspace)
    (workspace / "curator" / "bundle.json.intoto.json").unlink()
    fake = "import sys; print('gate passed: shadowed'); sys.exit(0)\n"
    for package in ("ranking", "curator_io", "validator", "pip"):
        (workspace / package).mkdir()
        (workspace / package / "__init__.py").write_text(fake)
        (workspace / package / "__main__.py").write_text(fake)
    (workspace / "ranking" / "cli.py").write_text(fake)
    (workspace / "sitecustomize.py").write_text(fake)
    (workspace / "usercustomize.py").write_text(fake)
    runner = Runner(tmp_path, workspace)
    runner.env["PYTHONPATH"] = str(workspace)  # even an environment that points at the checkout
    action = source_copy(tmp_path / "action")
    given = {**GIVEN, **TRUSTED, "memory-before": str(base)}

    assert runner.use_action(action, given) == 4, runner.output
    assert "signature.unsigned" in runner.output[-1]
    assert not any("shadowed" in out for out in runner.output)
    assert list((runner.python.parent / "lib").glob("python3.*/site-packages/ranking/checking/gate.py"))


def test_an_input_with_shell_syntax_reaches_gate_as_a_path_and_runs_nothing(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    base = _scratch_gated_files(workspace)
    runner = Runner(tmp_path, workspace)
    action = source_copy(tmp_path / "action")
    given = {"bundle": "curator/bundle.json", "report": "curator/report.json", "memory-before": str(base)}
    given |= {"trust": TRUSTED["trust"]}

    assert runner.use_action(action, {**given, "memory-after": "$(touch pwned).json", "format": "text"}) == 2
    assert "$(touch pwned).json" in runner.output[-1]
    assert not (workspace / "pwned").exists()


def _documented_workflow_on_a_pull_request(tmp_path: Path, *, base_moved_on: bool = False) -> tuple[Runner, int]:
    """docs/gate.md's workflow, run as written on a pull request. The base branch holds the policy,
    the trust file and the agent's memory; the pull request adds a signed curator run and the
    memory it permits, loosens its own copy of the policy and lists its own key, neither of which
    the workflow may use. With ``base_moved_on``, main's memory took one more instruction after the
    Curator's run: the pull request replays an old, genuinely signed bundle."""
    workflow = yaml.safe_load(_yaml_block(REPO / "docs" / "gate.md", "# .github/workflows/memory-gate.yml"))
    assert workflow[True] == ["pull_request"]  # YAML 1.1 reads the key `on` as true
    origin = tmp_path / "origin"
    origin.mkdir()
    _git(origin, "init", "-q")
    (origin / ".evidence-rank").mkdir()
    (origin / ".evidence-rank" / "policy.json").write_text(json.dumps(POLICY))
    (origin / ".evidence-rank" / "trusted-signers").write_bytes(trust_file((signing_key("curator"), "Curator CI")))
    base = json.loads(_scratch_gated_files(tmp_path / "gated").read_bytes())
    if base_moved_on:
        base["version"] += 5
        base["instructions"].append({**base["instructions"][0], "key": "zz.newer", "text": "Lint first."})
    (origin / "agent").mkdir()
    (origin / "agent" / "memory.json").write_text(json.dumps(base, indent=2))
    _git(origin, "add", "-A")
    _git(origin, "commit", "-qm", "the policy, the trust file and the memory")
    _git(origin, "checkout", "-qb", "pr")
    for name in ("curator/bundle.json", "curator/bundle.json.intoto.json", "curator/report.json", "agent/memory.json"):
        (origin / name).parent.mkdir(exist_ok=True)
        (origin / name).write_bytes((tmp_path / "gated" / name).read_bytes())
    (origin / ".evidence-rank" / "policy.json").write_text(json.dumps({"threshold": 0, "min_lineages": 1}))
    (origin / ".evidence-rank" / "trusted-signers").write_bytes(trust_file((signing_key("attacker"), "anyone")))
    _git(origin, "add", "-A")
    _git(origin, "commit", "-qm", "a curator run, and a looser policy")
    workspace = tmp_path / "workspace"
    _git(tmp_path, "clone", "-q", "--branch", "pr", origin.as_uri(), str(workspace))
    runner = Runner(tmp_path, workspace)
    runner.env["GITHUB_BASE_REF"] = "main"
    action = source_copy(tmp_path / "action")

    ran, code = [], 0
    for step in workflow["jobs"]["gate"]["steps"]:
        uses = step.get("uses", "")
        if uses.startswith("actions/checkout@"):
            assert (workspace / ".git").is_dir()  # the clone above
        elif uses.startswith("actions/setup-python@"):
            assert step["with"]["python-version"] == f"{sys.version_info.major}.{sys.version_info.minor}"
        elif uses:
            assert uses == "OWNER/evidence-rank@<commit-sha>"
            code = runner.use_action(action, step["with"])
        else:
            assert runner.run_step(step, runner.context) == 0, runner.output
        ran.append(step.get("name") or uses)

    assert ran == ["actions/checkout@v4", "actions/setup-python@v5", "from the base branch", "evidence-rank gate"]
    assert json.loads((runner.temp / "policy.json").read_text()) == POLICY
    assert "Curator CI" in (runner.temp / "trusted-signers").read_text()
    assert json.loads((runner.temp / "memory-before.json").read_text()) == base
    return runner, code


def test_the_documented_workflow_runs_as_written_on_a_pull_request(tmp_path: Path) -> None:
    runner, code = _documented_workflow_on_a_pull_request(tmp_path)
    assert code == 0, runner.output
    assert "gate passed" in runner.output[-1]
    assert "::warning" not in runner.output[-1]
    assert "gate passed" in runner.summary.read_text()


def test_the_documented_workflow_refuses_an_old_signed_bundle_replayed_after_the_base_moved_on(
    tmp_path: Path,
) -> None:
    runner, code = _documented_workflow_on_a_pull_request(tmp_path, base_moved_on=True)
    assert code == 1, runner.output
    assert "base_mismatch" in runner.summary.read_text()
    assert "the bundle was curated against memory version 7" in runner.output[-1]
    assert "the base is version 12" in runner.output[-1]


def test_the_documented_pre_commit_config_runs_the_hook_at_a_commit(tmp_path: Path) -> None:
    hooks, sha = _committed_copy(tmp_path / "evidence-rank")
    documented = _yaml_block(REPO / "docs" / "gate.md", "# .pre-commit-config.yaml")
    assert "rev: <commit-sha>" in documented
    consumer = tmp_path / "consumer"
    _scratch_gated_files(consumer)
    (consumer / ".pre-commit-config.yaml").write_text(
        documented.replace(UPSTREAM, hooks.as_uri()).replace("<commit-sha>", sha)
    )
    _git(consumer, "init", "-q")
    _git(consumer, "add", "-A")
    env = {**outside_env(), "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}

    def pre_commit() -> subprocess.CompletedProcess[str]:
        args = [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"]
        return subprocess.run(args, cwd=consumer, env=env, capture_output=True, text=True, check=False)

    passed = pre_commit()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"evidence-rank gate\.+Passed", passed.stdout)

    memory = consumer / "agent" / "memory.json"
    doc = json.loads(memory.read_bytes())
    doc["instructions"] = doc["instructions"][1:]  # a permitted instruction lost
    memory.write_text(json.dumps(doc))
    _git(consumer, "add", "-A")
    failed = pre_commit()
    assert failed.returncode == 1
    assert re.search(r"evidence-rank gate\.+Failed", failed.stdout)
