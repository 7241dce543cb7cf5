"""The ``dlgo`` command line.

    dlgo games                                   the games and their options
    dlgo engines                                 the engines, their parameters and defaults
    dlgo play --game connect4 --black human --white mcts:rounds=2000
    dlgo demo                                    bot-vs-bot games of each game
"""
from __future__ import annotations

import argparse
import dataclasses
import errno
import logging
import socket
import sys
import time
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

import engines
from dlgo.app import exercise_commands
from dlgo.app.kaggle_export import export_kaggle
from dlgo.app.console import ConsoleGame, describe_result
from dlgo.app.gtp_server import GtpFrontend
from dlgo.arena.report import EngineRow, write_report
from dlgo.arena.tournament import run_tournament
from dlgo.core.agent import Agent
from dlgo.core.arguments import number, whole
from dlgo.core.errors import DlgoError
from dlgo.core.game import State
from dlgo.core.types import Player
from dlgo.data.dataset import encode_dataset
from dlgo.data.generate import generate_games
from dlgo.data.sgf_import import import_sgf_folder
from dlgo.formats.atomic import atomic_write
from dlgo.formats.folders import check_output_file, check_output_folder
from dlgo.formats.pictures import render_game, render_position
from dlgo.formats.plotting import plot_learning_curve
from dlgo.formats.records import read_games, replay
from dlgo.formats.sgf import game_to_sgf, read_sgf_file, sgf_to_state
from dlgo.games import GAMES, game_options, new_game
from engines.analysis import analyze, render_analysis
from engines.neural.loading import load_network
from engines.training.accuracy import evaluate_predictor, evaluate_value
from engines.training.alphazero_config import AlphaZeroConfig
from engines.training.rl_config import RLConfig
from engines.training.rollout_policy import train_rollout

#: (game, black, white) for `dlgo demo`: one game each, a few seconds apiece.
DEMO_GAMES = [
    ("tictactoe", "alphabeta", "alphazero:checkpoint=tictactoe,simulations=50"),
    ("connect4", "alphazero:checkpoint=connect4,simulations=200", "mcts:rounds=2000"),
    ("go:size=9", "mcts:rounds=400", "random"),
]


def make_player(spec: str, seed: int | None) -> Agent | None:
    """None for a human, else the engine built from ``spec``."""
    if spec.strip().lower() == "human":
        return None
    agent = engines.create_seeded(spec, seed)
    agent.start()  # a program that cannot start is an error now, not at its first move
    return agent


def cmd_games(args: argparse.Namespace) -> int:
    for name, spec in GAMES.items():
        options = ", ".join(f"{k}={v!r}" for k, v in game_options(name).items()) or "-"
        print(f"{name:<10} {spec.description}\n{'':<10} options: {options}")
    return 0


def cmd_engines(args: argparse.Namespace) -> int:
    for name in engines.engine_names():
        print(f"{name:<10} {engines.engine_description(name)}")
        for p in engines.engine_parameters(name):
            kind = getattr(p.type, "__name__", str(p.type)).replace("NoneType", "None")
            print(f"{'':<12}{p.name}={p.default!r}  ({kind})")
    print("\nspec syntax: name or name:key=value,key=value   e.g. mcts:rounds=800,c=1.4,seed=1")
    return 0


def seed_for(seed: int | None, offset: int) -> int | None:
    return None if seed is None else seed + offset


def cmd_play(args: argparse.Namespace) -> int:
    state = new_game(args.game)
    if args.sgf and not state.game.has_sgf:
        raise DlgoError(f"--sgf records Go games; {state.game.name} games are kept as move lists (games.csv)")
    if args.sgf:
        check_output_file(args.sgf, (".sgf",))  # before the game, not after it
    players = {Player.black: make_player(args.black, seed_for(args.seed, 0)),
               Player.white: make_player(args.white, seed_for(args.seed, 1))}
    hint_spec = args.hint or next((p.spec for p in players.values() if p is not None), "mcts:rounds=1000")
    hint = make_player(hint_spec, seed_for(args.seed, 2)) if None in players.values() else None
    try:
        for agent in players.values():
            if agent is not None:
                agent.check_game(state)
        final = ConsoleGame(state, players, hint=hint, delay=args.delay).run()
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
    agent = make_player(args.engine, args.seed)
    if agent is None:
        raise DlgoError("--engine must be an engine spec, not human")
    GtpFrontend(agent, size=args.size, komi=args.komi, sgf_dir=args.sgf).serve()
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    records = run_tournament(engines.ENGINES, args.out, args.game, args.engines, args.games_per_pair, seed=args.seed,
                             opening_plies=args.opening_plies, workers=args.workers, ray=args.ray)
    rows = write_report(args.out, records, title=f"{args.game} round-robin")
    print_ratings(rows)
    print(f"\nreport: {args.out}/summary.md (games.csv, ratings.csv, crosstable.csv, strength_vs_compute.png)")
    return 0


