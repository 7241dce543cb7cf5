"""What more than one command group uses: the shared options (``--ray``, a
run's settings as options with ``--resume``), players made from specs and
recorded games read back."""
from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any, Callable, NamedTuple

import engines
from dlgo.core.agent import Agent
from dlgo.core.arguments import count, seconds, whole
from dlgo.core.errors import DlgoError
from dlgo.core.game import State
from dlgo.core.types import Player
from dlgo.formats.records import recorded_games, replay
from dlgo.formats.sgf import read_sgf_file, sgf_to_state
from engines.bots import BotLimits


# ------------------------------------------------------------------ options
def add_ray_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--ray [ADDRESS]``: the games on a Ray cluster (the distributed extra)."""
    parser.add_argument("--ray", nargs="?", const="auto", default=None, metavar="ADDRESS",
                        help=f"play {what} on a Ray cluster: auto (the one `ray start` runs here; the default "
                             "with no ADDRESS), HOST:PORT, or local (a private one for this run)")


def add_config_options(parser: argparse.ArgumentParser, cls: Any) -> None:
    """``--resume``, and one option per field of the settings dataclass ``cls``
    (--games, ...), defaults from it (see :func:`config_from_args`)."""
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out with its saved settings (no need to repeat them)")
    parser.add_argument("--like", metavar="RUN",
                        help="start from the settings another run saved (RUN/config.json), changed by the "
                             "options given: that run with one setting changed")
    defaults = cls()
    for f in dataclasses.fields(cls):
        default = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        about = f.metadata["help"] + " " if "help" in f.metadata else ""  # dlgo.core.arguments.setting's
        # a count's least is the settings' to check (-1 is the least any takes: "the default")
        counted = count(f.metadata["counts"], least=-1) if f.metadata.get("counts") else None
        if isinstance(default, list):
            parser.add_argument(flag, nargs="*", type=counted or f.metadata.get("item", str), default=None,
                                help=f"{about}(default {' '.join(map(str, default)) or 'none'}; "
                                     "the option alone: none)")
        elif isinstance(default, bool):  # --flag / --no-flag
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=None,
                                help=f"{about}(default {'on' if default else 'off'})")
        else:
            parser.add_argument(flag, type=counted or type(default), default=None,
                                help=f"{about}(default {default if default != '' else 'none'})")


def config_from_args(args: argparse.Namespace, cls: Any, saved: Callable[[str], Any]) -> Any:
    """A run's settings: the options given (the dataclass ``cls`` fills the rest, or
    ``--like``'s run's saved ones), or with ``--resume`` the run's saved ones (and no options)."""
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if getattr(args, f.name, None) is not None}
    if args.resume:
        extra = sorted(values) + (["--like"] if args.like else [])
        if extra:
            raise DlgoError(f"--resume takes the run's saved settings; drop {', '.join(extra)}")
        return saved(args.out)
    if args.like:
        return dataclasses.replace(saved(args.like), **values)  # checked again, as a new run's settings
    return cls(**values)


def add_bot_limit_options(parser: argparse.ArgumentParser) -> None:
    """``--move-seconds``, ``--bot-memory``, ``--bot-startup``: the limits a bot of a user's
    own (a ``FILE.py``, or a package's engine) plays under (see :func:`bot_limits`)."""
    limits = BotLimits()
    parser.add_argument("--move-seconds", type=seconds(), default=limits.move_seconds,
                        help="a bot of your own (FILE.py) that takes longer for a move loses the game "
                             f"(default {limits.move_seconds:g})")
    parser.add_argument("--bot-memory", type=whole(0, 2**20, "MB"), default=limits.memory_mb, metavar="MB",
                        help=f"a bot of your own that needs more memory loses the game (default {limits.memory_mb:,}; "
                             "0: no limit)")
    parser.add_argument("--bot-startup", type=seconds(), default=limits.startup_seconds,
                        metavar="SECONDS", help="a bot of your own that takes longer to load and build loses its "
                                                f"games (default {limits.startup_seconds:g})")


def bot_limits(args: argparse.Namespace) -> BotLimits:
    """The limits :func:`add_bot_limit_options` read (the defaults where a command has none)."""
    default = BotLimits()
    return BotLimits(getattr(args, "move_seconds", default.move_seconds),
                     getattr(args, "bot_memory", default.memory_mb),
                     getattr(args, "bot_startup", default.startup_seconds))


def engine_factory(args: argparse.Namespace) -> engines.EngineFactory:
    """The engines, the bots of users' own under the limits ``args`` give."""
    return engines.EngineFactory(bot_limits(args))


# ------------------------------------------------------------------ players
def make_player(spec: str, seed: int | None, state: State | None = None,
                limits: BotLimits | None = None) -> Agent | None:
    """None for a human, else the engine built from ``spec`` (checked first, in
    milliseconds, to play the game of ``state`` when given; a bot of a user's own is
    loaded in its process, under ``limits``)."""
    if spec.strip().lower() == "human":
        return None
    limits = limits or BotLimits()
    engines.check_engine(spec, state, limits)
    agent = engines.create_seeded(spec, seed, limits)
    agent.start()  # a program that cannot start is an error now, not at its first move
    return agent


def seed_for(seed: int | None, offset: int) -> int | None:
    return None if seed is None else seed + offset


# ------------------------------------------------------------------ records
class RecordedGame(NamedTuple):
    """A game read back from a record: its states, first to last, a one-line
    title, the recorded result, how many opening plies were random and who
    played each colour (as the record names them)."""

    states: list[State]
    title: str
    result: str
    opening_plies: int = 0
    players: dict[Player, str] = {}


def load_record(path: Path, index: int = 0) -> RecordedGame:
    """An SGF file, or game ``index`` of a report folder's games.csv (or the file)."""
    if path.suffix.lower() == ".sgf":
        record = read_sgf_file(path)
        stones = len(record.setup[Player.black])
        return RecordedGame(list(sgf_to_state(record).history()),
                            f"{path.name}: {record.black or '?'} (black) vs {record.white or '?'} (white), "
                            f"{record.game}" + (f", {stones} handicap stones" if stones else ""), record.result,
                            players={p: name for p, name in ((Player.black, record.black),
                                                             (Player.white, record.white)) if name})
    records = recorded_games(path)
    if not 0 <= index < len(records):
        raise DlgoError(f"--index must be 0..{len(records) - 1} (dlgo replay {path} --list shows them)")
    r = records[index]
    states = replay(r.game, r.moves)
    first, second = states[0].game.side_names
    return RecordedGame(states, f"{r.game_id}: {r.black} ({first}) vs {r.white} ({second}), {r.game}, seed {r.seed}",
                        r.result, r.opening_plies, {Player.black: r.black, Player.white: r.white})
