"""``dlgo demo``, ``dlgo export-kaggle`` and ``dlgo serve``: the engines shown
off, in the console, as a Kaggle ConnectX agent and in the browser. The web
server (the web extra) is imported by ``serve`` alone."""
from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from dlgo.app.cli.shared import add_bot_limit_options, bot_limits, make_player, seed_for
from dlgo.app.console import ConsoleGame
from dlgo.app.kaggle_export import export_kaggle
from dlgo.core.arguments import MAX_PORT, count, number, seconds, whole
from dlgo.core.errors import DlgoError
from dlgo.core.types import Player
from dlgo.storage.folders import check_output_file
from dlgo.games import get_game, new_game

#: (game, black, white) for `dlgo demo`: one game each, a few seconds apiece.
DEMO_GAMES = [
    ("tictactoe", "alphabeta", "alphazero:checkpoint=tictactoe,simulations=50"),
    ("connect4", "alphazero:checkpoint=connect4,simulations=200", "mcts:rounds=2000"),
    ("go:size=9", "mcts:rounds=400", "random"),
]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="a bot-vs-bot game of each game in the console")
    p.add_argument("--games", nargs="+", choices=["tictactoe", "connect4", "go"], help="only these games")
    p.add_argument("--seed", type=int, default=1, help="seed for the engines (default 1)")
    p.add_argument("--delay", type=number(least=0), default=0.0, help="seconds to pause after each move")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("export-kaggle", help="an alphazero engine as one self-contained Kaggle ConnectX agent file")
    p.add_argument("--engine", default="alphazero:checkpoint=connect4,simulations=200",
                   help="an alphazero spec on a Connect-N network (default "
                        "alphazero:checkpoint=connect4,simulations=200)")
    p.add_argument("--out", required=True, help="the submission file, e.g. submission.py")
    p.add_argument("--time-fraction", type=number(above=0, most=1), default=0.5,
                   help="share of ConnectX's time per move the search may use, up to 1 (default 0.5)")
    p.set_defaults(func=cmd_export_kaggle)

    p = sub.add_parser("serve", help="play, watch and analyse in the browser (the web extra)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=whole(1, MAX_PORT), default=8000, help="port (default 8000)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="a host name pages may reach the server by, beside localhost and --host (repeatable; "
                        "with --host 0.0.0.0, the machine's name or address)")
    p.add_argument("--runs", default="runs", help="folder whose networks pages may play, beside checkpoints/ "
                                                  "(default runs)")
    p.add_argument("--reports", default=None, help="folder the report pages show (default: reports/ here, else "
                                                   "the suite's)")
    p.add_argument("--state", default=None, metavar="DIR",
                   help="folder where the games are kept, so that they survive a restart, with copies of the networks "
                        "they play (default: $XDG_STATE_HOME/dlgo/serve, i.e. ~/.local/state/dlgo/serve)")
    p.add_argument("--time-limit", type=seconds(), default=10.0,
                   help="seconds an engine may think per move; past it (and a grace) it is stopped (default 10)")
    p.add_argument("--start-limit", type=seconds(), default=60.0,
                   help="seconds an engine may take to start (load its network) before its search (default 60)")
    p.add_argument("--max-sessions", type=count("processes"), default=32,
                   help="games open at once, at most (default 32)")
    p.add_argument("--idle-minutes", type=number(above=0), default=60.0,
                   help="a game left this long without a request is closed with its engines (default 60)")
    p.add_argument("--max-engines", type=count("processes"), default=None,
                   help="engine processes alive at once, at most; beyond it the one idle longest is stopped "
                        "(default: one per 1.5 GB of memory)")
    p.add_argument("--bots", default=None, metavar="FOLDER",
                   help="offer every bot of your own in FOLDER (each *.py not starting with _) by its name, "
                        "under the limits below (default: none, and no file is ever loaded)")
    add_bot_limit_options(p)
    p.set_defaults(func=cmd_serve)


def cmd_demo(args: argparse.Namespace) -> int:
    for i, (game, black, white) in enumerate(DEMO_GAMES):
        if args.games and game.split(":")[0] not in args.games:
            continue
        first, second = get_game(game).side_names
        print(f"\n=== {game}: {black} ({first}) vs {white} ({second}), seed {args.seed} ===\n")
        players = {Player.black: make_player(black, seed_for(args.seed, 2 * i)),
                   Player.white: make_player(white, seed_for(args.seed, 2 * i + 1))}
        ConsoleGame(new_game(game), players, delay=args.delay).run()
    return 0


def cmd_export_kaggle(args: argparse.Namespace) -> int:
    check_output_file(args.out, (".py",))
    settings = export_kaggle(args.engine, args.out, time_fraction=args.time_fraction)
    size = Path(args.out).stat().st_size / 1e6
    print(f"wrote {args.out} ({size:.1f} MB): agent(observation, configuration) for ConnectX "
          f"{settings['columns']}x{settings['rows']}, {settings['inarow']} in a row; a {settings['blocks']}-block "
          f"network in numpy, up to {settings['simulations']} simulations a move")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    try:  # the web extra, imported by this command alone so that the others start without it
        from dlgo.app.web.server import serve
    except ImportError as err:
        raise DlgoError(f"dlgo serve needs the web extra ({err.name} is missing): "
                        "pip install 'dlgo-suite[web]'") from None
    check_port_free(args.host, args.port)

    def announce() -> None:  # once the state folder is held and the server built: nothing left to refuse
        if args.host not in ("127.0.0.1", "localhost", "::1"):
            print(f"dlgo: note: listening on {args.host}: anyone who can reach it can start games and engines",
                  file=sys.stderr)
        print(f"dlgo: serving on http://{args.host}:{args.port}/  (Ctrl-C stops)", flush=True)

    serve(args.host, args.port, args.allow_host, state=args.state, runs=args.runs, reports=args.reports,
          time_limit=args.time_limit, max_sessions=args.max_sessions, idle_seconds=60 * args.idle_minutes,
          start_seconds=args.start_limit, max_engines=args.max_engines, bots=args.bots,
          bot_limits=bot_limits(args), ready=announce)
    return 0


def check_port_free(host: str, port: int) -> None:
    """A one-line :class:`DlgoError` if ``host:port`` cannot be listened on (in use, no such address)."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as err:
        raise DlgoError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
