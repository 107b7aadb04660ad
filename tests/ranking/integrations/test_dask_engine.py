"""``evidence-rank batch --engine dask``: the same bytes as the local engine, on a LocalCluster of 2 processes."""

from __future__ import annotations

import itertools
import logging
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from dask.distributed import Client, LocalCluster
from distributed.diagnostics.plugin import WorkerPlugin

from ranking.cli import main
from ranking.integrations.dask_engine import DaskEngine
from tests.conftest import FIXTURES
from tests.ranking.running.batch_support import read_summary, tree_bytes, write_mixed_batch


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.CRITICAL
    ) as local:
        yield local


class KillOnce(WorkerPlugin):
    """Kill the worker process as it starts its third task, if the flag file is still there (once per cluster)."""

    def __init__(self, flag: str) -> None:
        self.flag = flag
        self.started = 0

    def transition(self, key, start, finish, **kwargs) -> None:
        if finish != "executing":
            return
        self.started += 1
        if self.started < 3:
            return
        try:
            os.remove(self.flag)  # whichever worker removes it dies; the other never sees it
        except FileNotFoundError:
            return
        os._exit(1)


def test_the_dask_engine_writes_the_same_bytes_as_the_local_engine(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    paths = write_mixed_batch(tmp_path)

    assert main(["batch", *paths, "--out-dir", "local"]) == 3
    local_table = capsys.readouterr().out
    assert main(["batch", *paths, "--out-dir", "dask", "--engine", "dask", "--workers", "2"]) == 3
    dask_table = capsys.readouterr().out

    assert tree_bytes(tmp_path / "dask") == tree_bytes(tmp_path / "local")
    assert dask_table == local_table
    errors = [e["error"]["code"] for e in read_summary(tmp_path / "dask")["bundles"] if e["error"]]
    assert errors == ["input.malformed_json", "input.frozen_digest_mismatch", "input.malformed_json"]


def test_a_worker_killed_mid_batch_neither_loses_nor_duplicates_a_bundle(tmp_path, monkeypatch, cluster) -> None:
    monkeypatch.chdir(tmp_path)
    paths = write_mixed_batch(tmp_path)
    flag = tmp_path / "kill-one-worker"
    flag.touch()
    with Client(cluster) as watcher:
        watcher.register_plugin(KillOnce(str(flag)), name="kill-once")

        rc = main(["batch", *paths, "--out-dir", "dask", "--engine", "dask", "--scheduler", cluster.scheduler_address])

    assert rc == 3
    assert not flag.exists(), "no worker was killed: the test proved nothing"
    assert main(["batch", *paths, "--out-dir", "local"]) == 3
    entries = read_summary(tmp_path / "dask")["bundles"]
    assert [e["index"] for e in entries] == list(range(1, 12))
    assert len({(e["source"]["file"], e["source"]["line"]) for e in entries}) == 11
    assert tree_bytes(tmp_path / "dask") == tree_bytes(tmp_path / "local")


def test_an_unreachable_scheduler_is_a_usage_error_after_the_timeout(tmp_path, capsys) -> None:
    shutil.copy(FIXTURES / "example.json", tmp_path / "example.json")
    address = "tcp://127.0.0.1:9"  # discard port: nothing listens there

    rc = main(
        [
            "batch",
            str(tmp_path / "example.json"),
            "--out-dir",
            str(tmp_path / "out"),
            "--engine",
            "dask",
            "--scheduler",
            address,
            "--connect-timeout",
            "1",
        ]
    )

    assert rc == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"evidence-rank: usage.scheduler_unreachable: cannot reach the Dask scheduler '{address}' within 1 s: "
    )
    assert not (tmp_path / "out" / "summary.json").exists()
    assert not (tmp_path / "out" / "reports").exists()


def test_a_scheduler_address_that_is_not_one_is_a_usage_error(tmp_path, capsys) -> None:
    shutil.copy(FIXTURES / "example.json", tmp_path / "example.json")

    rc = main(
        [
            "batch",
            str(tmp_path / "example.json"),
            "--out-dir",
            str(tmp_path / "out"),
            "--engine",
            "dask",
            "--scheduler",
            "http://example.org:8786",
        ]
    )

    assert rc == 2
    assert capsys.readouterr().err == (
        "evidence-rank: usage.scheduler_unreachable: 'http://example.org:8786' is not a Dask scheduler address "
        "(expected e.g. tcp://HOST:8786)\n"
    )


