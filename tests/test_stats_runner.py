"""run_stats behind the executor seam: a bounded number of deals in flight, a deal whose
worker was lost submitted again and counted once, a local pool whose worker was killed replaced."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

from musical_cli.deals import parse_deal_range
from musical_cli.games.musical.rules import MUSICAL, MusicalRules
from musical_cli.stats import run_stats

# Each deal's node limit: far more than these deals take (3,300 nodes at most), and the same
# results on every machine.
NODES = 200_000


class Watched(ThreadPoolExecutor):
    """An executor that notes how many futures are out at once, and fails the first try of some
    deals as a lost worker would."""

    def __init__(self, fail: set[str] = frozenset()):
        super().__init__(max_workers=2)
        self.lock = threading.Lock()
        # Futures not finished when a new one is submitted. Counted by done(), not by done
        # callbacks: a waiter wakes when a future finishes, before its callbacks have run, so a
        # count kept by callbacks can lag by one (seen in CI: 6 out with a bound of 5).
        self.live: list[Future] = []
        self.most = 0
        self.submitted: list[str] = []
        self.fail = set(fail)

    def submit(self, fn, deal, *args):
        with self.lock:
            self.live = [f for f in self.live if not f.done()]
            self.most = max(self.most, len(self.live) + 1)
            self.submitted.append(deal.text)
        if deal.text in self.fail:
            self.fail.discard(deal.text)
            future: Future = Future()
            future.set_exception(ConnectionError("worker lost"))
        else:
            future = super().submit(fn, deal, *args)
        with self.lock:
            self.live.append(future)
        return future


def test_a_bounded_number_of_deals_in_flight():
    deals = parse_deal_range("1-300")
    with Watched() as executor:
        rep = run_stats(deals, MusicalRules(0), game=MUSICAL, budget=None, nodes=NODES, executor=executor, in_flight=5)
    assert rep.deals == 300 and not rep.interrupted
    assert executor.most <= 5
    assert sorted(executor.submitted, key=int) == [d.text for d in deals]  # each submitted once


def test_a_failed_deal_is_submitted_again_and_counted_once():
    deals = parse_deal_range("1-30")
    seen = []
    with Watched(fail={"3", "17", "30"}) as executor:
        rep = run_stats(deals, MusicalRules(0), game=MUSICAL, budget=None, nodes=NODES, executor=executor, in_flight=4, on_result=seen.append)
    assert sorted(r.deal for r in seen) == sorted(d.text for d in deals)
    assert [r.deal for r in rep.results] == [d.text for d in deals]
    assert sorted(executor.submitted, key=int).count("17") == 2


def test_a_local_worker_killed_mid_run_loses_no_deal():
    """SIGKILL to one worker of the local pool (as the out-of-memory killer would) breaks the
    pool: a new one takes over, the deals the old one held are done again, none counted twice."""
    deals = parse_deal_range("1-40")
    seen = []
    killed = []

    def on_result(result) -> None:
        seen.append(result.deal)
        if len(seen) == 3 and not killed:
            victim = multiprocessing.active_children()[0].pid
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    rep = run_stats(deals, MusicalRules(2), game=MUSICAL, workers=2, budget=None, nodes=NODES, on_result=on_result)
    assert killed
    assert not rep.interrupted
    assert sorted(seen, key=int) == [d.text for d in deals]
    assert rep.won == 40
    # No worker is left behind: any child still winding down must be gone within a moment.
    deadline = time.monotonic() + 3
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not multiprocessing.active_children()
