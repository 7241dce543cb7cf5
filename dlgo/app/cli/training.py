"""``dlgo train-supervised``, ``evaluate-predictor``, ``train-rollout``, ``train-patterns``,
``train-alphazero``, ``pack-run`` and ``train-rl``: networks (and AlphaGo's rollout policy)
learned from data sets or by playing. TensorFlow (and pandas, matplotlib) are
imported by the command that trains, not before."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dlgo.app.cli.shared import add_config_options, add_ray_option, config_from_args
from dlgo.core.arguments import count, number
from dlgo.core.errors import SpecError
from engines.training.accuracy import evaluate_predictor, evaluate_value
from engines.training.alphazero_config import AlphaZeroConfig
from engines.training.rl_config import RLConfig
from engines.training.rollout_policy import train_rollout
from engines.training.run_folder import pack_run
from engines.training.solver_data import MEASURE_FILES, POLICIES, SolverSettings, read_solved


def register(sub: argparse._SubParsersAction) -> None:
    add_train_supervised(sub)

    p = sub.add_parser("evaluate-predictor", help="a move predictor's accuracy on held-out games")
    p.add_argument("--model", required=True, help="a .keras file from `dlgo train-supervised`")
    p.add_argument("--data", required=True, help="dataset folder")
    p.add_argument("--split", default="test", choices=["train", "val", "test"], help="which games (default test)")
    p.add_argument("--teacher-positions", type=count("positions", 0), default=0,
                   help="also ask the generating engine again on this many positions (default 0)")
    p.add_argument("--seed", type=int, default=0, help="seed for the teacher sample (default 0)")
    p.set_defaults(func=cmd_evaluate_predictor)

    p = sub.add_parser("train-rollout", help="fit a fast Go rollout policy to a dataset's moves (minutes)")
    p.add_argument("--data", required=True, help="dataset folder of Go games (`dlgo generate`, `dlgo import-sgf`)")
    p.add_argument("--out", required=True,
                   help="the policy file, e.g. runs/rollout-go9.npz (play it: mcts:rollout=...)")
    p.add_argument("--epochs", type=count("steps"), default=20, help="passes over the training games (default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed for the order of the examples (default 0)")
    p.set_defaults(func=cmd_train_rollout)

    p = sub.add_parser("train-patterns", help="rate Go move patterns by a dataset's moves (Coulom's Elo ratings; "
                                              "minutes): priors for mcts-go")
    p.add_argument("--data", required=True, help="dataset folder of Go games (`dlgo generate`, `dlgo import-sgf`)")
    p.add_argument("--out", required=True, help="the patterns file, e.g. runs/patterns-go9.npz "
                                                "(play with it: mcts-go:patterns=...)")
    p.add_argument("--passes", type=count("steps"), default=50, help="rounds of MM updates at most (default 50)")
    p.set_defaults(func=cmd_train_patterns)

    p = sub.add_parser("train-alphazero", help="AlphaZero self-play training; resumable")
    p.add_argument("--out", required=True, help="run folder, e.g. runs/az-ttt (rerun to resume or extend)")
    p.add_argument("--iterations", type=count("steps"), default=10,
                   help="train until this many iterations (default 10)")
    p.add_argument("--workers", type=count("processes"), default=1,
                   help="self-play processes, each with its own copy of the network (default 1)")
    p.add_argument("--sgf", action="store_true", help="keep Go self-play games as SGF in OUT/selfplay-sgf/")
    add_ray_option(p, "the self-play games (in --workers shares)")
    add_config_options(p, AlphaZeroConfig)
    p.set_defaults(func=cmd_train_alphazero)

    p = sub.add_parser("pack-run", help="a train-alphazero run's resume state copied into a small folder of its "
                                        "own (to commit, or to carry to another machine); resume from it as from "
                                        "the run")
    p.add_argument("run", help="the run folder (`dlgo train-alphazero --out`)")
    p.add_argument("pack", help="the folder to pack it into (an earlier pack there is brought up to date)")
    p.add_argument("--keep", type=count("steps"), nargs="+", default=[], metavar="ITERATION",
                   help="also keep these iterations' networks (those a report will measure; the last and the "
                        "published one are always kept)")
    p.set_defaults(func=cmd_pack_run)

    p = sub.add_parser("train-rl", help="reinforcement learning by generations (pg, q or ac); resumable")
    p.add_argument("--out", required=True, help="run folder, e.g. runs/pg-c4 (rerun to resume or extend)")
    p.add_argument("--generations", type=count("steps"), default=10,
                   help="train until this many generations (default 10)")
    add_ray_option(p, "each generation's games")
    add_config_options(p, RLConfig)
    p.set_defaults(func=cmd_train_rl)


def add_train_supervised(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train-supervised", help="train a move predictor (or a value network) on a dataset, or "
                                                "AlphaZero's network on solved positions; resumable")
    p.add_argument("--data", required=True, help="dataset folder from `dlgo generate` or `dlgo import-sgf`; with "
                                                 "--target solver, solved positions (`dlgo positions`: its "
                                                 "candidates.csv or positions.csv, or its folder)")
    p.add_argument("--out", required=True, help="run folder, e.g. runs/go9-small (rerun to resume)")
    p.add_argument("--model", default=None,
                   help="ch6, small, medium, large, tiny, or resnet (AlphaZero's; --target both), resnet6 "
                        "(deeper, thin heads: 19x19's) (default small)")
    p.add_argument("--encoder", default=None, help="oneplane, sevenplane, simple (Go) or planes (default: per game)")
    p.add_argument("--epochs", type=count("steps"), default=20, help="most epochs (default 20)")
    p.add_argument("--batch-size", type=count("positions"), default=128, help="batch size (default 128)")
    p.add_argument("--learning-rate", type=number(above=0), default=1e-3, help="Adam learning rate (default 0.001)")
    p.add_argument("--l2", type=number(least=0), default=None,
                   help=f"L2 weight decay (default 0; --target solver: {SolverSettings().l2:g}, AlphaZero's)")
    p.add_argument("--patience", type=count("steps"), default=None,
                   help="stop after this many epochs without a better val loss (default 4)")
    p.add_argument("--no-augment", action="store_true", help="do not train on rotated and mirrored boards")
    p.add_argument("--seed", type=int, default=0, help="seed for weights and shuffling (default 0)")
    p.add_argument("--target", default="move", choices=["move", "value", "both", "solver"],
                   help="learn the move played (a predictor, a policy), the game's result (a value network), "
                        "both on one network (a start for train-alphazero --init), or (solver) AlphaZero's network "
                        "learning solved positions' exact results: the ceiling of its self-play")
    p.add_argument("--positions-per-game", type=count("plies", 0), default=None,
                   help="learn from this many positions of each game, always the same ones (AlphaGo's value "
                        "network: 1; default 0: all)")
    solver = p.add_argument_group("--target solver", "AlphaZero's network learning from the solver")
    for name, about in SOLVER_NETWORK_OPTIONS:
        solver.add_argument("--" + name.replace("_", "-"), type=count("units", 0 if name == "blocks" else 1),
                            default=None,
                            help=f"{about} (default {getattr(SolverSettings(), name)})")
    solver.add_argument("--policy", default=None, choices=list(POLICIES),
                        help="policy target: uniform over the moves that keep the result (keeping, the default) "
                             "or over the best-scoring moves (best)")
    solver.add_argument("--learning-rate-drops", type=count("steps"), nargs="+", default=None, metavar="EPOCH",
                        help="epochs from which the learning rate is a tenth of what it was (default none)")
    solver.add_argument("--measure", default=None, metavar="FILE",
                        help="solved positions to measure the network on, its critical ones (`dlgo positions`' "
                             "positions.csv; default: none)")
    solver.add_argument("--simulations", type=count("simulations"), default=None,
                        help="simulations a move when measuring the network with search (default 64)")
    p.set_defaults(func=cmd_train_supervised)


#: --target solver's network options: the setting (its default: SolverSettings') and what it is
SOLVER_NETWORK_OPTIONS = (("blocks", "residual blocks of the network"),
                          ("filters", "convolution filters of each layer"),
                          ("policy_filters", "1x1 convolution filters of the policy head"),
                          ("value_filters", "1x1 convolution filters of the value head"))
#: the options that apply to one kind of target alone
SOLVER_ONLY = ("blocks", "filters", "policy_filters", "value_filters", "policy", "learning_rate_drops", "measure",
               "simulations")
DATASET_ONLY = ("model", "encoder", "patience", "positions_per_game")


def check_target_options(args: argparse.Namespace) -> None:
    """A :class:`SpecError` for an option that the ``--target`` asked for does not use."""
    solver = args.target == "solver"
    given = [name for name in (DATASET_ONLY if solver else SOLVER_ONLY) if getattr(args, name) is not None]
    if given:
        options = ", ".join("--" + name.replace("_", "-") for name in given)
        raise SpecError(f"{options}: not for --target {args.target}" + (
            " (it trains AlphaZero's network: --blocks, --filters, --policy-filters, --value-filters)" if solver
            else " (for --target solver alone)"))


def cmd_train_supervised(args: argparse.Namespace) -> int:
    check_target_options(args)
    if args.target == "solver":
        return cmd_train_solver(args)
    from dlgo.display.plotting import plot_learning_curve  # pandas, matplotlib
    from engines.training.supervised import train_supervised  # TensorFlow's lazy import

    args.model = args.model or "small"
    history = train_supervised(args.data, args.out, model=args.model, encoder=args.encoder, epochs=args.epochs,
                               batch_size=args.batch_size, learning_rate=args.learning_rate, l2=args.l2 or 0.0,
                               patience=args.patience or 4, augment=not args.no_augment, seed=args.seed,
                               target=args.target, positions_per_game=args.positions_per_game or 0)
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


def cmd_train_solver(args: argparse.Namespace) -> int:
    """``train-supervised --target solver``: AlphaZero's network on the solver's truth, then its mistakes."""
    named = ("blocks", "filters", "policy_filters", "value_filters", "l2", "policy", "learning_rate_drops")
    chosen = {name: getattr(args, name) for name in named if getattr(args, name) is not None}
    settings = SolverSettings(**chosen, batch_size=args.batch_size, learning_rate=args.learning_rate,
                              augment=not args.no_augment, seed=args.seed)
    positions = read_solved(args.data)  # a bad file or folder stops here, before TensorFlow loads
    measure = read_solved(args.measure, MEASURE_FILES) if args.measure else None
    from engines.training.solver_supervised import play_spec, train_on_solver  # TensorFlow's lazy import

    run = train_on_solver(positions, args.out, settings, epochs=args.epochs, measure=measure,
                          simulations=args.simulations or 64, names=(args.data, args.measure or ""))
    columns = [c for c in ("epoch", "loss", "val_loss", "val_mistakes_raw", "val_result_accuracy")
               if c in run.history]
    print_last_rows(run.history[columns])
    print(f"\n{run.positions:,} distinct positions learnt, {run.held_out:,} held out; published: epoch "
          f"{run.best_epoch}")
    if run.measured is not None:
        m = run.measured
        print(f"mistakes on {m.positions} critical positions of {m.file} ({m.seen} among the training positions):\n"
              f"  raw policy        {m.raw:6.1%} (95% interval {m.raw_low:.1%} to {m.raw_high:.1%})\n"
              f"  {m.simulations:>4} simulations  {m.search:6.1%} (95% interval {m.search_low:.1%} to "
              f"{m.search_high:.1%})")
    print(f"\nnetwork: {run.model}   summary: {Path(args.out) / 'summary.md'}\n"
          f"play it: dlgo play --game {run.game} --white {play_spec(run)}")
    return 0


def cmd_evaluate_predictor(args: argparse.Namespace) -> int:
    print_accuracy(evaluate_predictor(args.model, args.data, split=args.split,
                                      teacher_positions=args.teacher_positions, seed=args.seed))
    return 0


def print_accuracy(metrics: dict[str, Any]) -> None:
    print(f"\n{metrics['split']} positions: {metrics['positions']}")
    for key, label in (("top1", "top-1 accuracy"), ("top5", "top-5 accuracy"),
                       ("top1_legal", "top-1, illegal moves masked"), ("uniform", "uniform guess"),
                       ("uniform_legal", "uniform over legal moves"), ("teacher", "teacher's own agreement")):
        if key in metrics:
            print(f"  {label:<30} {metrics[key]:7.2%}")


def cmd_train_rollout(args: argparse.Namespace) -> int:
    metrics = train_rollout(args.data, args.out, epochs=args.epochs, seed=args.seed)
    print(f"{metrics['train_positions']:,} training positions; on {metrics['test_positions']:,} test positions "
          f"the move played has probability {metrics['likelihood']:.1%} on average (uniform: "
          f"{metrics['uniform']:.1%}), top-1 {metrics['top1']:.1%}, and {metrics['responses']:.0%} of the moves "
          f"answer the last one\nrollout policy: {args.out}   play with it: --engine mcts:rollout={args.out}")
    return 0


def cmd_train_patterns(args: argparse.Namespace) -> int:
    from engines.training.move_patterns import train_patterns  # numba: loaded where it runs

    fit = train_patterns(args.data, args.out, passes=args.passes)
    print(f"{fit.positions:,} training positions; on {fit.test_positions:,} test positions the favourite is the "
          f"move played {fit.top1:.1%} of the time (top 5: {fit.top5:.1%}; mean log-probability "
          f"{fit.log_evidence:.2f})\nmove patterns: {args.out}   play with them: --engine mcts-go:patterns={args.out}")
    return 0


def cmd_train_alphazero(args: argparse.Namespace) -> int:
    from engines.training.alphazero import plot_history, saved_config, train_alphazero  # TensorFlow

    config = config_from_args(args, AlphaZeroConfig, saved_config)
    history = train_alphazero(args.out, config, args.iterations, workers=args.workers, sgf=args.sgf, ray=args.ray)
    plot_history(history, Path(args.out) / "learning_curve.png", f"AlphaZero on {config.game}")
    print_last_rows(history)
    published = int(history["published"].iloc[-1]) if "published" in history else int(history["iteration"].iloc[-1])
    print(f"\npublished network (iteration {published}): {args.out}/checkpoint.keras   learning curve: "
          f"{args.out}/learning_curve.png\n"
          f"play it: dlgo play --game {config.game} --white alphazero:checkpoint={args.out}/checkpoint.keras")
    return 0


def cmd_pack_run(args: argparse.Namespace) -> int:
    files = pack_run(args.run, args.pack, args.keep)
    size = sum(path.stat().st_size for path in files)
    print(f"packed {len(files)} files ({size / 1e6:.1f} MB) of {args.run} into {args.pack}: resume it with "
          f"`dlgo train-alphazero --out {args.pack} --iterations N`, or copy it back over the run's folder")
    return 0


def cmd_train_rl(args: argparse.Namespace) -> int:
    from engines.training.rl import saved_config, train_rl  # TensorFlow

    config = config_from_args(args, RLConfig, saved_config)
    history = train_rl(args.out, config, args.generations, ray=args.ray)
    columns = [c for c in ("generation", "examples", "loss", "score_vs_previous", "p_value") if c in history]
    columns += [c for c in history.columns if c.startswith("score_vs_") and c not in columns]
    print_last_rows(history[columns])
    print(f"\nlatest network: {args.out}/current.keras   learning curve: {args.out}/learning_curve.png\n"
          f"play it: dlgo play --game {config.game} --white {config.method}:model={args.out}/current.keras")
    return 0


def print_last_rows(history: Any) -> None:
    """The last five rows of a run's history (a data frame), numbers to four significant digits."""
    print(history.tail(5).to_string(index=False, float_format=lambda value: f"{value:.4g}"))