def cmd_ratings(args: argparse.Namespace) -> int:
    path = Path(args.report) / "games.csv"
    records = read_games(path)
    if not records:
        raise DlgoError(f"no games in {path}")
    played = sorted({r.black for r in records} | {r.white for r in records})
    if args.anchor is not None and args.anchor not in played:
        raise DlgoError(f"--anchor {args.anchor!r} played no game here; the engines are: {', '.join(played)}")
    print_ratings(write_report(args.report, records, title=Path(args.report).name, anchor=args.anchor or "random"))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    path = Path(args.report)
    if args.list:
        games_file = path / "games.csv" if path.is_dir() else path
        records = read_games(games_file)
        if not records:
            raise DlgoError(f"no games in {games_file}")
        for i, r in enumerate(records):
            print(f"{i:4d}  {r.game_id:<48} {r.black} (B) vs {r.white} (W)  {r.result}")
        return 0
    game = load_record(path, args.index)
    print(game.title)
    print(game.states[0].render())
    for number, state in enumerate(game.states[1:], start=1):
        previous = game.states[number - 1]
        assert state.last_move is not None
        opening = "  (random opening)" if number <= game.opening_plies else ""
        print(f"\nmove {number}: {previous.next_player.name} {previous.format_move(state.last_move)}{opening}")
        print(state.render())
        if args.delay:
            time.sleep(args.delay)
    final = game.states[-1]
    print(f"\nresult: {describe_result(final) if final.is_over() else 'unfinished'}"
          + (f" (recorded: {game.result})" if game.result else ""))
    return 0


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
    records = read_games(path / "games.csv" if path.is_dir() else path)
    if not records:
        raise DlgoError(f"no games recorded in {path}")
    if not 0 <= index < len(records):
        raise DlgoError(f"--index must be 0..{len(records) - 1} (dlgo replay {path} --list shows them)")
    r = records[index]
    return RecordedGame(replay(r.game, r.moves), f"{r.game_id}: {r.black} (black) vs {r.white} (white), "
                        f"{r.game}, seed {r.seed}", r.result, r.opening_plies, {Player.black: r.black, Player.white: r.white})


def game_with_size(game: str, size: int | None) -> str:
    """``--game go --size 9`` -> ``go:size=9`` (``--size`` adds to the game spec)."""
    if size is None:
        return game
    return f"{game}{',' if ':' in game else ':'}size={size}"


def cmd_generate(args: argparse.Namespace) -> int:
    game = game_with_size(args.game, args.size)
    new_game(game)  # a bad game spec fails before any work
    records = generate_games(engines.ENGINES, args.out, game, args.engine, args.games, seed=args.seed,
                             opening_plies=args.opening_plies, workers=args.workers, batch=args.batch, ray=args.ray)
    plies = sum(r.plies - r.opening_plies for r in records)
    print(f"{len(records)} games, {plies} engine moves in {args.out}/games.csv")
    if args.encoder != "none":
        encode_dataset_verbose(args.out, args.encoder)
    return 0


def encode_dataset_verbose(folder: str, encoder: str | None) -> None:
    manifest = encode_dataset(folder, encoder)
    counts = ", ".join(f"{split} {n}" for split, n in manifest.split_sizes().items())
    print(f"encoded with {manifest.encoder}: {counts} positions -> {manifest.folder}")


