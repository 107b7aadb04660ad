"""The redaction rule (docs/transcripts.md, "Redaction"): each kind of secret planted in a command
is gone before anything is written, and what is not a secret is left as it is."""

from __future__ import annotations

import pytest

from curator_io.transcripts.reader import read_transcript
from curator_io.transcripts.redaction import REDACTED, redact
from tests.curator_io.transcript_records import bash_session

PLANTED = [
    (
        "a private key",
        "printf '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----' > k",
        "b3BlbnNzaC1rZXk",
        f"printf '{REDACTED}' > k",
    ),
    ("a private key cut short", "echo '-----BEGIN RSA PRIVATE KEY-----\nMIIEow", "MIIEow", f"echo '{REDACTED}"),
    (
        "credentials in a URL",
        "git clone https://deploy:hunter2@git.example.com/acme/api",
        "hunter2",
        f"git clone https://{REDACTED}@git.example.com/acme/api",
    ),
    (
        "an Authorization header",
        'curl -H "Authorization: token abc123def456" https://api.example.com',
        "abc123def456",
        f'curl -H "Authorization: {REDACTED}" https://api.example.com',
    ),
    (
        "a bearer token",
        "http GET api.example.com Bearer:x bearer abcdefgh12345678",
        "abcdefgh12345678",
        f"http GET api.example.com Bearer:x bearer {REDACTED}",
    ),
    (
        "a variable named for a token",
        "GITHUB_TOKEN=0123456789abcdef gh pr create",
        "0123456789abcdef",
        f"GITHUB_TOKEN={REDACTED} gh pr create",
    ),
    (
        "an exported secret, quoted",
        'export AWS_SECRET_ACCESS_KEY="wJalr XUtnF" && aws s3 ls',
        "wJalr",
        f"export AWS_SECRET_ACCESS_KEY={REDACTED} && aws s3 ls",
    ),
    (
        "a password in the environment of a container",
        "docker run -e DB_PASSWORD=s3cr3t postgres",
        "s3cr3t",
        f"docker run -e DB_PASSWORD={REDACTED} postgres",
    ),
    (
        "a YAML-style key",
        "echo api_key: zzz-top-1 >> config.yml",
        "zzz-top-1",
        f"echo api_key: {REDACTED} >> config.yml",
    ),
    ("a --password option", "psql --password=hunter2 -h db", "hunter2", f"psql --password={REDACTED} -h db"),
    (
        "a --token option with a space",
        "npm publish --auth-token abc.def",
        "abc.def",
        f"npm publish --auth-token {REDACTED}",
    ),
    ("a password glued to -p", "mysql -u root -phunter2 shop", "hunter2", f"mysql -u root -p{REDACTED} shop"),
    ("a GitHub token", "echo ghp_Zq3vX8mK2pL9wR4tY7uJ1nB5cD6eF0gH2iK4", "ghp_", f"echo {REDACTED}"),
    (
        "a fine-grained GitHub token",
        "echo github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "github_pat_",
        f"echo {REDACTED}",
    ),
    ("a GitLab token", "echo glpat-abcdefghij0123456789", "glpat-", f"echo {REDACTED}"),
    ("a Slack token", "echo xoxb-1234567890-abcdefghij", "xoxb-", f"echo {REDACTED}"),
    ("an Anthropic key", "echo sk-ant-api03-abcdefghijklmnopqrstuvwx", "sk-ant", f"echo {REDACTED}"),
    (
        "an AWS access key id",
        "aws configure set id AKIAIOSFODNN7EXAMPLE",
        "AKIAIOSFODNN7EXAMPLE",
        f"aws configure set id {REDACTED}",
    ),
    ("a Google API key", "echo AIzaSyA-1234567890abcdefghijklmnopqrstu", "AIzaSy", f"echo {REDACTED}"),
    ("an npm token", "echo npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_", f"echo {REDACTED}"),
    (
        "a PyPI token",
        "twine upload -u __token__ pypi-AgEIcHlwaS5vcmcCJDQ",
        "pypi-Ag",
        f"twine upload -u __token__ {REDACTED}",
    ),
    ("a JSON Web Token", "echo eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "eyJ", f"echo {REDACTED}"),
]


@pytest.mark.parametrize(("kind", "command", "secret", "written"), PLANTED, ids=[p[0] for p in PLANTED])
def test_each_kind_of_secret_planted_in_a_command_is_redacted_before_anything_is_written(
    kind: str, command: str, secret: str, written: str
) -> None:
    assert redact(command) == written
    transcript = read_transcript([bash_session(command)], source="s")
    (step,) = transcript.sessions[0].steps
    assert step.command == written
    assert all(secret not in o.summary for o in transcript.sessions[0].observations)


@pytest.mark.parametrize(
    "command",
    [
        "make test",
        "pytest -p no:randomly -q",
        "echo $GITHUB_TOKEN",
        "gh auth status",
        "grep -r KEY= .",
        "ruff check --fix src",
        "git push origin HEAD:main",
        "python -c 'print(1)'",
    ],
)
def test_a_command_with_no_secret_is_written_as_it_is(command: str) -> None:
    assert redact(command) == command


def test_a_secret_in_a_branch_a_tool_name_a_path_or_an_event_never_reaches_the_bundle() -> None:
    from curator_io import BundleBuilder
    from tests.curator_io.transcript_records import call, jsonl, record, result

    token = "ghp_Zq3vX8mK2pL9wR4tY7uJ1nB5cD6eF0gH2iK4"
    raw = jsonl(
        {**record("assistant", 1, call("t1", f"mcp__{token}", {"file_path": f"src/{token}.txt"})), "gitBranch": token},
        record("user", 2, result("t1", "ok")),
        record("system", 3, {"subtype": token}),
    )
    log = read_transcript([raw], source="s")
    b = BundleBuilder(memory_version=0, curator="c", frozen_at="2026-12-02T09:00:00Z")
    b.transcript(log, repository="acme/shop")
    written = b.build("run-1").canonical.decode()
    assert token not in written and written.count(REDACTED) >= 4
