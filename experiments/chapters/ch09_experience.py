"""Chapter 9: experience. What does a game teach each of its moves?

    python experiments/chapters/ch09_experience.py                 # about a minute
    python experiments/chapters/ch09_experience.py --game go:size=9 --games 200
    python experiments/chapters/ch09_experience.py --quick

Reinforcement learning learns from its own games. Here ``mcts:rounds=50`` plays
``random`` (--black and --white; colours alternate) and every move is recorded
as **experience**: the position the mover saw (encoded for a network), the
action they chose and their **reward**, +1 if they went on to win, -1 if they
lost, 0 for a draw (``dlgo/data/experience.py``). The buffer is a folder of
compressed ``.npz`` chunks with a ``manifest.json``: a second batch of games
(half of --games, then the rest) is appended as a new chunk, never by rewriting
the first, and a killed collection resumes with no game lost or played twice.

Writes ``buffer.csv`` (what the buffer holds, per engine), ``rewards.png``
(one game's rewards, move by move, as the game's result and discounted) and
``summary.md`` to --out; the buffer itself goes to --work.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from dlgo.core.arguments import count
from dlgo.data.experience import (Experience, ExperienceManifest, collect_experience, discounted_rewards,
                                  load_experience, move_numbers)
from dlgo.storage.atomic import atomic_write
from dlgo.display.plotting import new_figure, save_figure
from dlgo.formats.records import GameRecord, read_games
from engines.registry import ENGINES
from experiments.shared import chapters


def plot_rewards(rewards: np.ndarray, discount: float, path: Path, title: str) -> None:
    """One game's rewards, one bar per recorded move: the result each move is
    credited with, and the same discounted by ``discount`` per later move."""
    fig, axis = new_figure((9, 3.5))
    moves = np.arange(1, len(rewards) + 1)
    later = len(rewards) - moves
    axis.bar(moves - 0.2, rewards, width=0.4, label="the game's result (as the book)")
    axis.bar(moves + 0.2, rewards * discount ** later, width=0.4, label=f"discounted by {discount:g} per later move")
    axis.axhline(0, color="grey", linewidth=0.8)
    axis.set(xlabel="move of the game", ylabel="reward for the mover", ylim=(-1.1, 1.1), title=title)
    axis.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
    save_figure(fig, path)


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    chapters.take_folders(args)
    out, work = Path(args.out), Path(args.work)
    manifest = collect(args, work)
    experience = load_experience(work)
    records = {r.game_id: r for r in read_games(work / "games.csv")}
    table = rewards_by_engine(args, experience, records, manifest)
    with atomic_write(out / "buffer.csv") as handle:
        table.to_csv(handle, index=False)
    draw_one_game(args, experience, records, manifest, out / "rewards.png")
    discounted = discounted_rewards(experience, args.discount)
    body = _summary_body(args, manifest, experience.states.shape, table, discounted, work)
    summary = chapters.write_summary(out, "Chapter 9: experience from self-play", chapters.command(__file__, argv),
                                     body, what_to_look_for(table, args.black))
    print(table.to_string(index=False))
    print(f"report: {summary}")
    return 0


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line, checked (``--quick``: tiny settings)."""
    p = chapters.parser(__file__, __doc__, work="the buffer's folder")
    p.add_argument("--game", default="connect4", help="the game (default connect4)")
    p.add_argument("--games", type=count("games"), default=400, help="games to collect (default 400)")
    p.add_argument("--black", default="mcts:rounds=50", help="one engine (default mcts:rounds=50)")
    p.add_argument("--white", default="random", help="the other engine (default random)")
    p.add_argument("--discount", type=float, default=0.95, help="the discount drawn in rewards.png (default 0.95)")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    args = p.parse_args(argv)
    if args.quick:
        args.games, args.black = 6, "mcts:rounds=5"
    args.black, args.white = (chapters.course_spec(spec, args.game) for spec in (args.black, args.white))
    if args.games < 2 or not 0 < args.discount <= 1:
        p.error("--games must be at least 2 and --discount in (0, 1]")
    return args


