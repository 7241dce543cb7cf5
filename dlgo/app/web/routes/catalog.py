"""``GET /api/catalog``: the games and engines a page may choose, with their
options and defaults, the networks on offer and the server's limits."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from dlgo.app.web.routes.common import Store
from dlgo.app.web.safety import MAX_BOARD, FileRoots, offered_engines, set_prefixes
from dlgo.app.web.sessions import DEFAULT_HINT
from dlgo.games import GAMES, game_options
from engines.checkpoints import NETWORK_PARAMETERS
from engines.registry import engine_description, engine_parameters

router = APIRouter()


@router.get("/api/catalog")
async def get_catalog(store: Store) -> dict[str, Any]:
    return catalog(store.roots, store.time_limit)


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
