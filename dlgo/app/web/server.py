"""``dlgo serve``: play, watch and analyse games in the browser.

A FastAPI application (:func:`create_app`) serves one page (``static/``:
vanilla JavaScript drawing the board in SVG, shipped in the package; no CDN)
and a JSON API under ``/api``:

=========================================  =====================================================
``GET  /api/catalog``                      the games, the engines (from the registries), the networks
``POST /api/sessions``                     a new game: ``{game, black, white, seed?, hint?}``
``GET  /api/sessions/{id}``                the game as the page draws it
``POST /api/sessions/{id}/move``           a human's move: ``{move: "C3"}`` or ``{action: 20}``
``POST /api/sessions/{id}/engine``         the engine to move plays (waits for it, up to the time limit)
``POST /api/sessions/{id}/hint``           an engine's suggestion and its search: ``{engine?}``
``POST /api/sessions/{id}/undo``           take back to the human's previous turn
``GET  /api/sessions/{id}/record``         the game as SGF (Go) or as a move list
``DELETE /api/sessions/{id}``              close the game
``GET  /api/reports``, ``/api/reports/P``  the reports folder, and one summary as HTML
=========================================  =====================================================

Every error is a JSON ``{"error": "one line"}`` with a 4xx status (an engine
that fails or runs out of time: 502 or 504, and the session goes on).
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable, MutableMapping

import uvicorn
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from dlgo.app.web.reports import SERVED, NoSuchReport, list_reports, render_report, report_file
from dlgo.app.web.safety import MAX_BOARD, MAX_SPEC, FileRoots, offered_engines, set_prefixes
from dlgo.app.web.sessions import DEFAULT_HINT, GameSession, NoSuchSession, SessionError, SessionStore
from dlgo.app.web.workers import GRACE_SECONDS, EngineFailure, EngineTimeout
from dlgo.core.errors import DlgoError
from dlgo.games import GAMES, game_options
from engines.checkpoints import NETWORK_PARAMETERS, SHIPPED
from engines.registry import engine_description, engine_parameters

STATIC = Path(__file__).parent / "static"
#: the suite's folder (reports/ and checkpoints/ live there)
SUITE = SHIPPED.parent
#: the largest request body accepted, in bytes
MAX_BODY = 16 * 1024

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets 413, whether it
    says its length or streams it in chunks (the application then sees the
    client gone, and its own answer is dropped)."""

    def __init__(self, app: Any, limit: int = MAX_BODY):
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = JSONResponse({"error": f"the request is larger than {self.limit:,} bytes"}, status_code=413)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await too_large(scope, receive, send)
            return
        received = 0
        refused = False

        async def limited_receive() -> MutableMapping[str, Any]:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    refused = True
                    await too_large(scope, receive, send)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: MutableMapping[str, Any]) -> None:
            if not refused:  # after a 413, the application's own answer goes nowhere
                await send(message)

        await self.app(scope, limited_receive, guarded_send)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewGame(Strict):
    game: str = Field(max_length=MAX_SPEC, description="game spec, e.g. go:size=9")
    black: str = Field("human", max_length=MAX_SPEC, description="'human' or an engine spec")
    white: str = Field("human", max_length=MAX_SPEC, description="'human' or an engine spec")
    seed: int | None = Field(None, ge=0, lt=2 ** 31)
    hint: str | None = Field(None, max_length=MAX_SPEC, description="the engine that answers hints")


class MoveRequest(Strict):
    move: str | None = Field(None, max_length=32, description="a move as typed: C3, 4, b2, pass, resign")
    action: int | None = Field(None, ge=0, lt=100_000, description="an action index")


class HintRequest(Strict):
    engine: str | None = Field(None, max_length=MAX_SPEC)


def _type_name(kind: Any) -> str:
    return getattr(kind, "__name__", str(kind)).replace("NoneType", "None")


def _jsonable(value: Any) -> Any:
    return value if value is None or isinstance(value, (bool, int, float, str)) else str(value)


def catalog(roots: FileRoots, time_limit: float) -> dict[str, Any]:
    """The games and engines a page may choose, with their options and defaults, and the networks on offer."""
    networks = {"keras": roots.files((".keras",)), "npz": roots.files((".npz",)), "sets": set_prefixes(roots)}
    engines_list = []
    for name in offered_engines():
        parameters = []
        for p in engine_parameters(name):
            entry = {"name": p.name, "type": _type_name(p.type), "default": _jsonable(p.default)}
            if p.name in NETWORK_PARAMETERS:
                entry["files"] = networks["npz"] if p.name == "rollout" else \
                    networks["sets"] + networks["keras"] if p.name == "checkpoint" else networks["keras"]
            elif _type_name(p.type) == "str":
                continue  # set only on the command line (a program's path)
            parameters.append(entry)
        engines_list.append({"name": name, "description": engine_description(name), "parameters": parameters})
    games = [{"name": name, "description": spec.description,
              "options": {k: _jsonable(v) for k, v in game_options(name).items()}} for name, spec in GAMES.items()]
    return {"games": games, "engines": engines_list, "networks": networks, "default_hint": DEFAULT_HINT,
            "limits": {"time_limit": time_limit, "max_board": MAX_BOARD}}