def test_workers_with_a_scheduler_is_a_usage_error(tmp_path, capsys) -> None:
    rc = main(
        [
            "batch",
            str(FIXTURES / "example.json"),
            "--out-dir",
            str(tmp_path / "out"),
            "--engine",
            "dask",
            "--scheduler",
            "tcp://127.0.0.1:8786",
            "--workers",
            "4",
        ]
    )

    assert rc == 2
    assert "usage.invalid_option: --workers sizes a LocalCluster" in capsys.readouterr().err


def test_the_dask_engine_keeps_order_and_submits_a_bounded_window(cluster) -> None:
    pulled: list[int] = []

    def endless():
        for i in itertools.count(1):
            pulled.append(i)
            yield -i

    with Client(cluster, set_as_default=False) as client:
        engine = DaskEngine(client, window=4)
        results = engine.map(abs, endless())
        first = list(itertools.islice(results, 10))
        results.close()

    assert first == list(range(1, 11))
    assert len(pulled) <= 10 + engine.window


def test_an_input_error_is_a_result_not_a_task_failure(tmp_path, cluster) -> None:
    (tmp_path / "bad.json").write_bytes(b"[")

    rc = main(
        [
            "batch",
            str(tmp_path / "bad.json"),
            "--out-dir",
            str(tmp_path / "out"),
            "--engine",
            "dask",
            "--scheduler",
            cluster.scheduler_address,
        ]
    )

    assert rc == 3
    (entry,) = read_summary(tmp_path / "out")["bundles"]
    assert (entry["outcome"], entry["error"]["code"]) == ("error", "input.malformed_json")


def test_a_scheduler_address_where_another_service_answers_is_one_line_and_nothing_after(tmp_path) -> None:
    # An HTTP server where the scheduler should be: Dask decodes its reply as a message and fails;
    # the half-built client it leaves is closed then, not by its __del__ printing a traceback later.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"

    def answer() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello" * 64)

    threading.Thread(target=answer, daemon=True).start()
    shutil.copy(FIXTURES / "example.json", tmp_path / "example.json")
    argv = ["batch", str(tmp_path / "example.json"), "--out-dir", str(tmp_path / "out"), "--engine", "dask"]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ranking.cli", *argv, "--scheduler", address, "--connect-timeout", "2"],
            capture_output=True,
            timeout=120,
            check=False,
        )
    finally:
        server.close()

    assert done.returncode == 2
    (line,) = done.stderr.decode().splitlines()
    assert line.startswith(f"evidence-rank: usage.scheduler_unreachable: '{address}' answers, but not as a Dask")


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("tcp://127.0.0.1", "missing port number in address '127.0.0.1'"),
        ("tcp://127.0.0.1:abc", "invalid literal for int() with base 10: 'abc'"),
        ("inproc://foo", "don't know how to extract host and port for address 'inproc://foo'"),
        ("tls://127.0.0.1:8786", "tls:// needs Dask's TLS settings (distributed.comm.tls), and none are set"),
    ],
    ids=["no port", "a port that is no number", "this process only", "tls without its settings"],
)
def test_an_address_no_client_can_use_is_said_to_be_no_address_before_a_client_is_made(
    address: str, why: str, tmp_path
) -> None:
    # Nothing answers at these: the Client failed while being built, and the error read "answers,
    # but not as a Dask scheduler (ValueError: missing port number ...)".
    argv = ["batch", str(FIXTURES / "example.json"), "--out-dir", str(tmp_path / "out"), "--engine", "dask"]
    done = subprocess.run(
        [sys.executable, "-m", "ranking.cli", *argv, "--scheduler", address, "--connect-timeout", "1"],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"evidence-rank: usage.scheduler_unreachable: {address!r} is not a Dask scheduler address "
        f"(expected e.g. tcp://HOST:8786): {why}\n"
    )
