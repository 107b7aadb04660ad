"""The gate attacked as issue 33 did, forging nothing: each test is one attack on a memory-write
gate, run end to end through the command line, and fails if the defence is taken away.
docs/security.md names each of them beside the attack it answers."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from curator_io import canon, seal
from curator_io.canonical import sha256_digest
from ranking.cli import main
from ranking.signing.keys import b64encode
from tests.conftest import FIXTURES, REPO, run_main
from tests.signing import key_pem, signing_key, trust_file

EXAMPLE = FIXTURES / "example.json"
#: Every workflow command a line of CI output could forge, by the legacy and the current syntax.
INJECTED = "##[error title=forged]pwned ##[add-mask]x ##[stop-commands]t"


def _sh(*argv: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ranking.cli", *map(str, argv)], cwd=cwd or REPO, capture_output=True, text=True
    )


def _no_command_but_ours(text: str) -> None:
    for line in text.splitlines():
        assert "##[" not in line, line
        assert not line.lstrip().startswith("::") or line.startswith(
            ("::error title=evidence-rank gate", "::error file=", "::warning title=", "::notice title=")
        ), line


@pytest.fixture
def signed_history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Path]:
    """The Curator signs fixtures/example.json, it is scored and applied: memory M1, version 8.
    Then main's memory moves on: M2, version 9, one instruction more. The old bundle, its report
    and M1 are all genuine, and signed where they are signed."""
    ci = tmp_path / "ci"
    ci.mkdir()
    bundle = ci / "bundle.json"
    bundle.write_bytes(EXAMPLE.read_bytes())
    (ci / "curator.key").write_bytes(key_pem("curator"))
    (ci / "trusted-signers").write_bytes(trust_file((signing_key("curator"), "Curator CI")))
    assert run_main(capsys, "sign", bundle, "--key", ci / "curator.key")[0] == 0
    assert run_main(capsys, "score", bundle, "--out-dir", ci / "out", "--quiet")[0] == 0
    m1 = ci / "m1.json"
    assert run_main(capsys, "apply", bundle, ci / "out" / "report.json", "--out", m1)[0] == 0
    m2 = json.loads(m1.read_bytes())
    m2["version"] += 1
    m2["instructions"].append(
        seal({"key": "zz.newer", "text": "Run the linters.", "scope": {"level": "global"}, "origin": "user"})
    )
    (ci / "m2.json").write_bytes(canon(m2))
    (ci / "m0.json").write_bytes(canon(json.loads(bundle.read_bytes())["memory"]))
    return {
        "dir": ci,
        "bundle": bundle,
        "report": ci / "out" / "report.json",
        "m0": ci / "m0.json",
        "m1": m1,
        "m2": ci / "m2.json",
        "trust": ci / "trusted-signers",
    }


def _replay(h: dict[str, Path], *extra: str | Path) -> list[str | Path]:
    return ["gate", "--bundle", h["bundle"], "--report", h["report"], "--memory-after", h["m1"], *extra]


# -- rollback and replay ---------------------------------------------------------------------------


def test_an_old_signed_bundle_replayed_against_a_newer_base_is_a_base_mismatch(
    signed_history: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    h = signed_history
    # The first time, against the memory it was curated on, the write passes.
    rc, out, _ = run_main(capsys, *_replay(h, "--trust", h["trust"], "--memory-before", h["m0"]))
    assert rc == 0 and "gate passed" in out

    rc, out, _ = run_main(capsys, *_replay(h, "--trust", h["trust"], "--memory-before", h["m2"]))

    assert rc == 1
    m0, m2 = (sha256_digest(canon(json.loads(h[n].read_bytes()))) for n in ("m0", "m2"))
    finding, signed, verdict = out.splitlines()
    assert finding == (
        f"base_mismatch    the bundle was curated against memory version 7 ({m0}), but the base is version 9 "
        f"({m2}): applying an old or replayed bundle would roll memory back; curate a new bundle against the base"
    )
    assert signed.startswith("the bundle is signed by Curator CI")
    assert verdict == (
        "gate failed: 1 finding(s) (1 base_mismatch); the bundle was not curated against the base, "
        "so memory-after was not compared"
    )


def test_a_base_mismatch_names_both_versions_and_digests_in_json_and_github(
    signed_history: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch
) -> None:
    h = signed_history
    argv = _replay(h, "--trust", h["trust"], "--memory-before", h["m2"])
    rc, out, _ = run_main(capsys, *argv, "--format", "json")
    assert rc == 1
    (finding,) = json.loads(out)["findings"]
    assert finding["kind"] == "base_mismatch" and finding["document"] == "memory-before"
    assert finding["pointer"] == "" and finding["key"] is None
    assert finding["bundle"]["version"] == 7 and finding["base"]["version"] == 9
    assert finding["base"]["digest"] == sha256_digest(canon(json.loads(h["m2"].read_bytes())))

    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    rc, out, _ = run_main(capsys, *argv, "--format", "github")
    assert rc == 1
    (annotation,) = [line for line in out.splitlines() if line.startswith("::error ")]
    assert annotation.startswith(
        f"::error file={h['m2']},line=1,col=1,title=evidence-rank gate::the bundle was curated"
    )
    assert "version 7" in annotation and "version 9" in annotation
    assert "| base_mismatch |" in summary.read_text()


def test_the_base_is_compared_as_canonical_json_so_indentation_and_member_order_do_not_count(
    signed_history: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    h = signed_history
    memory = json.loads(h["m0"].read_bytes())
    indented = h["dir"] / "indented.json"
    indented.write_text(json.dumps(dict(reversed(list(memory.items()))), indent=4))
    rc, out, _ = run_main(capsys, *_replay(h, "--trust", h["trust"], "--memory-before", indented))
    assert rc == 0, out


def test_a_base_that_is_a_whole_bundle_is_refused_rather_than_compared(
    signed_history: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    h = signed_history
    rc, _, err = run_main(capsys, *_replay(h, "--memory-before", h["bundle"]))
    assert rc == 3
    assert f"{h['bundle']}: input.schema at '/memory': memory-before is a whole document" in err


def test_the_gate_without_a_base_refuses_to_run_and_says_how_to_give_one(
    signed_history: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    rc, out, err = run_main(capsys, *_replay(signed_history, "--trust", signed_history["trust"]))
    assert rc == 2 and out == ""
    first, hint = err.splitlines()
    assert first.startswith("evidence-rank: usage.invalid_option: gate needs --memory-before BASE")
    assert "git fetch --depth=1 origin main && git show FETCH_HEAD:agent/memory.json > base.json" in hint


def test_skipping_the_base_is_said_in_every_format(
    signed_history: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    h = signed_history
    argv = _replay(h, "--trust", h["trust"], "--skip-base-check")
    rc, out, _ = run_main(capsys, *argv)
    assert rc == 0
    assert "warning: not checked: the memory the bundle was curated against (--skip-base-check)" in out
    rc, out, _ = run_main(capsys, *argv, "--format", "json")
    assert rc == 0 and json.loads(out)["unchecked"] == ["base"]
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    rc, out, _ = run_main(capsys, *argv, "--format", "github")
    (warning,) = [line for line in out.splitlines() if line.startswith("::warning ")]
    assert "--skip-base-check" in warning


def test_a_base_and_a_skip_together_are_a_usage_error(signed_history: dict[str, Path], capsys) -> None:
    h = signed_history
    rc, _, err = run_main(capsys, *_replay(h, "--memory-before", h["m0"], "--skip-base-check"))
    assert rc == 2 and "--skip-base-check contradicts --memory-before" in err


# -- silence: what was not checked -----------------------------------------------------------------


def test_a_gate_without_trust_says_in_every_format_that_no_signature_was_checked(
    signed_history: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch, tmp_path: Path
) -> None:
    h = signed_history
    # A resealed forgery: the signature is not asked for, so the pass must say it proves no origin.
    doc = json.loads(h["bundle"].read_bytes())
    doc["run"]["curator"] = "anyone"
    doc.pop("frozen")
    doc["frozen"] = {"digest": sha256_digest(canon(doc))}
    forged = tmp_path / "forged.json"
    forged.write_bytes(canon(doc))
    rc, _, _ = run_main(capsys, "score", forged, "--out-dir", tmp_path / "out", "--quiet")
    assert rc == 0
    argv: list[Any] = ["gate", "--bundle", forged, "--report", tmp_path / "out" / "report.json"]
    argv += ["--memory-after", h["m1"], "--memory-before", h["m0"]]

    rc, out, _ = run_main(capsys, *argv)
    assert rc == 0
    assert "warning: not checked: who signed the bundle (no --trust)" in out
    rc, out, _ = run_main(capsys, *argv, "--format", "json")
    assert json.loads(out)["unchecked"] == ["signature"]
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    rc, out, _ = run_main(capsys, *argv, "--format", "github")
    assert any(line.startswith("::warning ") and "no --trust" in line for line in out.splitlines())


def test_a_gate_that_checked_everything_lists_nothing_unchecked(
    signed_history: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    h = signed_history
    rc, out, _ = run_main(capsys, *_replay(h, "--trust", h["trust"], "--memory-before", h["m0"], "--format", "json"))
    assert rc == 0 and json.loads(out)["unchecked"] == []
    rc, out, _ = run_main(capsys, *_replay(h, "--trust", h["trust"], "--memory-before", h["m0"]))
    assert "warning" not in out


# -- injecting CI output ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_legacy_workflow_commands_in_memory_after_reach_no_line_unescaped(
    signed_history: dict[str, Path], fmt: str, tmp_path: Path
) -> None:
    h = signed_history
    memory = json.loads(h["m1"].read_bytes())
    inst = {"key": INJECTED, "text": INJECTED, "scope": {"level": "global"}, "origin": "user"}
    memory["instructions"].append(seal(inst))
    memory["::error::" + INJECTED] = 1
    after = tmp_path / "after.json"
    after.write_bytes(canon(memory))
    proc = _sh("gate", "--bundle", h["bundle"], "--report", h["report"], "--memory-after", after,
               "--memory-before", h["m0"], "--format", fmt)  # fmt: skip
    assert proc.returncode == 1
    _no_command_but_ours(proc.stdout + proc.stderr)
    if fmt == "json":  # the same value, written so no log reads a command in it
        assert {f["key"] for f in json.loads(proc.stdout)["findings"]} == {None, INJECTED}
    else:
        assert r"#\x23[error title=forged]pwned" in proc.stdout


def test_a_refusal_quoting_a_value_on_stderr_forges_no_command(signed_history: dict[str, Path], tmp_path: Path) -> None:
    h = signed_history
    after = tmp_path / "after.json"
    after.write_text(json.dumps({"version": INJECTED, "instructions": []}))
    for fmt in ("text", "github", "json"):
        proc = _sh("gate", "--bundle", h["bundle"], "--report", h["report"], "--memory-after", after,
                   "--memory-before", h["m0"], "--format", fmt)  # fmt: skip
        assert proc.returncode == 3
        assert "input.schema at '/version'" in proc.stderr
        _no_command_but_ours(proc.stdout + proc.stderr)


def test_a_file_named_like_a_command_forges_none_on_stderr(signed_history: dict[str, Path], tmp_path: Path) -> None:
    h = signed_history
    named = tmp_path / "  ::error::forged ##[add-mask]x.json"
    named.write_bytes(b"{")
    proc = _sh("gate", "--bundle", named, "--report", h["report"], "--memory-after", named, "--skip-base-check")
    assert proc.returncode == 3
    _no_command_but_ours(proc.stdout + proc.stderr)


def test_ledger_verify_findings_from_a_crafted_ledger_forge_no_command(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.db"
    assert _sh("score", EXAMPLE, "--out-dir", tmp_path / "out", "--ledger", ledger, "-q").returncode == 0
    db = sqlite3.connect(ledger)
    with db:  # a ledger merged from elsewhere, its stored texts chosen by whoever wrote it
        db.execute(
            "UPDATE decisions SET proposal = ?, reasons = ?",
            (INJECTED, json.dumps([{"code": INJECTED, "subject": None}])),
        )
    db.close()
    history = ["history", "--proposal", INJECTED]
    for command in (["verify"], history, ["notes"], [*history, "--format", "json"], ["export"]):
        proc = _sh("ledger", *command[:1], ledger, *command[1:])
        assert proc.returncode in (0, 4), proc.stderr
        _no_command_but_ours(proc.stdout + proc.stderr)
    assert "tampered: " in _sh("ledger", "verify", ledger).stdout


def test_explain_quotes_a_rationale_holding_a_command_escaped(tmp_path: Path) -> None:
    doc = json.loads(EXAMPLE.read_bytes())
    doc["proposals"][0]["rationale"] = INJECTED
    doc.pop("frozen")
    doc["frozen"] = {"digest": sha256_digest(canon(doc))}
    bundle = tmp_path / "bundle.json"
    bundle.write_bytes(canon(doc))
    assert _sh("score", bundle, "--out-dir", tmp_path / "out", "-q").returncode == 0
    pid = doc["proposals"][0]["id"]
    proc = _sh("explain", tmp_path / "out" / "report.json", pid, "--bundle", bundle)
    assert proc.returncode == 0, proc.stderr
    assert r"#\x23[error title=forged]pwned" in proc.stdout
    _no_command_but_ours(proc.stdout + proc.stderr)


# -- weak keys -------------------------------------------------------------------------------------

#: The Ed25519 identity point: a key of small order. With it, R = identity and S = 0 is a
#: "signature" of every message, made with no private key.
IDENTITY = bytes([1]) + bytes(31)
_ED25519_SPKI = bytes.fromhex("302a300506032b6570032100")
_P256_SPKI = bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d030107034200")


def _trust_line_of(spki: bytes) -> bytes:
    return f"{sha256_digest(spki)} {b64encode(spki)} weak\n".encode()


@pytest.mark.parametrize(
    ("spki", "why"),
    [
        (_ED25519_SPKI + IDENTITY, "a point of small order"),
        (_ED25519_SPKI + bytes.fromhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"), "small"),
        (_ED25519_SPKI + bytes.fromhex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"), "y is not"),
        (_ED25519_SPKI + bytes([1]) + bytes(30) + bytes([0x80]), "x = 0 with the sign bit set"),
        (_P256_SPKI + b"\x04" + bytes([1]) * 64, "the point is not on the curve"),
        (_P256_SPKI + b"\x04" + b"\xff" * 64, "a coordinate is not below p"),
    ],
    ids=["identity", "order 2", "y >= p", "negative zero", "off the curve", "p256 coordinate >= p"],
)
def test_a_weak_or_invalid_key_in_a_trust_file_is_refused_when_read(
    spki: bytes, why: str, signed_history: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    h = signed_history
    (h["dir"] / "weak-signers").write_bytes(b"# a key nobody holds\n" + _trust_line_of(spki))
    for fmt in ("text", "json"):
        rc, out, err = run_main(
            capsys, *_replay(h, "--trust", h["dir"] / "weak-signers", "--memory-before", h["m0"], "--format", fmt)
        )
        assert rc == 2
        assert "Traceback" not in err
        assert "trust.invalid" in err and "line 2: " in err and why in err
        if fmt == "json":
            (line,) = out.splitlines()
            assert json.loads(line)["error"]["code"] == "trust.invalid"


def test_a_signature_with_no_private_key_cannot_pass_with_the_identity_key(
    signed_history: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The attack itself: R = identity, S = 0 over the Curator's statement, the identity key trusted."""
    h = signed_history
    spki = _ED25519_SPKI + IDENTITY
    (h["dir"] / "weak-signers").write_bytes(_trust_line_of(spki))
    envelope = json.loads((h["bundle"].parent / "bundle.json.intoto.json").read_bytes())
    envelope["signatures"] = [{"keyid": sha256_digest(spki), "sig": b64encode(IDENTITY + bytes(32))}]
    (h["bundle"].parent / "bundle.json.intoto.json").write_bytes(canon(envelope))
    rc, out, err = run_main(capsys, *_replay(h, "--trust", h["dir"] / "weak-signers", "--memory-before", h["m0"]))
    assert rc == 2 and out == ""
    assert "trust.invalid" in err


