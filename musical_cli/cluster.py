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
        raise ClusterError(f"no answer from a Dask scheduler at {address} within {CONNECT_TIMEOUT}: "
                           "is that the scheduler's address (tcp://HOST:8786 by default)?")
    raise ClusterError(f"cannot reach a Dask scheduler at {address}: {box.get('error')}")


def _seconds(text: str) -> float:
    return float(text.rstrip("s"))


@contextlib.contextmanager
def cluster_executor(address: str) -> Iterator[tuple[Executor, int]]:
    """(an executor on the cluster at ``address``, its number of worker threads), closed after."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--scheduler needs Dask's distributed package: pip install 'musical-cli[cluster]'") \
            from None
    client = _connect(Client, address)
    try:
        try:
            versions = client.run(_worker_version)
        except Exception as e:  # noqa: BLE001 - whatever a worker fails with, say it in one line
            raise ClusterError(f"the Dask workers at {address} cannot run musical ({type(e).__name__}: {e}); "
                               "install musical-cli on every worker") from None
        if not versions:
            raise ClusterError(f"the Dask scheduler at {address} has no workers")
        other = sorted({v for v in versions.values() if v != __version__})
        if other:
            raise ClusterError(f"the Dask workers at {address} run musical {', '.join(other)}, this is "
                               f"musical {__version__}: install the same version everywhere")
        threads = sum(client.nthreads().values()) or len(versions)
        executor = client.get_executor(pure=False)
        yield executor, threads
        executor.shutdown(wait=False)  # cancels what is left (after Ctrl-C)
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=5)
