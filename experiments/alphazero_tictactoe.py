"""AlphaZero learns tic-tac-toe from scratch, then faces every perfect opponent.

    python experiments/alphazero_tictactoe.py             # about two minutes on 2 cores, resumable
    python experiments/alphazero_tictactoe.py --quick     # seconds: tiny settings

Trains a small policy-value ResNet by self-play (``engines.neural.alphazero_training``;
data and checkpoints in ``--work``), then checks the claim that matters: with
search, the network never loses to perfect play, from either side. Perfect play
is every line an exact solver allows: at each opponent turn, every move that
keeps the game's value is tried, so the check covers all of them, not one
alpha-beta game. Writes ``history.csv``, ``learning_curve.png`` and
``summary.md`` to ``--out``, and copies the final network to ``--ship`` if given.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from dlgo.atomic import atomic_write
from dlgo.game import GameStateBase
from dlgo.games import new_game
from dlgo.solver import perfect_moves


def losses_against_perfect_play(agent, agent_side: str) -> tuple[int, int]:
    """(games lost, games played) by ``agent`` against every perfect opponent line."""
    lost = played = 0

    def walk(state: GameStateBase) -> None:
        nonlocal lost, played
        if state.is_over():
            played += 1
            winner = state.winner()
            lost += winner is not None and winner.name != agent_side
            return
        if state.next_player.name == agent_side:
            agent.new_game()  # no tree carried between branches
            walk(state.apply_move(agent.select_move(state)))
        else:
            for move in perfect_moves(state):
                walk(state.apply_move(move))

    walk(new_game("tictactoe"))
    return lost, played


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--iterations", type=int, default=20, help="training iterations (default 20)")
    parser.add_argument("--simulations", type=int, default=50, help="search per move when checking (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--out", default="reports/alphazero-tictactoe", help="report folder")
    parser.add_argument("--work", default="data/alphazero-tictactoe", help="run folder (resumable)")
    parser.add_argument("--ship", default=None, help="copy the final network here, e.g. checkpoints/tictactoe.keras")
    parser.add_argument("--quick", action="store_true", help="tiny settings: runs in seconds")
    args = parser.parse_args(argv)

    import engines
    from dlgo.plotting import plot_learning_curve
    from engines.neural.alphazero_training import AlphaZeroConfig, train_alphazero

    config = AlphaZeroConfig(game="tictactoe", blocks=2, filters=32, games=64, parallel=64, simulations=50,
                             buffer_games=1000, batch_size=128, train_steps=100, eval_games=10,
                             eval_simulations=50, baselines=["random", "alphabeta"], learning_rate=2e-3,
                             seed=args.seed)
    if args.quick:
        config = AlphaZeroConfig(game="tictactoe", blocks=1, filters=8, games=8, parallel=8, simulations=8,
                                 train_steps=5, eval_games=2, eval_simulations=4, seed=args.seed)
        args.iterations, args.simulations = 2, 4
    out, work = Path(args.out), Path(args.work)
    out.mkdir(parents=True, exist_ok=True)
    history = train_alphazero(work, config, args.iterations)
    seconds = history["seconds"].sum()  # over all iterations, resumed runs included
    checkpoint = work / "checkpoint.keras"
    agent = engines.create(f"alphazero:checkpoint={checkpoint},simulations={args.simulations},reuse=false")
    results = {side: losses_against_perfect_play(agent, side) for side in ("black", "white")}

    with atomic_write(out / "history.csv") as handle:
        history.to_csv(handle, index=False)
    plot_learning_curve(history, out / "learning_curve.png", title="AlphaZero on tic-tac-toe", x="iteration",
                        losses=("loss", "policy_loss", "value_loss"),
                        scores=("score_vs_random", "score_vs_alphabeta"), score_label="score against baselines")
    if args.ship:
        Path(args.ship).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(checkpoint, args.ship)
    last = history.iloc[-1]
    lines = ["# AlphaZero on tic-tac-toe", "",
             f"Reproduce: `python experiments/alphazero_tictactoe.py{' --quick' if args.quick else ''} "
             f"--iterations {args.iterations} --seed {args.seed}`", "",
             f"{len(history)} iterations of {config.games} self-play games ({config.simulations} simulations per "
             f"move), a {config.blocks}-block, {config.filters}-filter ResNet: {seconds:.0f} s of training "
             "(self-play, learning and the scores below) on this machine.", "",
             "## Against perfect play", "",
             f"With {args.simulations} simulations per move, against every line a perfect opponent can choose:", "",
             "| the network plays | games (perfect lines) | lost |", "|---|---:|---:|"]
    for side, (lost, played) in results.items():
        lines.append(f"| {side} | {played} | {lost} |")
    verdict = "never loses" if all(lost == 0 for lost, _ in results.values()) else "does lose"
    lines += ["", f"The trained network **{verdict}** to perfect play.", "",
              "## Training", "", f"Last iteration: loss {last['loss']:.3f} (policy {last['policy_loss']:.3f}, "
              f"value {last['value_loss']:.3f}); score against random {last['score_vs_random']:.0%}"
              + (f", against alpha-beta {last['score_vs_alphabeta']:.0%}" if "score_vs_alphabeta" in last else "")
              + ".", "", "![learning curve](learning_curve.png)", ""]
    with atomic_write(out / "summary.md") as handle:
        handle.write("\n".join(lines))
    for side, (lost, played) in results.items():
        print(f"network as {side}: lost {lost} of {played} games against perfect play")
    print(f"report: {out}/summary.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