# -- keygen ----------------------------------------------------------------------------------------


def test_keygen_whose_reader_went_away_fails_loudly_and_keeps_no_key(tmp_path: Path) -> None:
    key = tmp_path / "curator.key"
    reader_gone = subprocess.Popen(["true"], stdin=subprocess.PIPE)
    reader_gone.wait()
    proc = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "keygen", "--out", str(key)],
        stdout=reader_gone.stdin,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert reader_gone.stdin is not None
    reader_gone.stdin.close()
    assert proc.returncode == 2
    assert "usage.unwritable" in proc.stderr and "the reader went away" in proc.stderr
    assert not key.exists()


def test_keygen_refuses_a_name_the_trust_file_would_refuse_or_change(tmp_path: Path, capsys) -> None:
    for name, why in [("x" * 201, "more than 200"), ("two  spaces", "one space between words"), (" lead", "none")]:
        rc, out, err = run_main(capsys, "keygen", "--out", tmp_path / "k", "--name", name)
        assert rc == 2 and out == "" and why in err, err
        assert not (tmp_path / "k").exists()
    rc, out, _ = run_main(capsys, "keygen", "--out", tmp_path / "k", "--name", "x" * 200)
    assert rc == 0
    trust = tmp_path / "trusted-signers"
    trust.write_text(out)
    # The line keygen printed is one every later command reads: it verifies a signature by that key.
    assert main(["sign", str(EXAMPLE), "--key", str(tmp_path / "k"), "--out", str(tmp_path / "sig.json")]) == 0
    capsys.readouterr()
    rc, out, _ = run_main(
        capsys, "score", EXAMPLE, "--trust", trust, "--signature", tmp_path / "sig.json", "--out-dir", tmp_path / "o"
    )
    assert rc == 0, out