def create_app(*, runs: Path | str = "runs", reports: Path | str | None = None, time_limit: float = 10.0,
               max_sessions: int = 32, idle_seconds: float = 3600.0, grace: float = GRACE_SECONDS) -> FastAPI:
    """The server: networks from ``checkpoints/`` and ``runs``, the report pages
    from ``reports`` (default: ``reports/`` here, else the suite's), each engine
    move capped at ``time_limit`` seconds (a process still busy ``grace``
    seconds later is stopped), at most ``max_sessions`` games open."""
    roots = FileRoots([SHIPPED, Path(runs)])
    reports_root = Path(reports) if reports is not None else \
        Path("reports") if Path("reports").is_dir() else SUITE / "reports"
    store = SessionStore(roots, max_sessions=max_sessions, idle_seconds=idle_seconds, time_limit=time_limit,
                         grace=grace)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # every session may wait on its engine at once: one thread each, beside the server's own
        asyncio.get_running_loop().set_default_executor(
            concurrent.futures.ThreadPoolExecutor(max_workers=max_sessions + 4, thread_name_prefix="dlgo-wait"))
        yield
        store.close_all()

    app = FastAPI(title="dlgo", description="Play, watch and analyse the suite's games and engines.",
                  lifespan=lifespan, docs_url="/api/docs", redoc_url=None, openapi_url="/api/openapi.json")
    app.state.store = store
    app.add_middleware(BodyLimit)

    def error(status: int, message: str, **extra: Any) -> JSONResponse:
        return JSONResponse({"error": message, **extra}, status_code=status)

    @app.exception_handler(DlgoError)
    async def dlgo_error(request: Request, err: DlgoError) -> JSONResponse:
        status = 404 if isinstance(err, (NoSuchSession, NoSuchReport)) else \
            409 if isinstance(err, SessionError) else 400
        return error(status, str(err))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, err: RequestValidationError) -> JSONResponse:
        problems = []
        if any(e.get("type") == "json_invalid" for e in err.errors()):
            return error(400, "bad request: the body is not valid JSON")
        for e in err.errors():
            where = ".".join(str(part) for part in e.get("loc", ()) if part != "body")
            problems.append(f"{where}: {e.get('msg', 'invalid')}" if where else str(e.get("msg", "invalid")))
        return error(400, "bad request: " + "; ".join(problems))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> JSONResponse:
        return error(err.status_code, str(err.detail))

    # ------------------------------------------------------------ the page
    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ------------------------------------------------------------ what to play
    @app.get("/api/catalog")
    async def get_catalog() -> dict[str, Any]:
        return catalog(roots, time_limit)

    # ------------------------------------------------------------ sessions
    def session(session_id: str) -> GameSession:
        if not session_id or len(session_id) > 64 or not session_id.replace("-", "").replace("_", "").isalnum():
            raise NoSuchSession(f"no game {session_id[:64]!r}")
        return store.get(session_id)

    @app.post("/api/sessions", status_code=201)
    async def new_session(body: NewGame) -> dict[str, Any]:
        return store.open(body.game, body.black, body.white, seed=body.seed, hint=body.hint).view()

    @app.get("/api/sessions/{session_id}")
    async def get_session(session_id: str) -> dict[str, Any]:
        return session(session_id).view()

    @app.delete("/api/sessions/{session_id}", status_code=204)
    async def close_session(session_id: str) -> Response:
        session(session_id)
        store.close(session_id)
        return Response(status_code=204)

    @app.post("/api/sessions/{session_id}/move")
    async def human_move(session_id: str, body: MoveRequest) -> dict[str, Any]:
        game = session(session_id)
        game.play(text=body.move, action=body.action)
        return game.view()

    @app.post("/api/sessions/{session_id}/undo")
    async def undo(session_id: str) -> dict[str, Any]:
        game = session(session_id)
        game.undo()
        return game.view()

    async def think(game: GameSession, hint: bool, spec: str | None = None) -> Any:
        job = game.start_hint(spec) if hint else game.start_engine_move()
        try:
            answer = await asyncio.to_thread(game.ask, job)
        except EngineFailure as err:
            game.finish(job, None, str(err))
            return error(504 if isinstance(err, EngineTimeout) else 502, str(err), session=game.view())
        except BaseException:
            game.finish(job, None, "the server stopped waiting for the engine")
            raise
        game.finish(job, answer)
        return game.view()

    @app.post("/api/sessions/{session_id}/engine")
    async def engine_move(session_id: str) -> Any:
        return await think(session(session_id), hint=False)

    @app.post("/api/sessions/{session_id}/hint")
    async def hint(session_id: str, body: HintRequest | None = None) -> Any:
        return await think(session(session_id), hint=True, spec=body.engine if body else None)

    @app.get("/api/sessions/{session_id}/record")
    async def record(session_id: str) -> Response:
        name, media, text = session(session_id).record()
        return Response(text, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    # ------------------------------------------------------------ reports
    @app.get("/api/reports")
    async def reports_list() -> list[dict[str, str]]:
        return list_reports(reports_root)

    @app.get("/api/reports/{path:path}")
    async def report_page(path: str) -> dict[str, Any]:
        return render_report(reports_root, path)

    @app.get("/reports/{path:path}", include_in_schema=False)
    async def report_asset(path: str) -> FileResponse:
        file = report_file(reports_root, path)
        return FileResponse(file, media_type=SERVED[file.suffix.lower()])

    return app


def serve(host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
    """Run the server until Ctrl-C (``options``: those of :func:`create_app`)."""
    uvicorn.run(create_app(**options), host=host, port=port, log_level="warning")