def cmd_import_sgf(args: argparse.Namespace) -> int:
    imported, skipped = import_sgf_folder(args.source, args.out, size=args.size)
    print(f"imported {imported} games ({skipped} skipped) into {args.out}/games.csv")
    if args.encoder != "none":
        encode_dataset_verbose(args.out, args.encoder)
    return 0


def cmd_train_rollout(args: argparse.Namespace) -> int:
    metrics = train_rollout(args.data, args.out, epochs=args.epochs, seed=args.seed)
    print(f"{metrics['train_positions']:,} training positions; on {metrics['test_positions']:,} test positions "
          f"the move played has probability {metrics['likelihood']:.1%} on average (uniform: "
          f"{metrics['uniform']:.1%}), top-1 {metrics['top1']:.1%}, and {metrics['responses']:.0%} of the moves "
          f"answer the last one\nrollout policy: {args.out}   play with it: --engine mcts:rollout={args.out}")
    return 0


def cmd_train_supervised(args: argparse.Namespace) -> int:
    from engines.training.supervised import train_supervised  # TensorFlow's lazy import

    history = train_supervised(args.data, args.out, model=args.model, encoder=args.encoder, epochs=args.epochs,
                               batch_size=args.batch_size, learning_rate=args.learning_rate, l2=args.l2,
                               patience=args.patience, augment=not args.no_augment, seed=args.seed,
                               target=args.target, positions_per_game=args.positions_per_game)
    model = Path(args.out) / "model.keras"
    if args.target != "move":
        value = evaluate_value(model, args.data)
        print(f"\n{value['split']} positions: {value['positions']}\n"
              f"  mean squared error              {value['mse']:.3f} (always 0: {value['baseline_mse']:.3f})\n"
              f"  the sign names the winner       {value['winner']:7.2%}\n"
              f"  the same, second half of games  {value['late_winner']:7.2%}\n\n"
              f"value network: {model}   search with it: alphago:policy=...,value={model}")
        if args.target == "value":
            return 0
    metrics = evaluate_predictor(model, args.data)
    prefix = "" if args.target == "move" else "policy_"  # a two-headed network's metrics are named by head
    plot_learning_curve(history, Path(args.out) / "learning_curve.png", title=f"{args.model} on {args.data}",
                        baselines={"uniform over legal moves": metrics["uniform_legal"]},
                        scores=[f"{v}{prefix}{m}" for m in ("accuracy", "top5") for v in ("", "val_")])
    print_accuracy(metrics)
    if args.target == "both":
        print(f"\nnetwork: {model}   start AlphaZero from it: dlgo train-alphazero --init {model} --game ...")
    else:
        print(f"\nmodel: {model}   play it: dlgo play --black human --white predictor:model={model} --game ...")
    return 0


def cmd_evaluate_predictor(args: argparse.Namespace) -> int:

    print_accuracy(evaluate_predictor(args.model, args.data, split=args.split,
                                      teacher_positions=args.teacher_positions, seed=args.seed))
    return 0


def cmd_train_alphazero(args: argparse.Namespace) -> int:
    from engines.training.alphazero import plot_history, saved_config, train_alphazero  # TensorFlow

    config = config_from_args(args, AlphaZeroConfig, saved_config)
    history = train_alphazero(args.out, config, args.iterations, workers=args.workers, sgf=args.sgf, ray=args.ray)
    plot_history(history, Path(args.out) / "learning_curve.png", f"AlphaZero on {config.game}")
    print(history.tail(5).to_string(index=False))
    print(f"\nlatest network: {args.out}/checkpoint.keras   learning curve: {args.out}/learning_curve.png\n"
          f"play it: dlgo play --game {config.game} --white alphazero:checkpoint={args.out}/checkpoint.keras")
    return 0


def cmd_train_rl(args: argparse.Namespace) -> int:
    from engines.training.rl import saved_config, train_rl  # TensorFlow

    config = config_from_args(args, RLConfig, saved_config)
    history = train_rl(args.out, config, args.generations, ray=args.ray)
    columns = [c for c in ("generation", "examples", "loss", "score_vs_previous", "p_value") if c in history]
    columns += [c for c in history.columns if c.startswith("score_vs_") and c not in columns]
    print(history[columns].tail(5).to_string(index=False))
    print(f"\nlatest network: {args.out}/current.keras   learning curve: {args.out}/learning_curve.png\n"
          f"play it: dlgo play --game {config.game} --white {config.method}:model={args.out}/current.keras")
    return 0


