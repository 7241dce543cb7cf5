"""``dlgo generate``, ``dlgo import-sgf`` and ``dlgo label-games``: data sets of
games, from an engine playing itself or from SGF records, and positions of any
games labelled with a teacher's move, encoded for training."""
from __future__ import annotations

import argparse

import engines
from dlgo.app.cli.shared import add_ray_option
from dlgo.core.arguments import count, whole
from dlgo.core.zobrist import MAX_BOARD_SIZE
from dlgo.data.dataset import encode_dataset
from dlgo.data.generate import generate_games
from dlgo.data.labels import label_games
from dlgo.data.sgf_import import import_sgf_folder
from dlgo.games import new_game


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="training data: an engine plays itself; resumable; encoded chunks")
    p.add_argument("--game", default="go", help="game spec (default go)")
    p.add_argument("--size", type=whole(2, MAX_BOARD_SIZE), default=None,
                   help="board size, added to the game spec (e.g. 9)")
    p.add_argument("--engine", default="mcts:rounds=1000", help="the engine that plays (default mcts:rounds=1000)")
    p.add_argument("--games", type=count("games"), required=True, help="number of self-play games")
    p.add_argument("--out", required=True, help="dataset folder, e.g. data/go9-mcts (rerun to resume or extend)")
    p.add_argument("--seed", type=int, default=0, help="seed for the games (default 0)")
    p.add_argument("--opening-plies", type=count("plies", 0), default=2,
                   help="random opening plies, not used as labels (default 2)")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    p.add_argument("--batch", type=count("games", 0), default=0,
                   help="play this many games at once in one process, one network call for all of them "
                        "(network engines; default 0: a game per worker)")
    add_ray_option(p, "the games")
    p.add_argument("--encoder", default=None,
                   help="encode the games with this encoder (default: the game's default; 'none' to skip)")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("import-sgf", help="turn a folder of SGF game records into a dataset")
    p.add_argument("source", help="folder of .sgf files (searched recursively), or one file")
    p.add_argument("--out", required=True, help="dataset folder, e.g. data/kgs-19 (rerun to add new files)")
    p.add_argument("--size", type=whole(2, MAX_BOARD_SIZE), default=None,
                   help="board size to keep (default: the first game's)")
    p.add_argument("--encoder", default=None, help="encoder (default: the game's default; 'none' to skip)")
    p.set_defaults(func=cmd_import_sgf)

    p = sub.add_parser("label-games", help="positions of any games labelled with a teacher's move (DAgger)")
    p.add_argument("source", help="a games.csv, or a folder with one (a tournament's, a report's), whose positions "
                   "are labelled")
    p.add_argument("--teacher", default="gnugo:level=10", help="the engine whose move labels each position "
                   "(default gnugo:level=10)")
    p.add_argument("--engine", default=None, help="label only the positions this engine spec moved in "
                   "(default: every position after the random opening)")
    p.add_argument("--out", required=True, help="dataset folder for the labelled positions (rerun to resume)")
    p.add_argument("--seed", type=int, default=0, help="seed for the teacher (default 0)")
    p.add_argument("--workers", type=count("processes"), default=1, help="games labelled at once (default 1)")
    p.add_argument("--encoder", default=None, help="encoder (default: the game's default; 'none' to skip)")
    p.set_defaults(func=cmd_label_games)


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


def cmd_import_sgf(args: argparse.Namespace) -> int:
    imported, skipped = import_sgf_folder(args.source, args.out, size=args.size)
    print(f"imported {imported} games ({skipped} skipped) into {args.out}/games.csv")
    if args.encoder != "none":
        encode_dataset_verbose(args.out, args.encoder)
    return 0


def cmd_label_games(args: argparse.Namespace) -> int:
    labelled = label_games(engines.ENGINES, args.source, args.out, args.teacher, engine=args.engine,
                           seed=args.seed, workers=args.workers)
    print(f"{len(labelled)} positions labelled with {args.teacher}'s moves in {args.out}/games.csv")
    if args.encoder != "none":
        encode_dataset_verbose(args.out, args.encoder)
    return 0


def encode_dataset_verbose(folder: str, encoder: str | None) -> None:
    manifest = encode_dataset(folder, encoder)
    counts = ", ".join(f"{split} {n}" for split, n in manifest.split_sizes().items())
    print(f"encoded with {manifest.encoder}: {counts} positions -> {manifest.folder}")
