"""``dlgo serve``: play, watch and analyse games in the browser.

A FastAPI application (:func:`create_app`) serves one page (``static/``:
vanilla JavaScript drawing the board in SVG, shipped in the package; no CDN)
and a JSON API under ``/api``:

=========================================  =====================================================
``GET  /api/catalog``                      the games, the engines (from the registries), the networks
``POST /api/sessions``                     a new game: ``{game, black, white, seed?, hint?}``
``POST /api/sessions/sgf``                 a game from an SGF record, at its end: ``{sgf, black, white, seed?, hint?}``
``GET  /api/sessions/{id}``                the game as the page draws it (read back from disk after a restart)
``POST /api/sessions/{id}/move``           a human's move: ``{move: "C3"}`` or ``{action: 20}``
``POST /api/sessions/{id}/engine``         the engine to move plays (waits for it, up to the time limit)
``POST /api/sessions/{id}/hint``           an engine's suggestion and its search: ``{engine?}``
``GET  /api/sessions/{id}/pass-ending``    what a pass by the human would end the game with (asked before passing)
``POST /api/sessions/{id}/undo``           take back to the human's previous turn
``GET  /api/sessions/{id}/record``         the game as SGF (Go) or as a move list
``DELETE /api/sessions/{id}``              close the game
``GET  /api/reports``, ``/api/reports/P``  the reports folder, and one summary as HTML
=========================================  =====================================================

Every error is a JSON ``{"error": "one line"}`` with a 4xx status (an engine
that fails or runs out of time: 502 or 504, and the session goes on; a session
closed while its engine thinks: 410; every engine process busy: 503).

Every game is saved in the server's state folder (``state``; default a
temporary one) and read back when a request names it, so games survive a
restart; the networks they play are copied there when each game begins (see
:mod:`dlgo.app.web.safety`). Sessions left idle are closed on a timer
(:func:`expire_idle`), and engine processes are capped and stopped off the
event loop: see :mod:`dlgo.app.web.workers`. With ``bots`` (``dlgo serve --bots
FOLDER``) the bots of users' own in that folder are offered by name, and a bot that
fails during a game loses it by forfeit (see :mod:`dlgo.app.web.bots`).

The routes are routers by area, in :mod:`dlgo.app.web.routes`; this module
assembles them with the body limit, the error answers and the session store.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ipaddress
import logging
import os
import re
import tempfile
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable, MutableMapping, Sequence

import uvicorn
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from dlgo.app.web.bots import BotFolder
from dlgo.app.web.reports import NoSuchReport
from dlgo.app.web.routes import catalog, engines, games, page, reports
from dlgo.app.web.routes.common import error
from dlgo.app.web.routes.page import STATIC
from dlgo.app.web.safety import MAX_SGF, FileRoots
from dlgo.app.web.sessions import NoSuchSession, SessionError, SessionStore
from dlgo.app.web.workers import GRACE_SECONDS, START_SECONDS, EngineClosed, EnginesBusy
from dlgo.core.errors import DlgoError, RecordError
from dlgo.storage.folders import check_output_folder, hold_folder, read_manifest
from engines.bots import DEFAULT_LIMITS, BotLimits
from engines.checkpoints import SHIPPED

#: the suite's folder (reports/ and checkpoints/ live there)
SUITE = SHIPPED.parent
#: the largest request body accepted, in bytes
MAX_BODY = 16 * 1024
#: the routes whose bodies may be larger than :data:`MAX_BODY`, and how large: a game from SGF
#: (its record escaped in JSON)
LARGER_BODIES = {"/api/sessions/sgf": 2 * MAX_SGF + MAX_BODY}
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
    """ASGI middleware: a request body over ``limit`` bytes (or the limit ``larger``
    gives its path) gets 413, whether it says its length or streams it in chunks
    (the application then sees the client gone, and its own answer is dropped)."""

    def __init__(self, app: Any, limit: int = MAX_BODY, larger: dict[str, int] | None = None):
        self.app, self.limit, self.larger = app, limit, dict(LARGER_BODIES if larger is None else larger)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope.get("path", ""), self.limit)
        too_large = JSONResponse({"error": f"the request is larger than {limit:,} bytes"}, status_code=413)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
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
                if received > limit:
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
        self.app, self.hosts = app, {_normal_host(h) for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and host_name(scope) not in self.hosts:  # the app has no websockets
            await error(400, "the request names a host this server does not answer to")(scope, receive, send)
            return
        await self.app(scope, receive, send)


#: a Host header: a host name or an IPv4 address, or an IPv6 address in brackets, then an optional port
HOST_HEADER = re.compile(r"(?:\[(?P<ipv6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
                         r"(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*))(?::(?P<port>[0-9]{1,5}))?")


def host_name(scope: Scope) -> str:
    """A request's host name, from its one Host header without the port; "" for
    none, two, or one that is not strictly ``host[:port]`` (``127.0.0.1:80@evil.example``,
    ``127.0.0.1, evil.example``)."""
    hosts = [value for key, value in scope.get("headers") or [] if key.lower() == b"host"]
    if len(hosts) != 1:
        return ""
    match = HOST_HEADER.fullmatch(hosts[0].decode("latin-1").strip(" \t").lower())
    if match is None or (match["port"] is not None and int(match["port"]) > 65535):
        return ""
    if match["ipv6"] is None:
        return match["name"]
    try:
        return str(ipaddress.IPv6Address(match["ipv6"]))
    except ValueError:
        return ""


def _normal_host(host: str) -> str:
    """A host name as :func:`host_name` gives it (an IPv6 address compressed, without brackets)."""
    host = host.lower().strip("[]")
    try:
        return str(ipaddress.IPv6Address(host))
    except ValueError:
        return host


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
    await asyncio.to_thread(store.expire)  # games saved before a restart and left idle since
    sweeper = asyncio.create_task(expire_idle(store))
    try:
        yield
    finally:
        sweeper.cancel()
        store.close_all()
        if app.state.temporary is not None:
            app.state.temporary.cleanup()


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


def default_state() -> Path:
    """Where ``dlgo serve`` keeps its games: ``$XDG_STATE_HOME/dlgo/serve`` (``~/.local/state/dlgo/serve``)."""
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "dlgo" / "serve"


def create_app(*, runs: Path | str = "runs", reports: Path | str | None = None, time_limit: float = 10.0,
               max_sessions: int = 32, idle_seconds: float = 3600.0, grace: float = GRACE_SECONDS,
               start_seconds: float = START_SECONDS, max_engines: int | None = None,
               hosts: Sequence[str] = (*LOCAL_HOSTS, "testserver"), state: Path | str | None = None,
               bots: Path | str | None = None, bot_limits: BotLimits = DEFAULT_LIMITS) -> FastAPI:
    """The server: networks from ``checkpoints/`` and ``runs``, the report pages
    from ``reports`` (default: ``reports/`` here, else the suite's), its games
    saved in ``state`` (a folder it creates; default: a temporary one, deleted
    when the server stops), each engine
    move's search capped at ``time_limit`` seconds (a process still busy ``grace``
    seconds later is stopped) after a start of up to ``start_seconds``, at most
    ``max_sessions`` games open, closed after ``idle_seconds`` left idle, and at
    most ``max_engines`` engine processes (default: by the machine's memory);
    answering requests that name one of ``hosts`` (default: this machine, and
    ``testserver``, the name FastAPI's test client sends; :func:`serve` gives its own);
    offering the bots of users' own in the folder ``bots`` by their names, each playing
    under ``bot_limits`` (default: none offered, and no file ever loaded)."""
    app = FastAPI(title="dlgo", description="Play, watch and analyse the suite's games and engines.",
                  lifespan=lifespan, exception_handlers=ERROR_HANDLERS, docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json")
    app.state.temporary = tempfile.TemporaryDirectory(prefix="dlgo-serve-") if state is None else None
    folder = check_output_folder(app.state.temporary.name if state is None else state)
    try:
        offered = BotFolder(bots, bot_limits)
    except DlgoError:
        if app.state.temporary is not None:
            app.state.temporary.cleanup()
        raise
    app.state.store = SessionStore(FileRoots([SHIPPED, Path(runs)]), folder, max_sessions=max_sessions,
                                   idle_seconds=idle_seconds, time_limit=time_limit, grace=grace,
                                   start_seconds=start_seconds, max_engines=max_engines, bots=offered)
    app.state.reports = Path(reports) if reports is not None else \
        Path("reports") if Path("reports").is_dir() else SUITE / "reports"
    app.add_middleware(BodyLimit)
    app.add_middleware(HostCheck, hosts=hosts)  # added last: it runs first
    app.include_router(page.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for router in ROUTERS:
        app.include_router(router)
    return app


def serve(host: str = "127.0.0.1", port: int = 8000, allow_hosts: Sequence[str] = (), *,
          state: Path | str | None = None, ready: Callable[[], None] = lambda: None, **options: Any) -> None:
    """Run the server until Ctrl-C, answering requests that name this machine,
    ``host`` or one of ``allow_hosts``, holding its ``state`` folder (default
    :func:`default_state`) against a second server (``options``: those of :func:`create_app`).
    ``ready`` is called once the folder is held and the app built, before it listens:
    a folder it cannot keep its games in is an error before then."""
    folder = Path(default_state() if state is None else state)
    if folder.exists() and not folder.is_dir():
        raise RecordError(f"--state {folder} is a file: dlgo serve keeps its games in a folder")
    if folder.is_dir() and any(folder.iterdir()) and read_manifest(folder).get("kind") != "serve":
        raise RecordError(f"{folder} holds other files: dlgo serve keeps its games in a folder of its own "
                          "(its expired games are deleted): choose an empty or new --state")
    with hold_folder(folder, "serve") as folder:
        app = create_app(hosts=(*LOCAL_HOSTS, host, *allow_hosts), state=folder, **options)
        ready()
        uvicorn.run(app, host=host, port=port, log_level="warning")