def config_from_args(args: argparse.Namespace, cls: Any, saved: Callable[[str], Any]) -> Any:
    """A run's settings: the options given (the dataclass ``cls`` fills the rest),
    or with ``--resume`` the run's saved ones (and no options)."""
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if getattr(args, f.name, None) is not None}
    if args.resume:
        if values:
            raise DlgoError(f"--resume takes the run's saved settings; drop {', '.join(sorted(values))}")
        return saved(args.out)
    return cls(**values)


def add_config_options(parser: argparse.ArgumentParser, cls: Any) -> None:
    """``--resume``, and one option per field of the settings dataclass ``cls``
    (--games, ...), defaults from it (see :func:`config_from_args`)."""
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out with its saved settings (no need to repeat them)")
    defaults = cls()
    for f in dataclasses.fields(cls):
        default = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(default, list):
            parser.add_argument(flag, nargs="+", type=f.metadata.get("item", str), default=None,
                                help=f"(default {' '.join(map(str, default)) or 'none'})")
        elif isinstance(default, bool):  # --flag / --no-flag
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=None,
                                help=f"(default {'on' if default else 'off'})")
        else:
            parser.add_argument(flag, type=type(default), default=None, help=f"(default {default})")


def cmd_analyze(args: argparse.Namespace) -> int:
    if args.plot:
        check_output_file(args.plot, (".png",))
    loaded = load_network(args.model)
    state = new_game(args.game or loaded.encoder.game_spec)
    for text in args.moves.split():
        state = state.apply_move(state.parse_move(text))
    result = analyze(loaded, state, args.simulations, args.c)
    print(state.render())
    print(f"\n{state.next_player.name} to move" + ("" if result.value is None else f"; value {result.value:+.3f} "
          "(+1: a sure win for the player to move, -1: a sure loss)"))
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


def print_accuracy(metrics: dict[str, Any]) -> None:
    print(f"\n{metrics['split']} positions: {metrics['positions']}")
    for key, label in (("top1", "top-1 accuracy"), ("top5", "top-5 accuracy"),
                       ("top1_legal", "top-1, illegal moves masked"), ("uniform", "uniform guess"),
                       ("uniform_legal", "uniform over legal moves"), ("teacher", "teacher's own agreement")):
        if key in metrics:
            print(f"  {label:<30} {metrics[key]:7.2%}")


def print_ratings(rows: Sequence[EngineRow]) -> None:
    print(f"\n{'engine':<32} {'Elo':>6}  {'95% interval':>15} {'games':>6} {'score':>6} {'s/move':>8}")
    for r in rows:
        print(f"{r.engine:<32} {r.elo:6.0f}  {r.elo_low:6.0f} to {r.elo_high:5.0f} {r.games:6d} "
              f"{r.score:6.1%} {r.seconds_per_move:8.4f}")


def cmd_demo(args: argparse.Namespace) -> int:
    for i, (game, black, white) in enumerate(DEMO_GAMES):
        if args.games and game.split(":")[0] not in args.games:
            continue
        print(f"\n=== {game}: {black} (black) vs {white} (white), seed {args.seed} ===\n")
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
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"dlgo: note: listening on {args.host}: anyone who can reach it can start games and engines",
              file=sys.stderr)
    print(f"dlgo: serving on http://{args.host}:{args.port}/  (Ctrl-C stops)", flush=True)
    serve(args.host, args.port, runs=args.runs, reports=args.reports, time_limit=args.time_limit,
          max_sessions=args.max_sessions)
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


