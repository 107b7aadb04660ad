"""Signed bundles and reports on the command line (issue 26): sign, keygen, and --trust on score, verify, gate.

The forged bundle is the issue's: the shipped example with an invented trace
and evidence item from a new lineage (task-204) added to the deferred
``p-sleep-flaky``, resealed. Scored and applied, it passes today's gate with
that proposal selected; a gate given the Curator's trust file refuses it.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from curator_io import canon, parse_json
from curator_io.sealing import seal_bundle
from ranking.signing.trust import parse_trust
from tests.conftest import FIXTURES, REPO, base_of, run_main
from tests.signing import key_pem, payload_of, signing_key, trust_file

CURATOR = signing_key("curator")
ATTACKER = signing_key("attacker")


def _forged() -> dict[str, Any]:
    doc = parse_json((FIXTURES / "example.json").read_bytes())
    doc["traces"].append(
        {"id": "tr-204-1", "lineage": "task-204", "materialization": "mat-api-a3f9c21", "steps": 10,
         "completeness": "complete", "verified_prefix": 10, "digest": "sha256:" + "0" * 64}
    )  # fmt: skip
    doc["evidence"].append(
        {"id": "ev-9", "trace": "tr-204-1", "step": 4, "signal": "deterministic", "observed_at": "2026-11-25T09:00:00Z",
         "path": "tests/test_orders.py", "summary": "the test passed after a sleep", "digest": "sha256:" + "0" * 64}
    )  # fmt: skip
    next(lesson for lesson in doc["lessons"] if lesson["id"] == "les-5")["evidence"].append("ev-9")
    next(p for p in doc["proposals"] if p["id"] == "p-sleep-flaky")["support"].append("ev-9")
    return seal_bundle(doc)


@pytest.fixture
def ci(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A checkout as the issue describes it: the Curator's signed bundle, the key and the trust file."""
    (tmp_path / "curator.key").write_bytes(key_pem("curator"))
    (tmp_path / "attacker.key").write_bytes(key_pem("attacker"))
    (tmp_path / "trusted-signers").write_bytes(trust_file((CURATOR, "Curator CI")))
    (tmp_path / "bundle.json").write_bytes((FIXTURES / "example.json").read_bytes())
    (tmp_path / "forged.json").write_bytes(canon(_forged()))
    assert run_main(capsys, "sign", tmp_path / "bundle.json", "--key", tmp_path / "curator.key")[0] == 0
    return tmp_path


def _score_and_apply(capsys: pytest.CaptureFixture[str], bundle: Path) -> tuple[Path, Path]:
    out = bundle.parent / (bundle.stem + "-out")
    assert run_main(capsys, "score", bundle, "--out-dir", out, "--quiet")[0] == 0
    memory = out / "memory.json"
    assert run_main(capsys, "apply", bundle, out / "report.json", "--out", memory)[0] == 0
    return out / "report.json", memory


def _gate(capsys: pytest.CaptureFixture[str], bundle: Path, *extra: str | Path) -> tuple[int, str, str]:
    report, memory = _score_and_apply(capsys, bundle)
    return run_main(
        capsys, "gate", "--bundle", bundle, "--report", report, "--memory-after", memory, *base_of(bundle), *extra
    )


# -- the forged-and-resealed example ---------------------------------------------------------------


