"""``dlgo analyze`` (what a network sees in a position) and ``dlgo render``
(a recorded game as a picture). Matplotlib is imported by the command that
draws, not before (``dlgo --help`` starts without it)."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from dlgo.app.cli.shared import load_record
from dlgo.core.arguments import count, number
from dlgo.core.errors import DlgoError
from dlgo.storage.folders import check_output_file
from dlgo.games import new_game
from engines.neural.loading import load_network


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("analyze", help="a network's policy (and value) for a position, printed and plotted")
    p.add_argument("--model", required=True,
                   help="a .keras file (predictor or AlphaZero network) or a shipped network's name (connect4)")
    p.add_argument("--game", default=None, help="game spec (default: the network's own game)")
    p.add_argument("--moves", default="", help='moves from the start, e.g. "b2 a1"')
    p.add_argument("--top", type=count("plies"), default=5, help="how many moves to list (default 5)")
    p.add_argument("--plot", default=None, help="also draw the policy (or the visits) on the board, to this PNG")
    p.add_argument("--simulations", type=count("simulations", 0), default=0,
                   help="also search this many PUCT simulations and show the visit counts (AlphaZero networks)")
    p.add_argument("--c", type=number(above=0), default=1.5, help="PUCT exploration for --simulations (default 1.5)")
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser("render", help="draw a recorded game: a PNG of one position or an animated GIF")
    p.add_argument("record", help="an .sgf file, or a report folder (or its games.csv)")
    p.add_argument("--out", required=True, help="picture file: .png for one position, .gif for the whole game")
    p.add_argument("--index", type=count("games", 0), default=0,
                   help="which game of games.csv (default 0; dlgo replay --list)")
    p.add_argument("--move", type=count("plies", 0), default=None,
                   help="PNG: the position after this many moves (default: the end)")
    p.add_argument("--seconds", type=number(above=0), default=0.7, help="GIF: seconds per move (default 0.7)")
    p.set_defaults(func=cmd_render)


def cmd_analyze(args: argparse.Namespace) -> int:
    from engines.analysis import analyze, render_analysis  # matplotlib

    if args.plot:
        check_output_file(args.plot, (".png",))
    loaded = load_network(args.model)
    state = new_game(args.game or loaded.encoder.game_spec)
    for text in args.moves.split():
        state = state.apply_move(state.parse_move(text))
    result = analyze(loaded, state, args.simulations, args.c)
    print(state.render())
    value = "" if result.value is None else \
        f"; value {result.value:+.3f} (+1: a sure win for the player to move, -1: a sure loss)"
    print(f"\n{state.game.side_name(state.next_player)} to move{value}")
    legal = state.legal_action_mask()
    for index in np.argsort(-result.policy)[: args.top]:
        mark = "" if legal[index] else "  (illegal)"
        print(f"  {state.format_move(state.index_to_move(int(index))):>6} {result.policy[index]:7.1%}{mark}")
    if args.simulations and result.value is None:
        print("\n(a policy-only network has no value head to search with: --simulations ignored)")
    if result.visits is not None and result.q is not None:
        print(f"\nafter {args.simulations} simulations (c={args.c:g}):")
        for index in np.argsort(-result.visits)[: args.top]:
            if result.visits[index]:
                print(f"  {state.format_move(state.index_to_move(int(index))):>6} {int(result.visits[index]):7d} "
                      f"visits  Q {result.q[index]:+.3f}")
    if args.plot:
        render_analysis(state, result, args.plot, title=args.model)
        print(f"\nplot: {args.plot}")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from dlgo.display.pictures import render_game, render_position  # matplotlib

    check_output_file(args.out, (".png", ".gif"))
    game = load_record(Path(args.record), args.index)
    states, name = game.states, game.states[-1].game.name
    if args.out.lower().endswith(".gif"):
        render_game(states, args.out, seconds_per_move=args.seconds, title=name, players=game.players)
    else:
        move = len(states) - 1 if args.move is None else args.move
        if not 0 <= move < len(states):
            raise DlgoError(f"--move must be 0..{len(states) - 1}")
        render_position(states[move], args.out, title=f"{name}  move {move}", players=game.players)
    print(f"picture: {args.out}")
    return 0