def add_ray_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--ray [ADDRESS]``: the games on a Ray cluster (the distributed extra)."""
    parser.add_argument("--ray", nargs="?", const="auto", default=None, metavar="ADDRESS",
                        help=f"play {what} on a Ray cluster: auto (the one `ray start` runs here; the default "
                             "with no ADDRESS), HOST:PORT, or local (a private one for this run)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dlgo", description="The dlgo game-AI comparison suite.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("games", help="list the games and their options")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("engines", help="list the engines, their parameters and defaults")
    p.set_defaults(func=cmd_engines)

    p = sub.add_parser("play", help="play in the console: human or engine on each side")
    p.add_argument("--game", default="connect4",
                   help="game spec, e.g. connect4, tictactoe, go:size=9,komi=7.5 (default connect4)")
    p.add_argument("--black", default="human", help="'human' or an engine spec (default human)")
    p.add_argument("--white", default="mcts", help="'human' or an engine spec (default mcts)")
    p.add_argument("--hint", default=None, help="engine spec that answers 'hint' (default: the opponent's)")
    p.add_argument("--delay", type=number(least=0), default=0.0, help="seconds to pause after each engine move")
    p.add_argument("--seed", type=int, default=None, help="seed for the engines (black: seed, white: seed+1)")
    p.add_argument("--sgf", default=None, help="write the Go game's record to this SGF file")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("gtp", help="speak GTP on stdin/stdout for GoGui, Sabaki, gtp2ogs or a controller")
    p.add_argument("--engine", default="mcts:rounds=1000", help="engine spec (default mcts:rounds=1000)")
    p.add_argument("--size", type=whole(2), default=19, help="board size until the controller sets one (default 19)")
    p.add_argument("--komi", type=number(), default=7.5, help="komi until the controller sets it (default 7.5)")
    p.add_argument("--sgf", default=None, help="folder for each game's SGF record, rewritten after every move")
    p.add_argument("--seed", type=int, default=None, help="seed for the engine")
    p.set_defaults(func=cmd_gtp)

    p = sub.add_parser("tournament", help="round-robin between engines; resumable; writes a report")
    p.add_argument("--game", default="connect4", help="game spec (default connect4)")
    p.add_argument("--engines", nargs="+", required=True, help="engine specs, e.g. random mcts:rounds=100")
    p.add_argument("--games-per-pair", type=whole(1), default=10, help="games per pair, colours alternating (default 10)")
    p.add_argument("--out", required=True, help="report folder, e.g. reports/c4-demo (rerun to resume)")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    p.add_argument("--opening-plies", type=whole(0), default=2, help="random opening plies per game (default 2)")
    p.add_argument("--workers", type=whole(1), default=None, help="worker processes (default: all cores)")
    add_ray_option(p, "the games")
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("ratings", help="recompute ratings and the report from a folder's games.csv")
    p.add_argument("report", help="report folder holding games.csv")
    p.add_argument("--anchor", default=None, help="engine pinned at Elo 0 (default random, if it played)")
    p.set_defaults(func=cmd_ratings)

    p = sub.add_parser("replay", help="show a recorded game move by move")
    p.add_argument("report", help="report folder (or its games.csv), or an .sgf file")
    p.add_argument("--index", type=whole(0), default=0, help="which game (see --list; default 0)")
    p.add_argument("--list", action="store_true", help="list the recorded games")
    p.add_argument("--delay", type=number(least=0), default=0.0, help="seconds to pause after each move")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("generate", help="training data: an engine plays itself; resumable; encoded chunks")
    p.add_argument("--game", default="go", help="game spec (default go)")
    p.add_argument("--size", type=whole(2), default=None, help="board size, added to the game spec (e.g. 9)")
    p.add_argument("--engine", default="mcts:rounds=1000", help="the engine that plays (default mcts:rounds=1000)")
    p.add_argument("--games", type=whole(1), required=True, help="number of self-play games")
    p.add_argument("--out", required=True, help="dataset folder, e.g. data/go9-mcts (rerun to resume or extend)")
    p.add_argument("--seed", type=int, default=0, help="seed for the games (default 0)")
    p.add_argument("--opening-plies", type=whole(0), default=2, help="random opening plies, not used as labels (default 2)")
    p.add_argument("--workers", type=whole(1), default=None, help="worker processes (default: all cores)")
    p.add_argument("--batch", type=whole(0), default=0,
                   help="play this many games at once in one process, one network call for all of them "
                        "(network engines; default 0: a game per worker)")
    add_ray_option(p, "the games")
    p.add_argument("--encoder", default=None,
                   help="encode the games with this encoder (default: the game's default; 'none' to skip)")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("import-sgf", help="turn a folder of SGF game records into a dataset")
    p.add_argument("source", help="folder of .sgf files (searched recursively), or one file")
    p.add_argument("--out", required=True, help="dataset folder, e.g. data/kgs-19 (rerun to add new files)")
    p.add_argument("--size", type=whole(2), default=None, help="board size to keep (default: the first game's)")
    p.add_argument("--encoder", default=None, help="encoder (default: the game's default; 'none' to skip)")
    p.set_defaults(func=cmd_import_sgf)

    p = sub.add_parser("train-supervised", help="train a move predictor (or a value network) on a dataset; resumable")
    p.add_argument("--data", required=True, help="dataset folder from `dlgo generate` or `dlgo import-sgf`")
    p.add_argument("--out", required=True, help="run folder, e.g. runs/go9-small (rerun to resume)")
    p.add_argument("--model", default="small",
                   help="ch6, small, medium, large, tiny, or resnet (AlphaZero's; --target both) (default small)")
    p.add_argument("--encoder", default=None, help="oneplane, sevenplane, simple (Go) or planes (default: per game)")
    p.add_argument("--epochs", type=whole(1), default=20, help="most epochs (default 20)")
    p.add_argument("--batch-size", type=whole(1), default=128, help="batch size (default 128)")
    p.add_argument("--learning-rate", type=number(above=0), default=1e-3, help="Adam learning rate (default 0.001)")
    p.add_argument("--l2", type=number(least=0), default=0.0, help="L2 weight decay (default 0)")
    p.add_argument("--patience", type=whole(1), default=4, help="stop after this many epochs without a better val loss")
    p.add_argument("--no-augment", action="store_true", help="do not train on rotated and mirrored boards")
    p.add_argument("--seed", type=int, default=0, help="seed for weights and shuffling (default 0)")
    p.add_argument("--target", default="move", choices=["move", "value", "both"],
                   help="learn the move played (a predictor, a policy), the game's result (a value network), or "
                        "both on one network (a start for train-alphazero --init)")
    p.add_argument("--positions-per-game", type=whole(0), default=0,
                   help="learn from this many positions of each game, always the same ones (AlphaGo's value "
                        "network: 1; default 0: all)")
    p.set_defaults(func=cmd_train_supervised)

    p = sub.add_parser("evaluate-predictor", help="a move predictor's accuracy on held-out games")
    p.add_argument("--model", required=True, help="a .keras file from `dlgo train-supervised`")
    p.add_argument("--data", required=True, help="dataset folder")
    p.add_argument("--split", default="test", choices=["train", "val", "test"], help="which games (default test)")
    p.add_argument("--teacher-positions", type=whole(0), default=0,
                   help="also ask the generating engine again on this many positions (default 0)")
    p.add_argument("--seed", type=int, default=0, help="seed for the teacher sample (default 0)")
    p.set_defaults(func=cmd_evaluate_predictor)

    p = sub.add_parser("train-rollout", help="fit a fast Go rollout policy to a dataset's moves (minutes)")
    p.add_argument("--data", required=True, help="dataset folder of Go games (`dlgo generate`, `dlgo import-sgf`)")
    p.add_argument("--out", required=True, help="the policy file, e.g. runs/rollout-go9.npz (play it: mcts:rollout=...)")
    p.add_argument("--epochs", type=whole(1), default=20, help="passes over the training games (default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed for the order of the examples (default 0)")
    p.set_defaults(func=cmd_train_rollout)

    p = sub.add_parser("train-alphazero", help="AlphaZero self-play training; resumable")
    p.add_argument("--out", required=True, help="run folder, e.g. runs/az-ttt (rerun to resume or extend)")
    p.add_argument("--iterations", type=whole(1), default=10, help="train until this many iterations (default 10)")
    p.add_argument("--workers", type=whole(1), default=1,
                   help="self-play processes, each with its own copy of the network (default 1)")
    p.add_argument("--sgf", action="store_true", help="keep Go self-play games as SGF in OUT/selfplay-sgf/")
    add_ray_option(p, "the self-play games (in --workers shares)")
    add_config_options(p, AlphaZeroConfig)
    p.set_defaults(func=cmd_train_alphazero)

    p = sub.add_parser("train-rl", help="reinforcement learning by generations (pg, q or ac); resumable")
    p.add_argument("--out", required=True, help="run folder, e.g. runs/pg-c4 (rerun to resume or extend)")
    p.add_argument("--generations", type=whole(1), default=10, help="train until this many generations (default 10)")
    add_ray_option(p, "each generation's games")
    add_config_options(p, RLConfig)
    p.set_defaults(func=cmd_train_rl)

    p = sub.add_parser("analyze", help="a network's policy (and value) for a position, printed and plotted")
    p.add_argument("--model", required=True,
                   help="a .keras file (predictor or AlphaZero network) or a shipped network's name (connect4)")
    p.add_argument("--game", default=None, help="game spec (default: the network's own game)")
    p.add_argument("--moves", default="", help='moves from the start, e.g. "b2 a1"')
    p.add_argument("--top", type=whole(1), default=5, help="how many moves to list (default 5)")
    p.add_argument("--plot", default=None, help="also draw the policy (or the visits) on the board, to this PNG")
    p.add_argument("--simulations", type=whole(0), default=0,
                   help="also search this many PUCT simulations and show the visit counts (AlphaZero networks)")
    p.add_argument("--c", type=number(above=0), default=1.5, help="PUCT exploration for --simulations (default 1.5)")
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser("render", help="draw a recorded game: a PNG of one position or an animated GIF")
    p.add_argument("record", help="an .sgf file, or a report folder (or its games.csv)")
    p.add_argument("--out", required=True, help="picture file: .png for one position, .gif for the whole game")
    p.add_argument("--index", type=whole(0), default=0, help="which game of games.csv (default 0; dlgo replay --list)")
    p.add_argument("--move", type=whole(0), default=None, help="PNG: the position after this many moves (default: the end)")
    p.add_argument("--seconds", type=number(above=0), default=0.7, help="GIF: seconds per move (default 0.7)")
    p.set_defaults(func=cmd_render)

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
    p.add_argument("--time-fraction", type=number(above=0), default=0.5,
                   help="share of ConnectX's time per move the search may use (default 0.5)")
    p.set_defaults(func=cmd_export_kaggle)

    p = sub.add_parser("serve", help="play, watch and analyse in the browser (the web extra)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=whole(1), default=8000, help="port (default 8000)")
    p.add_argument("--runs", default="runs", help="folder whose networks pages may play, beside checkpoints/ "
                                                  "(default runs)")
    p.add_argument("--reports", default=None, help="folder the report pages show (default: reports/ here, else "
                                                   "the suite's)")
    p.add_argument("--time-limit", type=number(above=0), default=10.0,
                   help="seconds an engine may think per move; past it (and a grace) it is stopped (default 10)")
    p.add_argument("--max-sessions", type=whole(1), default=32, help="games open at once, at most (default 32)")
    p.set_defaults(func=cmd_serve)

    exercise_commands.add_parser(sub)
    return parser


#: operating-system errors a user causes (a path, a permission, a full disk): one line, like DlgoError
USER_OS_ERRORS = (PermissionError, FileNotFoundError, FileExistsError, IsADirectoryError, NotADirectoryError)
USER_ERRNOS = (errno.ENOSPC, errno.EROFS, errno.ENAMETOOLONG, errno.EDQUOT, errno.ELOOP)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt as interrupt:  # Ctrl-C: quietly, saying what was kept
        print(f"\ninterrupted{': ' + str(interrupt) if str(interrupt) else ''}", file=sys.stderr)
        return 130
    except DlgoError as err:  # a user's mistake: one line; any other exception is a bug and keeps its traceback
        print(f"dlgo: error: {err or type(err).__name__}", file=sys.stderr)
        return 2
    except OSError as err:
        if not isinstance(err, USER_OS_ERRORS) and err.errno not in USER_ERRNOS:
            raise  # not the user's environment: a bug, with its traceback
        where = f": {err.filename}" if err.filename else ""
        print(f"dlgo: error: {err.strerror or err}{where}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
