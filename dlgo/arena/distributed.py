"""Games on a Ray cluster: the same games as local workers, on many machines.

``--ray [auto|ADDRESS|local]`` on ``dlgo tournament``, ``dlgo generate``,
``dlgo train-alphazero`` and ``dlgo train-rl`` sends the games (or the
self-play batches) to Ray tasks instead of local worker processes. Nothing
else changes:

* **the same games**: each game keeps its id and seed, so a seeded run gives
  the same ``games.csv`` rows (order aside) on Ray as locally;
* **one writer**: only this process (the driver) writes results, each game
  appended and synced as its task returns, under the run folder's lock; a
  killed driver resumes like a local run;
* **no game lost or doubled**: a task whose worker or node dies is run again
  by Ray on another worker (``max_retries``), and the driver keeps the one
  result that comes back.

Every node needs the suite at the same path (a shared home directory does it)
so that the engines' network files are found. ``auto`` joins the cluster that
``ray start`` runs on this machine (or ``RAY_ADDRESS``); ``HOST:PORT`` joins
another; ``local`` starts a private one for this run.
"""
from __future__ import annotations

import logging
import math
import socket
from typing import Any, Callable, Iterable, Sequence, TypeVar

import ray

from dlgo.core.errors import DlgoError

log = logging.getLogger(__name__)

#: times Ray runs a task again after its worker or node died
MAX_RETRIES = 5
T = TypeVar("T")
R = TypeVar("R")


def connect(address: str) -> None:
    """Join (or, for ``local``, start) the Ray cluster at ``address``, once per process;
    a :class:`DlgoError` saying how to start one if none answers."""
    if ray.is_initialized():
        return
    host, _, port = address.rpartition(":")
    if host and port.isdigit() and "://" not in address:  # Ray itself would keep trying for minutes
        try:
            socket.create_connection((host, int(port)), timeout=5).close()
        except OSError as err:
            raise DlgoError(f"no Ray cluster answers at {address} ({err.strerror or err}); start one with "
                            "`ray start --head` (and `ray start --address=HEAD:6379` on the other machines), "
                            "or use --ray local") from None
    try:
        if address == "local":
            ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    except (ConnectionError, RuntimeError, ValueError) as err:
        raise DlgoError(f"no Ray cluster answers at {address} ({str(err).splitlines()[0]}); start one with "
                        "`ray start --head` (and `ray start --address=HEAD:6379` on the other machines), "
                        "or use --ray local") from None
    log.info("Ray cluster: %s", ray.cluster_resources())


def cluster_cpus() -> int:
    """The CPUs of the joined cluster (at least 1)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def chunks(items: Sequence[T], pieces: int, most: int | None = None) -> list[list[T]]:
    """``items`` cut into about ``pieces`` runs of consecutive items, none longer than ``most``."""
    size = max(1, math.ceil(len(items) / max(1, pieces)))
    if most:
        size = min(size, most)
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


def play_task(function: Callable[..., Any], argument: Any) -> Any:
    """One Ray task: ``function(argument)`` (the name Ray shows for it: ``ray::play_task``)."""
    return function(argument)


_remote_task = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(play_task)


def run_tasks(function: Callable[[T], R], arguments: Iterable[T], finished: Callable[[R], None]) -> None:
    """Run ``function(argument)`` for each argument as Ray tasks, handing each result
    to ``finished`` (in this process) as it comes back. A task's own error is raised
    here (a :class:`DlgoError` as itself); on any error or Ctrl-C the tasks still
    running are cancelled."""
    pending = [_remote_task.remote(function, argument) for argument in arguments]
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            try:
                result = ray.get(ready[0])
            except ray.exceptions.RayTaskError as err:
                cause = err.cause if isinstance(getattr(err, "cause", None), BaseException) else None
                if isinstance(cause, DlgoError):
                    raise cause from None
                raise
            finished(result)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
