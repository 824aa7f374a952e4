"""``musical stats --scheduler``: the deals run on a Dask cluster (``dask.distributed``).

An optional extra (``pip install 'musical-cli[cluster]'``): nothing else in musical imports this
module or Dask. The cluster is reached through the ``concurrent.futures`` interface that a
``distributed.Client`` offers (``client.get_executor()``), the same seam the local process pool
sits behind, so :func:`musical_cli.stats.run_stats` drives both the same way. Dask itself
recomputes on another worker the tasks of a worker that was lost; run_stats submits again a deal
whose task failed all the same (``pure=False`` gives the new task a key of its own).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from typing import Any, TypeVar

from . import __version__
from .i18n import _

CONNECT_TIMEOUT = "10s"
ClientT = TypeVar("ClientT")  # Dask's Client, which this module imports only when it is used


class ClusterError(Exception):
    """The cluster cannot be used, and why (exit status 2)."""


def _worker_version() -> str:
    """Run on each worker: the musical it has."""
    from musical_cli import __version__ as version

    return version


def _connect(client_class: Callable[..., ClientT], address: str) -> ClientT:
    """A client of the scheduler at ``address``. Dask's own timeout covers a port where nothing
    listens, but not one where something else answers (the scheduler's dashboard port, 8787,
    for one): there the handshake waits for ever. So the client is made in a thread of its own,
    given the same time, and left behind if it has not connected by then."""
    box: dict[str, Any] = {}

    def connect() -> None:
        try:
            box["client"] = client_class(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except Exception as e:  # noqa: BLE001 - said in one line below
            box["error"] = e

    thread = threading.Thread(target=connect, name="musical-dask-connect", daemon=True)
    thread.start()
    thread.join(_seconds(CONNECT_TIMEOUT) + 2)
    if "client" in box:
        client: ClientT = box["client"]
        return client
    if thread.is_alive():
        # TRANSLATORS: {address} is the scheduler's, tcp://HOST:PORT; {timeout} is Dask's time, "10s"
        raise ClusterError(_("no answer from a Dask scheduler at {address} within {timeout}: "
                             "is that the scheduler's address (tcp://HOST:8786 by default)?").format(
            address=address, timeout=CONNECT_TIMEOUT))
    # TRANSLATORS: {error} is Dask's, in English
    raise ClusterError(_("cannot reach a Dask scheduler at {address}: {error}").format(
        address=address, error=box.get("error")))


def _seconds(text: str) -> float:
    return float(text.rstrip("s"))


@contextlib.contextmanager
def cluster_executor(address: str) -> Iterator[tuple[Executor, int]]:
    """(an executor on the cluster at ``address``, its number of worker threads), closed after."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError(_("--scheduler needs Dask's distributed package: pip install 'musical-cli[cluster]'")) \
            from None
    client = _connect(Client, address)
    try:
        try:
            versions = client.run(_worker_version)
        except Exception as e:  # noqa: BLE001 - whatever a worker fails with, say it in one line
            # TRANSLATORS: {kind} is the Python exception's name, {error} its message, in English
            raise ClusterError(_("the Dask workers at {address} cannot run musical ({kind}: {error}); "
                                 "install musical-cli on every worker").format(
                address=address, kind=type(e).__name__, error=e)) from None
        if not versions:
            raise ClusterError(_("the Dask scheduler at {address} has no workers").format(address=address))
        other = sorted({v for v in versions.values() if v != __version__})
        if other:
            # TRANSLATORS: {theirs} and {ours} are versions of musical: "0.9.0"
            raise ClusterError(_("the Dask workers at {address} run musical {theirs}, this is "
                                 "musical {ours}: install the same version everywhere").format(
                address=address, theirs=", ".join(other), ours=__version__))

        threads = sum(client.nthreads().values()) or len(versions)
        executor = client.get_executor(pure=False)
        yield executor, threads
        executor.shutdown(wait=False)  # cancels what is left (after Ctrl-C)
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=5)
