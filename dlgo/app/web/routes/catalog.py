"""``GET /api/catalog``: the games and engines a page may choose, with their
options and defaults, the networks on offer (``?game=SPEC``: those that play
that game, the parameters that act on it and its empty board) and the server's limits;
with ``dlgo serve --bots``, the bots of users' own by name (never a file's path)."""
from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Query

from dlgo.app.web.bots import BotFolder, catalog_entry
from dlgo.app.web.routes.common import Store
from dlgo.app.web.safety import MAX_BOARD, MAX_SPEC, FileRoots, Networks, browser_game, offered_engines, \
    offered_networks, relative_paths
from dlgo.app.web.sessions import DEFAULT_HINT, board_facts
from dlgo.core.game import State
from dlgo.games import GAMES, game_options, new_game
from engines.checkpoints import NETWORK_PARAMETERS
from engines.neural.loading import kind_has_heads
from engines.registry import engine_class, engine_description, engine_parameters

router = APIRouter()


@router.get("/api/catalog")
async def get_catalog(store: Store, game: str | None = Query(None, max_length=MAX_SPEC)) -> dict[str, Any]:
    return await asyncio.to_thread(catalog, store.roots, store.time_limit, game, store.bots)  # it reads files


def files_for(engine: str, parameter: str, networks: Networks) -> list[str]:
    """The files a list offers for ``engine``'s network ``parameter``: rollout
    policies, move patterns, checkpoint sets (a parameter whose heads the engine does not name),
    or networks with the heads it plays by (or of no recorded kind)."""
    if parameter == "rollout":
        return networks.rollouts
    if parameter == "patterns":
        return networks.patterns
    heads = engine_class(engine).network_heads.get(parameter)
    if heads is None:
        return networks.sets
    return [name for name, kind in networks.keras if kind_has_heads(kind, heads)]


def _type_name(kind: Any) -> str:
    return getattr(kind, "__name__", str(kind)).replace("NoneType", "None")


def _jsonable(value: Any) -> Any:
    return value if value is None or isinstance(value, (bool, int, float, str)) else str(value)


def catalog(roots: FileRoots, time_limit: float, game: str | None = None,
            bots: BotFolder | None = None) -> dict[str, Any]:
    """The games and engines a page may choose, with their options and defaults, and
    the networks on offer. Each parameter that acts on some games only names them
    (``"games": ["go"]``: ``mcts``'s ``rave``, as the engine says). Given ``game``, a
    spec: only the networks that play it and the parameters that act on it, and its
    empty board (``board``, as a session's ``game``). Given ``bots``, each bot that
    loads is an engine too (``"bot": true``, its ``label`` ``alice (your bot)``), and
    ``bots`` lists every bot of the folder, ``available`` or not (with its ``reason``)."""
    state = browser_game(game) if game else None
    offered = offered_networks(roots, state)
    networks = {"keras": [name for name, _ in offered.keras], "npz": offered.rollouts + offered.patterns,
                "sets": offered.sets}
    starts: dict[str, State] = {name: new_game(name) for name in GAMES}
    engines_list = []
    for name in offered_engines():
        cls = engine_class(name)
        parameters = []
        for p in engine_parameters(name):
            if state is not None and not cls.parameter_acts_on(p.name, state):
                continue  # an error to set in this game
            entry: dict[str, Any] = {"name": p.name, "type": _type_name(p.type), "default": _jsonable(p.default)}
            acting = [g for g, start in starts.items() if cls.parameter_acts_on(p.name, start)]
            if len(acting) < len(starts):
                entry["games"] = acting
            if p.name in NETWORK_PARAMETERS:
                entry["files"] = files_for(name, p.name, offered)
            elif _type_name(p.type) == "str":
                continue  # set only on the command line (a program's path)
            parameters.append(entry)
        engines_list.append({"name": name, "description": engine_description(name), "parameters": parameters})
    games = [{"name": name, "description": spec.description, "sides": list(starts[name].game.side_names),
              "spec": starts[name].game.spec, "options": {k: _jsonable(v) for k, v in game_options(name).items()}}
             for name, spec in GAMES.items()]
    yours = bots.all() if bots is not None else []
    engines_list += [catalog_entry(bot) for bot in yours if bot.available]
    limits: dict[str, Any] = {"time_limit": time_limit, "max_board": MAX_BOARD}
    if bots is not None and bots.enabled:
        limits["bots"] = {"move_seconds": bots.limits.move_seconds, "memory_mb": bots.limits.memory_mb,
                          "startup_seconds": bots.limits.startup_seconds}
    answer = {"games": games, "engines": engines_list, "networks": networks, "default_hint": DEFAULT_HINT,
              "limits": limits, "bots": [{"name": bot.name, "available": bot.available,
                                          "reason": relative_paths(bot.reason)} for bot in yours]}
    if state is not None:
        answer["board"] = board_facts(state)
    return answer
