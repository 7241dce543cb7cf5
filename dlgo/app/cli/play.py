"""``dlgo play`` (a game in the console, human or engine on each side) and
``dlgo gtp`` (an engine behind the Go Text Protocol)."""
from __future__ import annotations

import argparse
import logging
import sys

from dlgo.app.cli.shared import add_bot_limit_options, bot_limits, make_player, seed_for
from dlgo.app.console import ConsoleGame
from dlgo.app.gtp_server import GtpFrontend
from dlgo.core.arguments import number, whole
from dlgo.core.errors import DlgoError
from dlgo.core.game import State
from dlgo.core.types import Player
from dlgo.core.zobrist import MAX_BOARD_SIZE
from dlgo.storage.atomic import atomic_write
from dlgo.storage.folders import check_output_file, check_output_folder
from dlgo.formats.sgf import game_to_sgf
from dlgo.games import new_game
from engines.bots import BotFault


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play in the console: human or engine on each side")
    p.add_argument("--game", default="connect4",
                   help="game spec, e.g. connect4, tictactoe, go:size=9,komi=7.5 (default connect4)")
    p.add_argument("--black", default="human", help="the first to move (Go's black, Connect Four's red, "
                                                     "tic-tac-toe's X): 'human' or an engine spec (default human)")
    p.add_argument("--white", default="mcts", help="the second (white, yellow, O): 'human' or an engine spec "
                                                   "(default mcts)")
    p.add_argument("--hint", default=None, help="engine spec that answers 'hint' (default: the opponent's)")
    p.add_argument("--delay", type=number(least=0), default=0.0, help="seconds to pause after each engine move")
    p.add_argument("--seed", type=int, default=None, help="seed for the engines (black: seed, white: seed+1)")
    p.add_argument("--sgf", default=None, help="write the Go game's record to this SGF file")
    add_bot_limit_options(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("gtp", help="speak GTP on stdin/stdout for GoGui, Sabaki, gtp2ogs or a controller")
    p.add_argument("--engine", default="mcts:rounds=1000", help="engine spec (default mcts:rounds=1000)")
    p.add_argument("--size", type=whole(2, MAX_BOARD_SIZE), default=None,
                   help="board size until the controller sets one (default: the network's own, else 19)")
    p.add_argument("--komi", type=number(), default=None,
                   help="komi until the controller sets it (default: the network's own, else 7.5)")
    p.add_argument("--sgf", default=None, help="folder for each game's SGF record, rewritten after every move")
    p.add_argument("--seed", type=int, default=None, help="seed for the engine")
    add_bot_limit_options(p)
    p.set_defaults(func=cmd_gtp)


def cmd_play(args: argparse.Namespace) -> int:
    state = new_game(args.game)
    if args.sgf and not state.game.has_sgf:
        raise DlgoError(f"--sgf records Go games; {state.game.name} games are kept as move lists (games.csv)")
    if args.sgf:
        check_output_file(args.sgf, (".sgf",))  # before the game, not after it
    limits = bot_limits(args)
    players = {Player.black: make_player(args.black, seed_for(args.seed, 0), state, limits),
               Player.white: make_player(args.white, seed_for(args.seed, 1), state, limits)}
    hint_spec = args.hint or next((p.spec for p in players.values() if p is not None), "mcts:rounds=1000")
    hint = make_player(hint_spec, seed_for(args.seed, 2), state, limits) if None in players.values() else None
    console = ConsoleGame(state, players, hint=hint, delay=args.delay)
    try:
        final = console.run()
    except BotFault as fault:  # a bot of the user's own broke the contract: one line, no traceback
        side = console.state.next_player
        who = console.label(side) if players[side] is not None else f"the hint engine {hint_spec}"
        raise DlgoError(f"{who} broke the contract after {console.state.num_moves_played} moves, and the game "
                        f"ends: {fault}") from None
    finally:
        for agent in [*players.values(), hint]:
            if agent is not None:
                agent.close()
    if args.sgf:
        save_sgf(args.sgf, final, *(args.black, args.white))
        print(f"game record: {args.sgf}")
    return 0


def save_sgf(path: str, state: State, black: str, white: str) -> None:
    """Write a Go game's record."""
    outcome = state.outcome()
    result = outcome.text if outcome is not None else ""
    with atomic_write(path) as handle:
        handle.write(game_to_sgf(state, black, white, result))


def cmd_gtp(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)  # stdout carries the protocol
    if args.sgf:
        check_output_folder(args.sgf)
    agent = make_player(args.engine, args.seed, limits=bot_limits(args))
    if agent is None:
        raise DlgoError("--engine must be an engine spec, not human")
    GtpFrontend(agent, size=args.size, komi=args.komi, sgf_dir=args.sgf).serve()
    return 0
