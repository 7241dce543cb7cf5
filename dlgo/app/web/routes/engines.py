"""An engine's move and a hint: the session's engine process asked, and waited
for off the event loop up to its start's deadline and the time limit. An engine
that fails is a 502, one out of time a 504, no engine process free a 503, each
with the session, which goes on; a session closed while its engine thought, 410.
A bot of a user's own that fails on its move loses the game by forfeit (200, the
result saying why); one that fails on a hint says so in the message (200)."""
from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter
from pydantic import Field

from dlgo.app.web.routes.common import Store, Strict, error, find_session
from dlgo.app.web.safety import MAX_SPEC
from dlgo.app.web.sessions import GameSession
from dlgo.app.web.workers import EngineClosed, EngineFailure, EnginesBusy, EngineTimeout
from engines.bots import BotFault, is_bot

router = APIRouter()


class HintRequest(Strict):
    engine: str | None = Field(None, max_length=MAX_SPEC)


@router.post("/api/sessions/{session_id}/engine")
async def engine_move(session_id: str, store: Store) -> Any:
    return await think(await find_session(store, session_id), hint=False)


@router.post("/api/sessions/{session_id}/hint")
async def hint(session_id: str, store: Store, body: HintRequest | None = None) -> Any:
    return await think(await find_session(store, session_id), hint=True, spec=body.engine if body else None)


async def think(game: GameSession, hint: bool, spec: str | None = None) -> Any:
    """The session's engine move (or a hint from ``spec``), its view after; an error answer if the engine fails."""
    # a hint's engine is checked in a thread (it may copy networks, or describe a bot in its process)
    job = await asyncio.to_thread(game.start_hint, spec) if hint else game.start_engine_move()
    try:
        answer = await asyncio.to_thread(game.ask, job)
    except EngineClosed as err:
        game.finish(job, None, str(err))
        return error(410, str(err))
    except (EngineFailure, BotFault, EnginesBusy) as err:
        if not isinstance(err, EnginesBusy) and is_bot(job.spec):  # a bot's fault: it loses by forfeit (a hint: none)
            game.bot_failed(job, err)
            return game.view()
        game.finish(job, None, str(err))  # the message as the page shows it (no copy's folder in it)
        status = 503 if isinstance(err, EnginesBusy) else 504 if isinstance(err, EngineTimeout) else 502
        return error(status, game.message, session=game.view())
    except BaseException:
        game.finish(job, None, "the server stopped waiting for the engine")
        raise
    game.finish(job, answer)
    return game.view()