def collect(args: argparse.Namespace, work: Path) -> ExperienceManifest:
    """The games' experience in ``work``, in two batches: half the games, then the
    rest, appended as a new chunk. Returns the buffer's manifest."""
    for total in (args.games // 2, args.games):
        print(f"collect: {args.black} against {args.white}, {total} games in all -> {work}", flush=True)
        manifest = collect_experience(ENGINES, work, args.game, args.black, args.white, total, seed=args.seed,
                                      workers=args.workers)
    return manifest


def rewards_by_engine(args: argparse.Namespace, experience: Experience, records: dict[str, GameRecord],
                      manifest: ExperienceManifest) -> pd.DataFrame:
    """What the buffer holds for each engine: its moves and the share rewarded +1, -1 and 0."""
    movers = np.array([_mover_spec(records[manifest.game_ids[g]], k)
                       for g, k in zip(experience.games, move_numbers(experience.games))])
    rows = []
    for spec in (args.black, args.white):
        mine = movers == spec
        rewards = experience.rewards[mine]
        rows.append({"engine": spec, "moves": int(mine.sum()), "won": float((rewards > 0).mean()),
                     "lost": float((rewards < 0).mean()), "drawn": float((rewards == 0).mean()),
                     "mean_reward": float(rewards.mean())})
    return pd.DataFrame(rows)


def draw_one_game(args: argparse.Namespace, experience: Experience, records: dict[str, GameRecord],
                  manifest: ExperienceManifest, path: Path) -> None:
    """The rewards of a game of median length, move by move, drawn to ``path``."""
    lengths = np.bincount(experience.games)
    game = int(np.argsort(lengths, kind="stable")[len(lengths) // 2])
    record = records[manifest.game_ids[game]]
    plot_rewards(experience.rewards[experience.games == game], args.discount, path,
                 f"{record.black} (first) vs {record.white}: {record.result}")


def what_to_look_for(table: pd.DataFrame, black: str) -> str:
    """The closing paragraph, with this run's rewards in it."""
    better, worse = (table.iloc[0], table.iloc[1]) if table.iloc[0].mean_reward >= table.iloc[1].mean_reward \
        else (table.iloc[1], table.iloc[0])
    return "\n".join(textwrap.wrap(
        "Every move of a won game gets +1 and every move of a lost one -1, the good moves of a loser and the "
        "blunders of a winner alike: the reward says how the game ended, not which move decided it. That is the "
        "**credit assignment problem**, and the reason the next chapters need many games: over thousands of games "
        "a move that tends to win collects more +1 than -1. Here "
        f"`{better.engine}`'s moves are {better.won:.0%} +1 and `{worse.engine}`'s {worse.won:.0%}; a learner "
        "trained on this buffer would learn to play like the side that won more. Discounting (the second bars) "
        "credits the last moves most: they decided the game more surely than the opening did. Predict, then "
        f"measure: against `--white {black}`, what share of each side's moves is +1?", 78,
        break_on_hyphens=False))


def _mover_spec(record: GameRecord, move: int) -> str:
    """The engine that made recorded move ``move`` of ``record`` (every move recorded, no random opening)."""
    return record.black if move % 2 == 0 else record.white


def _summary_body(args: argparse.Namespace, manifest: ExperienceManifest, shape: tuple[int, ...],
                  table: pd.DataFrame, discounted: np.ndarray, work: Path) -> list[str]:
    chunks = ", ".join(f"`{name}` ({n:,} moves)" for name, n in zip(manifest.chunks, manifest.positions))
    lines = [f"{len(manifest.game_ids)} games of {args.game}, `{args.black}` against `{args.white}`, colours "
             f"alternating; every move recorded as (position, action, reward). The positions are encoded as "
             f"`{manifest.encoder}` planes of shape {tuple(shape[1:])}, the actions as indices of "
             f"{manifest.num_moves} moves.", "",
             f"The buffer in `{work}/experience/`: {chunks}, listed in `manifest.json`. The second chunk was "
             "appended by a second collection; the first was never rewritten.", "",
             "| engine | moves | rewarded +1 | -1 | 0 | mean reward |", "|---|---:|---:|---:|---:|---:|"]
    for row in table.itertuples():
        lines.append(f"| `{row.engine}` | {row.moves:,} | {row.won:.0%} | {row.lost:.0%} | {row.drawn:.0%} | "
                     f"{row.mean_reward:+.2f} |")
    lines += ["", f"One game's rewards, move by move (discounting by {args.discount:g} per later move, the mean "
              f"absolute reward over the buffer falls from 1 to {np.abs(discounted).mean():.2f}):", "",
              "![rewards](rewards.png)"]
    return lines


if __name__ == "__main__":
    sys.exit(main())
