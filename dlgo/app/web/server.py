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
that fails or runs out of time: 502 or 504, and the session goes on; a session
closed while its engine thinks: 410; every engine process busy: 503).

Sessions left idle are closed on a timer (:func:`expire_idle`), and engine
processes are capped and stopped off the event loop: see
:mod:`dlgo.app.web.workers`.

The routes are routers by area, in :mod:`dlgo.app.web.routes`; this module
assembles them with the body limit, the error answers and the session store.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable, MutableMapping, Sequence

import uvicorn
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from dlgo.app.web.reports import NoSuchReport
from dlgo.app.web.routes import catalog, engines, games, page, reports
from dlgo.app.web.routes.common import error
from dlgo.app.web.routes.page import STATIC
from dlgo.app.web.safety import FileRoots
from dlgo.app.web.sessions import NoSuchSession, SessionError, SessionStore
from dlgo.app.web.workers import GRACE_SECONDS, START_SECONDS, EngineClosed, EnginesBusy
from dlgo.core.errors import DlgoError
from engines.checkpoints import SHIPPED

#: the suite's folder (reports/ and checkpoints/ live there)
SUITE = SHIPPED.parent
#: the largest request body accepted, in bytes
MAX_BODY = 16 * 1024
#: the names of this machine a page may reach the server by (:func:`serve` adds its ``--host``)
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
#: the longest wait between two sweeps for idle sessions, in seconds
SWEEP_SECONDS = 60.0

log = logging.getLogger(__name__)

#: the API's routers, by area (:func:`create_app` puts the page and its files before them)
ROUTERS = (catalog.router, games.router, engines.router, reports.router)

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


class HostCheck:
    """ASGI middleware: a request whose Host header names none of ``hosts`` gets
    400. A page served under another name that its owner points at this machine
    (DNS rebinding) cannot drive the API."""

    def __init__(self, app: Any, hosts: Sequence[str] = LOCAL_HOSTS):
        self.app, self.hosts = app, {h.lower().strip("[]") for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and host_name(scope) not in self.hosts:  # the app has no websockets
            await error(400, "the request names a host this server does not answer to")(scope, receive, send)
            return
        await self.app(scope, receive, send)


def host_name(scope: Scope) -> str:
    """A request's host name, from its Host header without the port ("" if it has none)."""
    host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1").strip().lower()
    if host.startswith("["):  # [::1]:8000
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


async def dlgo_error(request: Request, err: DlgoError) -> JSONResponse:
    status = 404 if isinstance(err, (NoSuchSession, NoSuchReport)) else \
        409 if isinstance(err, SessionError) else 410 if isinstance(err, EngineClosed) else \
        503 if isinstance(err, EnginesBusy) else 400
    return error(status, str(err))


async def bad_request(request: Request, err: RequestValidationError) -> JSONResponse:
    problems = []
    if any(e.get("type") == "json_invalid" for e in err.errors()):
        return error(400, "bad request: the body is not valid JSON")
    for e in err.errors():
        where = ".".join(str(part) for part in e.get("loc", ()) if part != "body")
        problems.append(f"{where}: {e.get('msg', 'invalid')}" if where else str(e.get("msg", "invalid")))
    return error(400, "bad request: " + "; ".join(problems))


async def http_error(request: Request, err: StarletteHTTPException) -> JSONResponse:
    return error(err.status_code, str(err.detail))


#: every error as ``{"error": "one line"}``: ours by kind, a body that fails its model, an unknown route
ERROR_HANDLERS: dict[Any, Any] = {DlgoError: dlgo_error, RequestValidationError: bad_request,
                                  StarletteHTTPException: http_error}


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    store: SessionStore = app.state.store
    # every session may wait on its engine at once: one thread each, beside the server's own
    asyncio.get_running_loop().set_default_executor(
        concurrent.futures.ThreadPoolExecutor(max_workers=store.max_sessions + 4, thread_name_prefix="dlgo-wait"))
    await asyncio.to_thread(store.engines.warm)
    sweeper = asyncio.create_task(expire_idle(store))
    try:
        yield
    finally:
        sweeper.cancel()
        store.close_all()


async def expire_idle(store: SessionStore) -> None:
    """Close the sessions left idle, every quarter of the idle time (at most :data:`SWEEP_SECONDS`),
    in a thread: the event loop never waits for a session to close."""
    period = max(0.05, min(SWEEP_SECONDS, store.idle_seconds / 4))
    while True:
        await asyncio.sleep(period)
        try:
            await asyncio.to_thread(store.expire)
        except Exception:  # a sweep that fails must not end the sweeping
            log.exception("closing idle sessions")


def create_app(*, runs: Path | str = "runs", reports: Path | str | None = None, time_limit: float = 10.0,
               max_sessions: int = 32, idle_seconds: float = 3600.0, grace: float = GRACE_SECONDS,
               start_seconds: float = START_SECONDS, max_engines: int | None = None,
               hosts: Sequence[str] = (*LOCAL_HOSTS, "testserver")) -> FastAPI:
    """The server: networks from ``checkpoints/`` and ``runs``, the report pages
    from ``reports`` (default: ``reports/`` here, else the suite's), each engine
    move's search capped at ``time_limit`` seconds (a process still busy ``grace``
    seconds later is stopped) after a start of up to ``start_seconds``, at most
    ``max_sessions`` games open, closed after ``idle_seconds`` left idle, and at
    most ``max_engines`` engine processes (default: by the machine's memory);
    answering requests that name one of ``hosts`` (default: this machine, and
    ``testserver``, the name FastAPI's test client sends; :func:`serve` gives its own)."""
    app = FastAPI(title="dlgo", description="Play, watch and analyse the suite's games and engines.",
                  lifespan=lifespan, exception_handlers=ERROR_HANDLERS, docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json")
    app.state.store = SessionStore(FileRoots([SHIPPED, Path(runs)]), max_sessions=max_sessions,
                                   idle_seconds=idle_seconds, time_limit=time_limit, grace=grace,
                                   start_seconds=start_seconds, max_engines=max_engines)
    app.state.reports = Path(reports) if reports is not None else \
        Path("reports") if Path("reports").is_dir() else SUITE / "reports"
    app.add_middleware(BodyLimit)
    app.add_middleware(HostCheck, hosts=hosts)  # added last: it runs first
    app.include_router(page.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for router in ROUTERS:
        app.include_router(router)
    return app


def serve(host: str = "127.0.0.1", port: int = 8000, allow_hosts: Sequence[str] = (), **options: Any) -> None:
    """Run the server until Ctrl-C, answering requests that name this machine,
    ``host`` or one of ``allow_hosts`` (``options``: those of :func:`create_app`)."""
    app = create_app(hosts=(*LOCAL_HOSTS, host, *allow_hosts), **options)
    uvicorn.run(app, host=host, port=port, log_level="warning")
