"""``musical stats --scheduler``: the deals on a real Dask cluster.

A ``distributed.LocalCluster`` of two worker processes: the per-deal results equal the local
pool's, a worker killed in the middle of a run loses no deal and counts none twice, and the
command line works end to end. These need the ``cluster`` extra (``pip install '.[test,cluster]'``,
as the README and CI do); without it they are skipped, except under CI, where that is a failure.
"""

from __future__ import annotations

import json
import os
import signal

import pytest

if os.environ.get("CI"):
    import distributed  # CI installs the extra: a missing one must fail, not skip
else:
    distributed = pytest.importorskip("distributed")

from musical_cli.cli import main  # noqa: E402
from musical_cli.deals import DealNumber, parse_deal_range  # noqa: E402
from musical_cli.games.musical.rules import MUSICAL, MusicalRules  # noqa: E402
from musical_cli.stats import run_stats  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster:
        yield cluster


@pytest.fixture
def client(cluster):
    with distributed.Client(cluster, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=60)
        yield client


def same(report) -> list[tuple]:
    return [(r.deal, r.result, r.nodes, r.moves, r.greedy_won) for r in report.results]


@pytest.mark.slow
def test_cluster_results_equal_the_local_pool(client):
    deals = parse_deal_range("1-24") + [DealNumber(5, ms=True)]
    rules = MusicalRules(2)
    seen = []
    executor = client.get_executor(pure=False)
    # a node limit (far more than these deals take), so that both runs give the same results
    on_cluster = run_stats(deals, rules, game=MUSICAL, budget=None, nodes=200_000, executor=executor, in_flight=4,
                           on_result=seen.append)
    local = run_stats(deals, rules, game=MUSICAL, workers=2, budget=None, nodes=200_000)
    assert not on_cluster.interrupted and on_cluster.deals == len(deals)
    assert same(on_cluster) == same(local)  # deterministic: the same verdicts, lines and node counts
    assert sorted(r.deal for r in seen) == sorted(d.text for d in deals)


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_deal(client):
    """One redeal: deals of a second or more each, so both workers are busy when one is killed
    (SIGKILL, as the out-of-memory killer would); its deals run again elsewhere, each counted once."""
    deals = parse_deal_range("1-8")
    pids = client.run(os.getpid)
    killed = []
    seen = []

    def on_result(result) -> None:
        seen.append(result.deal)
        if not killed:
            victim = sorted(pids.values())[0]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    # seconds, not nodes: each deal lasts until the kill on any machine; no result is asserted
    report = run_stats(deals, MusicalRules(1), game=MUSICAL, budget=2, executor=client.get_executor(pure=False),
                       in_flight=4, on_result=on_result)
    assert killed
    assert not report.interrupted
    assert sorted(seen) == sorted(d.text for d in deals)  # every deal once: none lost, none twice
    assert [r.deal for r in report.results] == [d.text for d in deals]
    client.wait_for_workers(2, timeout=60)  # the nanny restarts the worker for the next test


@pytest.mark.slow
def test_the_command_line_on_a_cluster(cluster, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    status = main(["stats", "1-8", "--scheduler", cluster.scheduler_address, "--out", str(out), "--json",
                   "--nodes", "200000"])
    text, err = capsys.readouterr()
    assert status == 0, err
    assert json.loads(text)["deals"] == 8 == json.loads(text)["won"]
    assert sorted(json.loads(t)["seed"] for t in out.read_text().splitlines()) == list(range(1, 9))
    # The same file, resumed on this machine: nothing left to do.
    status = main(["stats", "1-8", "--workers", "1", "--out", str(out), "--json", "--nodes", "200000"])
    assert status == 0 and json.loads(capsys.readouterr()[0])["deals"] == 8
    status = main(["stats", "1-8", "--scheduler", cluster.scheduler_address, "--workers", "2"])
    assert status == 2 and "--workers is for this machine" in capsys.readouterr()[1]


def test_no_scheduler_there(capsys, monkeypatch):
    import musical_cli.cluster

    monkeypatch.setattr(musical_cli.cluster, "CONNECT_TIMEOUT", "1s")
    status = main(["stats", "1", "--scheduler", "tcp://127.0.0.1:9"])
    err = capsys.readouterr()[1]
    assert status == 2 and "cannot reach a Dask scheduler at tcp://127.0.0.1:9" in err


@pytest.mark.slow  # it waits on a socket that answers nothing
def test_something_else_at_that_address(capsys, monkeypatch):
    """A port where something answers that is no scheduler (the dashboard's, say): Dask's
    handshake would wait for ever; the command gives up after its timeout."""
    import socket

    import musical_cli.cluster

    monkeypatch.setattr(musical_cli.cluster, "CONNECT_TIMEOUT", "1s")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        status = main(["stats", "1", "--scheduler", f"tcp://127.0.0.1:{server.getsockname()[1]}"])
    err = capsys.readouterr()[1]
    assert status == 2 and "no answer from a Dask scheduler" in err