@pytest.mark.parametrize("fmt", ["json", "console"])
def test_a_logged_file_name_forges_no_command_in_either_log_format(fmt: str, tmp_path: Path) -> None:
    named = tmp_path / "##[add-mask]secret.json"
    named.write_bytes(EXAMPLE.read_bytes())
    proc = _sh("-vv", "--log-format", fmt, "score", named, "--out-dir", tmp_path / "out", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "add-mask]secret" in proc.stderr  # logged, escaped
    _no_command_but_ours(proc.stdout + proc.stderr)


def test_a_base_edited_by_hand_at_the_same_version_names_the_instruction_that_differs(
    signed_history: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    h = signed_history
    base = json.loads(h["m0"].read_bytes())
    base["instructions"][0]["text"] = "Edited by hand on the base branch."
    key = base["instructions"][0]["key"]
    edited = tmp_path / "base.json"
    edited.write_text(json.dumps(base))

    rc, out, _ = run_main(capsys, *_replay(h, "--trust", h["trust"], "--memory-before", edited))

    assert rc == 1
    m0, m1 = sha256_digest(canon(json.loads(h["m0"].read_bytes()))), sha256_digest(canon(base))
    assert out.splitlines()[0] == (
        f"base_mismatch    the bundle was curated against memory version 7 ({m0}), and the base is version 7 too, "
        f"but not the same memory ({m1}): instruction {key!r} differs in text; curate a new bundle against the base"
    )