def test_the_forged_example_passes_a_gate_without_trust_with_the_invented_proposal_selected(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, out, _ = _gate(capsys, ci / "forged.json", "--format", "json")
    report = json.loads((ci / "forged-out" / "report.json").read_bytes())

    assert rc == 0 and json.loads(out)["passed"] is True and json.loads(out)["signer"] is None
    assert "p-sleep-flaky" in report["selected"]
    assert next(p for p in report["proposals"] if p["id"] == "p-sleep-flaky")["score"]["final"] == 82


def test_with_trust_the_forged_example_is_refused_unsigned_and_the_genuine_one_passes_naming_its_signer(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, _, err = _gate(capsys, ci / "forged.json", "--trust", ci / "trusted-signers")
    assert rc == 4
    assert err.startswith(f"evidence-rank: {ci / 'forged.json'}: signature.unsigned: the bundle is not signed: ")
    assert f"the trust file '{ci / 'trusted-signers'}' requires one" in err

    rc, out, _ = _gate(capsys, ci / "bundle.json", "--trust", ci / "trusted-signers")
    assert rc == 0
    assert out.splitlines()[-2] == f"the bundle is signed by Curator CI ({CURATOR.public.keyid})"


def test_the_genuine_signature_beside_the_forged_bundle_is_a_subject_mismatch(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ci / "forged.json.intoto.json").write_bytes((ci / "bundle.json.intoto.json").read_bytes())

    rc, _, err = _gate(capsys, ci / "forged.json", "--trust", ci / "trusted-signers")

    assert rc == 4
    assert err.startswith(
        f"evidence-rank: {ci / 'forged.json.intoto.json'}: signature.subject_mismatch at '/payload': "
    )
    assert f"key Curator CI ({CURATOR.public.keyid})" in err and "not this bundle" in err


def test_the_forged_bundle_signed_with_the_forgers_own_key_names_the_unknown_key(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_main(capsys, "sign", ci / "forged.json", "--key", ci / "attacker.key")[0] == 0

    rc, _, err = _gate(capsys, ci / "forged.json", "--trust", ci / "trusted-signers")

    assert rc == 4
    assert f"signature.unknown_key at '/signatures/0/keyid': signed by key {ATTACKER.public.keyid}, which" in err


def test_score_with_trust_refuses_the_forged_bundle_and_records_why_in_error_json(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, out, _ = run_main(capsys, "score", ci / "forged.json", "--trust", ci / "trusted-signers", "--out-dir", ci / "o")

    assert rc == 4 and out == ""
    assert json.loads((ci / "o" / "error.json").read_bytes())["code"] == "signature.unsigned"
    assert not (ci / "o" / "report.json").exists() and not (ci / "o" / "validation.json").exists()


def test_a_report_of_the_forged_bundle_signed_by_the_curator_cannot_pass_a_gate_on_the_signed_bundle(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forged_report, memory = _score_and_apply(capsys, ci / "forged.json")
    assert run_main(capsys, "sign", forged_report, "--key", ci / "curator.key")[0] == 0
    argv = ("--report", forged_report, "--memory-after", memory, "--trust", ci / "trusted-signers")
    argv += base_of(ci / "bundle.json")

    rc, _, err = run_main(capsys, "gate", "--bundle", ci / "bundle.json", *argv)

    assert rc == 4 and "report.tampered" in err


# -- what the gate prints about the signer -----------------------------------------------------------


def test_the_gate_names_the_signer_in_json_and_github_outputs(
    ci: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    trust = ("--trust", ci / "trusted-signers")

    rc, out, _ = _gate(capsys, ci / "bundle.json", *trust, "--format", "json")
    assert rc == 0 and json.loads(out)["signer"] == {"keyid": CURATOR.public.keyid, "name": "Curator CI"}

    rc, out, _ = _gate(capsys, ci / "bundle.json", *trust, "--format", "github")
    line = f"the bundle is signed by Curator CI ({CURATOR.public.keyid})"
    assert rc == 0 and f"::notice title=evidence-rank gate::{line}" in out.splitlines()
    assert line in summary.read_text()


def test_a_trust_file_whose_key_id_is_not_its_keys_is_a_usage_error(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = f"{ATTACKER.public.keyid} {CURATOR.public.openssh} Curator CI\n"
    (ci / "trusted-signers").write_text(line)

    rc, _, err = _gate(capsys, ci / "bundle.json", "--trust", ci / "trusted-signers")

    assert rc == 2
    assert err.startswith(
        f"evidence-rank: {ci / 'trusted-signers'}: trust.invalid: line 1: the key id {ATTACKER.public.keyid}"
    )


# -- sign ------------------------------------------------------------------------------------


def test_a_reindented_bundle_keeps_its_signature_and_an_edited_one_loses_it(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    indented = ci / "indented.json"
    indented.write_text(json.dumps(json.loads((ci / "bundle.json").read_bytes()), indent=4))
    signature = ("--signature", ci / "bundle.json.intoto.json", "--trust", ci / "trusted-signers")

    assert run_main(capsys, "score", indented, *signature, "--out-dir", ci / "o", "--quiet")[0] == 0
    rc, _, err = run_main(capsys, "score", ci / "forged.json", *signature, "--out-dir", ci / "o", "--quiet")
    assert rc == 4 and "signature.subject_mismatch" in err


def test_sign_tells_a_bundle_from_a_report_and_a_report_signature_is_verified_alone(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, _ = _score_and_apply(capsys, ci / "bundle.json")

    rc, out, _ = run_main(capsys, "sign", report, "--key", ci / "curator.key", "--out", ci / "report.sig")
    digest = json.loads(report.read_bytes())["digest"]
    assert rc == 0 and out == f"{ci / 'report.sig'}: signed the report {digest} with key {CURATOR.public.keyid}\n"
    assert payload_of((ci / "report.sig").read_bytes())["predicateType"] == "https://evidence-rank.dev/report/v1"
    assert payload_of((ci / "bundle.json.intoto.json").read_bytes())["subject"][0]["name"] == "bundle.json"

    trust = ("--trust", ci / "trusted-signers")
    rc, out, _ = run_main(capsys, "verify", report, *trust, "--signature", ci / "report.sig")
    assert rc == 0 and f"the report is signed by Curator CI ({CURATOR.public.keyid})" in out
    rc, _, err = run_main(capsys, "verify", report, *trust)
    assert rc == 4 and "signature.unsigned" in err
    rc, out, _ = run_main(capsys, "verify", report, *trust, "--bundle", ci / "bundle.json")
    assert rc == 0 and "the bundle is signed by Curator CI" in out


def test_signing_the_same_document_twice_writes_the_same_bytes(ci: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = (ci / "bundle.json.intoto.json").read_bytes()
    assert run_main(capsys, "sign", ci / "bundle.json", "--key", ci / "curator.key")[0] == 0

    assert (ci / "bundle.json.intoto.json").read_bytes() == first == canon(json.loads(first))


@pytest.mark.parametrize(
    ("edit", "code", "rc"),
    [
        (lambda d: {**d, "schema": "evidence-validation-v1"}, "input.schema at '/schema'", 3),
        (lambda d: {**d, "proposals": d["proposals"][1:]}, "input.frozen_digest_mismatch", 3),
    ],
)
def test_sign_refuses_a_document_that_does_not_hold(
    ci: Path, capsys: pytest.CaptureFixture[str], edit: Any, code: str, rc: int
) -> None:
    (ci / "bad.json").write_bytes(canon(edit(json.loads((ci / "bundle.json").read_bytes()))))

    got, _, err = run_main(capsys, "sign", ci / "bad.json", "--key", ci / "curator.key")

    assert (got, code in err) == (rc, True)
    assert not (ci / "bad.json.intoto.json").exists()


def test_sign_refuses_a_tampered_report_and_a_file_that_is_no_key(ci: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report, _ = _score_and_apply(capsys, ci / "bundle.json")
    doc = json.loads(report.read_bytes())
    doc["selected"] = []
    report.write_bytes(canon(doc))

    assert run_main(capsys, "sign", report, "--key", ci / "curator.key")[0] == 4
    rc, _, err = run_main(capsys, "sign", ci / "bundle.json", "--key", ci / "trusted-signers")
    assert rc == 2 and f"{ci / 'trusted-signers'}: key.invalid: not a PEM or OpenSSH private key" in err


# -- keygen --------------------------------------------------------------------------------------


@pytest.mark.parametrize("key_type", ["ed25519", "p256"])
def test_keygen_writes_an_owner_only_key_whose_printed_line_trusts_what_it_signs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key_type: str
) -> None:
    key = tmp_path / "keys" / "curator.key"
    rc, out, _ = run_main(capsys, "keygen", "--out", key, "--type", key_type, "--name", "Curator CI")
    assert rc == 0 and stat.S_IMODE(os.stat(key).st_mode) == 0o600
    (tmp_path / "trust").write_text(out)
    assert parse_trust(out.encode(), "trust").keys[out.split()[0]][1] == "Curator CI"

    bundle = tmp_path / "bundle.json"
    bundle.write_bytes((FIXTURES / "example.json").read_bytes())
    assert run_main(capsys, "sign", bundle, "--key", key)[0] == 0
    rc, out, _ = run_main(
        capsys, "score", bundle, "--trust", tmp_path / "trust", "--out-dir", tmp_path / "o", "--summary"
    )
    assert rc == 0 and out.endswith(f"signed by Curator CI ({out.split('(')[-1]}")


def test_keygen_never_overwrites_a_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "curator.key"
    key.write_bytes(b"the key CI holds")

    rc, out, err = run_main(capsys, "keygen", "--out", key)

    assert (rc, out) == (2, "")
    assert "usage.unwritable" in err and "exists: it is not overwritten" in err
    assert key.read_bytes() == b"the key CI holds"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curator.key"]


def test_keygen_refuses_a_name_its_trust_file_gives_another_key_and_takes_a_new_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trust = tmp_path / "trusted-signers"
    trust.write_bytes(trust_file((signing_key("curator"), "Curator CI")))

    rc, out, err = run_main(capsys, "keygen", "--out", tmp_path / "new.key", "--name", "Curator CI", "--trust", trust)
    assert (rc, out) == (2, "")
    assert "usage.invalid_option" in err and "already names a key so" in err
    assert not (tmp_path / "new.key").exists()

    rc, out, _ = run_main(
        capsys, "keygen", "--out", tmp_path / "new.key", "--name", "Curator CI 2027", "--trust", trust
    )
    assert rc == 0 and out.rstrip().endswith(" Curator CI 2027")


def test_keygen_whose_trust_line_cannot_be_printed_leaves_no_key(tmp_path: Path) -> None:
    # Without its printed line nobody can trust the key, and a rerun would refuse to replace it.
    key = tmp_path / "curator.key"
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "ranking", "keygen", "--out", str(key)],
            cwd=REPO, stdout=full, stderr=subprocess.PIPE, text=True, check=False,
        )  # fmt: skip

    assert done.returncode == 2, done.stderr
    assert "usage.unwritable" in done.stderr and "standard output" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_signature_without_trust_is_a_usage_error(ci: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run_main(capsys, "score", ci / "bundle.json", "--signature", ci / "x", "--out-dir", ci / "o")

    assert rc == 2 and "usage.invalid_option" in err


def test_a_bundle_from_standard_input_needs_signature_with_trust(
    ci: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    stdin = io.TextIOWrapper(io.BytesIO((ci / "bundle.json").read_bytes()))
    monkeypatch.setattr("sys.stdin", stdin)
    trust = ("--trust", ci / "trusted-signers")

    rc, _, err = run_main(capsys, "score", "-", *trust, "--out-dir", ci / "o")
    assert rc == 2 and "needs --signature with --trust" in err
    stdin.seek(0)
    rc, out, _ = run_main(
        capsys, "score", "-", *trust, "--signature", ci / "bundle.json.intoto.json", "--out-dir", ci / "o"
    )
    assert rc == 0 and out.endswith(f"signed by Curator CI ({CURATOR.public.keyid})\n")


def _limited(argv: list[str], limit: int) -> subprocess.CompletedProcess[str]:
    """The command in a child whose files may not grow past ``limit`` bytes (a full disk, as the kernel says it)."""

    def cap() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG from write(), not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    script = f"import sys; from ranking.cli import main; sys.exit(main({argv!r}))"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, preexec_fn=cap, cwd=REPO)


def test_on_a_full_disk_keygen_and_sign_exit_2_and_leave_no_file(ci: Path) -> None:
    key = ci / "new.key"

    done = _limited(["keygen", "--out", str(key)], 50)
    assert done.returncode == 2 and "usage.unwritable" in done.stderr and "Traceback" not in done.stderr
    done = _limited(["sign", str(ci / "forged.json"), "--key", str(ci / "curator.key")], 100)
    assert done.returncode == 2 and "usage.unwritable" in done.stderr and "Traceback" not in done.stderr

    assert not key.exists() and not (ci / "forged.json.intoto.json").exists()
    assert not [p.name for p in ci.iterdir() if p.name.endswith(".tmp")]


def test_a_gate_trusts_both_keys_during_a_rotation_and_refuses_the_removed_one_after(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = signing_key("curator-2027")
    (ci / "during").write_bytes(trust_file((CURATOR, "Curator CI"), (new, "Curator CI 2027")))
    (ci / "after").write_bytes(trust_file((new, "Curator CI 2027")))

    rc, out, _ = _gate(capsys, ci / "bundle.json", "--trust", ci / "during")
    assert rc == 0 and f"signed by Curator CI ({CURATOR.public.keyid})" in out
    rc, _, err = _gate(capsys, ci / "bundle.json", "--trust", ci / "after")
    assert rc == 4
    assert f"signature.unknown_key at '/signatures/0/keyid': signed by key {CURATOR.public.keyid}, which" in err
    assert f"the trust file '{ci / 'after'}' does not list" in err
