"""What the routers share: the JSON error answer, the strict request body, and
the dependencies that hand a route the application's session store and
reports folder (kept on ``app.state`` by :func:`~dlgo.app.web.server.create_app`)."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from dlgo.app.web.safety import relative_paths
from dlgo.app.web.saved import SESSION_ID
from dlgo.app.web.sessions import GameSession, NoSuchSession, SessionStore


class Strict(BaseModel):
    """A request body that refuses unknown fields and wrong types (no coercion:
    ``"4"`` or ``true`` is not the integer 4 or 1)."""

    model_config = ConfigDict(extra="forbid", strict=True)


def error(status: int, message: str, **extra: Any) -> JSONResponse:
    """Every error's answer: ``{"error": "one line", ...}``, paths in it shown
    relative to the suite or the working folder (:func:`relative_paths`)."""
    return JSONResponse({"error": " ".join(relative_paths(message).splitlines()), **extra}, status_code=status)


async def session_store(request: Request) -> SessionStore:
    return request.app.state.store


async def reports_folder(request: Request) -> Path:
    return request.app.state.reports


#: a route's parameter for the application's open sessions
Store = Annotated[SessionStore, Depends(session_store)]
#: a route's parameter for the folder the report pages show
ReportsFolder = Annotated[Path, Depends(reports_folder)]


async def find_session(store: SessionStore, session_id: str) -> GameSession:
    """The session ``session_id``, open or saved (a :class:`NoSuchSession`, 404, for an id that cannot be one),
    found in a thread: reading a saved game back checks its engines again (a bot's, in a process of its own)."""
    return await asyncio.to_thread(store.get, session_key(session_id))


def session_key(session_id: str) -> str:
    """``session_id`` if a session can have it; a :class:`NoSuchSession` (404) otherwise."""
    if not SESSION_ID.fullmatch(session_id):
        raise NoSuchSession.named(session_id, "no game has an id like that")
    return session_id
