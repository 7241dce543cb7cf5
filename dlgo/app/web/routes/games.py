"""A game's session: open one (from a game's spec, or an SGF record), show it,
a human's move, undo, its record, close it."""
from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import ConfigDict, Field

from dlgo.app.web.routes.common import Store, Strict, find_session, session_key
from dlgo.app.web.safety import MAX_SGF, MAX_SPEC, browser_game
from dlgo.app.web.sessions import sgf_game
from dlgo.core.errors import SpecError
from dlgo.core.game import Game

router = APIRouter()


class Players(Strict):
    """Who plays each side of a new game, its seed and its hint engine. A side is
    named ``black`` (the first to move) or ``white`` in any game, or as the game
    names it (``red`` and ``yellow``, ``X`` and ``O``): :meth:`sides`."""

    model_config = ConfigDict(extra="allow", strict=True)  # the game's own names for the sides: read by sides()

    black: str = Field("human", max_length=MAX_SPEC, description="'human' or an engine spec: the first to move")
    white: str = Field("human", max_length=MAX_SPEC, description="'human' or an engine spec: the second")
    seed: int | None = Field(None, ge=0, lt=2 ** 31)
    hint: str | None = Field(None, max_length=MAX_SPEC, description="the engine that answers hints")

    def sides(self, game: Game) -> tuple[str, str]:
        """Who plays the first side and the second in ``game``: ``black`` and ``white``,
        or the fields named as the game names its sides (``"red": "human"``, any case);
        a :class:`SpecError` for any other field, a value that is no spec, or a side named twice."""
        given = {"black": self.black, "white": self.white}
        named = {name.lower(): (key, name) for key, name in zip(given, game.side_names)}
        seen = {key for key in given if key in self.model_fields_set}
        for field, value in (self.model_extra or {}).items():
            if field.lower() not in named:
                raise SpecError(f"bad request: {field}: no such field; the sides of {game.name} are "
                                f"{' and '.join(game.side_names)} (or black and white)")
            key, name = named[field.lower()]
            if not isinstance(value, str) or len(value) > MAX_SPEC:
                raise SpecError(f"bad request: {field}: 'human' or an engine spec, at most {MAX_SPEC} characters")
            if key in seen:
                also = f" (or {key})" if key != name else ""
                raise SpecError(f"bad request: {field}: the side {name}{also} is given twice; give it once")
            seen.add(key)
            given[key] = value
        return given["black"], given["white"]


class NewGame(Players):
    game: str = Field(max_length=MAX_SPEC, description="game spec, e.g. go:size=9")


class SgfGame(Players):
    sgf: str = Field(max_length=MAX_SGF, description="an SGF record of a Go game: play goes on from its end")


class MoveRequest(Strict):
    move: str | None = Field(None, max_length=32, description="a move as typed: C3, 4, b2, pass, resign")
    action: int | None = Field(None, ge=0, lt=100_000, description="an action index")


@router.post("/api/sessions", status_code=201)
async def new_session(body: NewGame, store: Store) -> dict[str, Any]:
    state = browser_game(body.game)
    session = await asyncio.to_thread(store.open, state, *body.sides(state.game), seed=body.seed, hint=body.hint)
    return session.view()


@router.post("/api/sessions/sgf", status_code=201)
async def sgf_session(body: SgfGame, store: Store) -> dict[str, Any]:
    """A game from an SGF record, its moves played from its set-up stones, to go on from its end."""
    state = await asyncio.to_thread(sgf_game, body.sgf)
    session = await asyncio.to_thread(store.open, state, *body.sides(state.game), seed=body.seed, hint=body.hint)
    return session.view()


@router.get("/api/sessions/{session_id}")
async def get_session(session_id: str, store: Store) -> dict[str, Any]:
    return (await find_session(store, session_id)).view()


@router.delete("/api/sessions/{session_id}", status_code=204)
async def close_session(session_id: str, store: Store) -> Response:
    """Close the game at once, and delete its saved game: its engine process stops in the background
    (never on the event loop), and a question it was thinking about is answered 410."""
    store.close(session_key(session_id))
    return Response(status_code=204)


@router.post("/api/sessions/{session_id}/move")
async def human_move(session_id: str, body: MoveRequest, store: Store) -> dict[str, Any]:
    game = await find_session(store, session_id)
    game.play(text=body.move, action=body.action)
    return game.view()


@router.get("/api/sessions/{session_id}/pass-ending")
async def pass_ending(session_id: str, store: Store) -> dict[str, Any] | None:
    """What a pass by the human to move would end the game with (null where it cannot), asked before passing."""
    return await asyncio.to_thread((await find_session(store, session_id)).pass_ending)


@router.post("/api/sessions/{session_id}/undo")
async def undo(session_id: str, store: Store) -> dict[str, Any]:
    game = await find_session(store, session_id)
    game.undo()
    return game.view()


@router.get("/api/sessions/{session_id}/record")
async def record(session_id: str, store: Store) -> Response:
    name, media, text = (await find_session(store, session_id)).record()
    return Response(text, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'})
