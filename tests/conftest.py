"""What every test shares.

Collection: ``tests/bots/`` holds bots of users' own for the arena's tests (one of them does
not even import, on purpose): they are played from their files, never collected.

Each test's bot processes end with it, the idle ones too: tests that count the processes
alive (none left behind) must not see another test's, whichever file ran before them in
their worker."""
from __future__ import annotations

import sys
from typing import Iterator

import pytest

collect_ignore_glob = ["bots/*"]


@pytest.fixture(autouse=True)
def no_bot_processes_left() -> Iterator[None]:
    yield
    bots = sys.modules.get("engines.bots")  # loaded by a test that played a bot of a user's own
    if bots is not None:
        bots.stop_all()
