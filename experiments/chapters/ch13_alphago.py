"""Chapter 13: AlphaGo on 9x9 Go, learnt from GNU Go, searching with policy, value and fast rollouts.

    python experiments/chapters/ch13_alphago.py            # hours on 2 cores; resumable step by step
    python experiments/chapters/ch13_alphago.py --quick    # a minute: tiny settings

Needs GNU Go (Debian package ``gnugo``; ``make test`` installs it). The steps,
each resumable in ``--work``:

1. **Teacher.** GNU Go plays itself (``--teacher``, level 1 by default: a whole
   9x9 game in under a second, and GNU Go's levels rate within about 70 Elo of
   each other on 9x9), after four random opening plies. GNU Go is nearly
   deterministic (with another seed it repeats 98.5% of its moves): after two
   random plies, 40% of 11,706 games were exact repeats of another, and a
   repeat split between training and test games inflates the accuracy. Four
   random plies make every game new.
2. **Policy.** Chapter 7's network learns GNU Go's moves (AlphaGo's "SL policy").
   Its accuracy on held-out games is shown next to the teacher's agreement with
   itself: GNU Go asked again, with another seed, on the same positions.
3. **Rollout policy.** The fast linear softmax over local features learns the
   same moves (``dlgo train-rollout``).
4. **Self-play.** Policy gradients improve the policy (AlphaGo's "RL policy",
   ``dlgo train-rl --method pg --init``), learning from games against the SL
   policy (AlphaGo's pool of opponents, here its first member; each generation
   is scored against it) and from a few self-play games, with PPO's clipped
   surrogate (``--clip 0.2``). With the book's plain REINFORCE the policy
   collapsed here: its loss has no floor, and pushing losing moves towards
   probability zero ran it to -6.8 within 15 generations; in pure self-play
   white then lost every greedy game and 10,000 self-play games gave black
   99.5% of the wins (a value network learnt "black wins" and nothing else);
   against the SL policy it fell from 47% to 17.5% in 40 generations.
5. **Value.** A value network learns the result of each game from one position
   of it, as AlphaGo did, so that no two of its positions are near copies with
   one result: GNU Go's own games by default (the first step AlphaGo's recipe
   allows: a consistent player's results), or ``--value-data selfplay``, the
   RL policy's self-play (temperature 1).
6. **The match.** The SL policy alone, the RL policy alone, and ``alphago``
   (SL policy priors, value network and rollouts mixed by ``lam``, at most
   ``--seconds`` a move; the book's readable PUCT search, ``plain=true``) each play ``--opponent`` (GNU Go level 10),
   colours alternating, komi 7.5. Ratings are on GNU Go's scale: level 10 = 1800, as
   the Computer Go Server rated it.

Writes to ``--out``: ``teacher-games.csv.gz`` (another run starts from it with
``--teacher-games``, without GNU Go's two hours), ``accuracy.csv``, ``learning_curve.png`` (the policy),
``rollout.csv``, ``rl_curve.png``, ``value.csv``, ``match.csv``, one game and
``summary.md``. ``--ship`` copies the three networks to
``checkpoints/go9-policy.keras``, ``go9-value.keras`` and ``go9-rollout.npz``,
which ``alphago:checkpoint=go9`` plays from any folder.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from dlgo.core.arguments import count
from dlgo.arena.match import Task
from dlgo.arena.ratings import elo_from_score, wilson_interval
from dlgo.arena.tournament import play_games, task_seed
from dlgo.core.errors import DlgoError
from dlgo.data.generate import generate_games
from dlgo.storage.atomic import atomic_copy, atomic_write
from dlgo.storage.facts import update_facts
from dlgo.display.plotting import new_figure, save_figure
from dlgo.formats.records import read_games
from engines.checkpoints import ALPHAGO_ROLES, SET_FILES, SHIPPED
from engines.training.accuracy import evaluate_value
from engines.training.rl_config import RLConfig
from engines.registry import ENGINES
from engines.training.rollout_policy import train_rollout
from engines.rollouts import read_rollout_policy
from experiments.shared import chapters, ladders, supervised
from experiments.shared.go_matches import engine_minutes

GAME = "go:size=9,komi=7.5"
ANCHOR, ANCHOR_ELO = "gnugo:level=10", 1800.0  # GNU Go's rating on CGOS's 9x9 ladder

PRESET = supervised.Preset(name="ch13_alphago", game=GAME, teacher="gnugo:level=1", games=20000,
                           runs=[("small", "simple")], opponents=[], games_per_pair=0, epochs=10, batch_size=256,
                           opening_plies=4, games_file="teacher-games.csv.gz")

LOOK_FOR = """
- **The policy against its teacher's ceiling.** GNU Go is a deterministic
  program with a little randomness, so it repeats its own move far more often
  than MCTS does (chapter 6's teacher: 12.5%). A network that imitates a
  consistent teacher can come close to it.
- **Search on top of the same network.** The SL policy alone, then the same
  policy as priors of a search whose leaves are judged by a value network and
  rollouts: how much of the difference against GNU Go is the search's?
- **The RL policy.** AlphaGo's RL policy beat its SL policy 80% of the time,
  yet AlphaGo searched with the SL policy's priors: a broader policy leaves the
  search more to choose from. Here, compare the two networks alone against GNU Go.
- **The value network's accuracy** rises through a game: early positions are
  uncertain even for a perfect judge.
"""


def build_parser() -> argparse.ArgumentParser:
    p = supervised.supervised_parser(PRESET, __doc__, script=__file__, game_option=False)
    p.add_argument("--rollout-epochs", type=count("steps"), default=20,
                   help="passes of the rollout policy's fit (default 20)")
    p.add_argument("--rl-generations", type=count("steps", 0), default=40,
                   help="policy-gradient generations from the SL policy (default 40; 0 skips self-play)")
    p.add_argument("--rl-games", type=count("games"), default=20, help="self-play games per generation (default 20)")
    p.add_argument("--rl-sparring-games", type=count("games"), default=100,
                   help="games against the SL policy per generation, learnt from too (default 100)")
    p.add_argument("--value-data", choices=["selfplay", "teacher"], default="teacher",
                   help="the value network's games: the teacher's (default) or the RL policy's self-play")
    p.add_argument("--value-games", type=count("games"), default=10000,
                   help="self-play games for the value network (default 10000)")
    p.add_argument("--value-positions", type=count("plies"), default=1,
                   help="positions learnt from each of those games (default 1, as AlphaGo)")
    p.add_argument("--opponent", default=ANCHOR, help=f"the match's opponent (default {ANCHOR})")
    p.add_argument("--match-games", type=count("games"), default=40, help="games per engine (default 40)")
    p.add_argument("--seconds", type=float, default=2.0, help="alphago's time per move (default 2)")
    p.add_argument("--lam", type=float, default=0.5, help="the rollouts' share of a leaf's value (default 0.5)")
    p.add_argument("--ship", action="store_true", help="copy the networks to checkpoints/go9-*")
    return p


def quick(args: argparse.Namespace) -> None:
    """Tiny settings: a minute on 2 cores (tests and a first look)."""
    args.games, args.teacher, args.epochs, args.teacher_positions = 8, "gnugo:level=0", 1, 3
    args.rollout_epochs, args.rl_generations, args.rl_games, args.rl_sparring_games = 2, 1, 4, 4
    # alphago: a few batches of search a move, enough to exercise it (at 0.2 s its games took a third of the run)
    args.value_games, args.match_games, args.seconds = 6, 2, 0.05
    args.opponent = "gnugo:level=0"


def elo_against(score: float, games: int, anchor: float = ANCHOR_ELO) -> float:
    """The Elo of a player scoring ``score`` against a player rated ``anchor``
    (a sweep or a wipe-out counted as half a game short of it)."""
    return anchor + elo_from_score(score, games)


def epoch_minutes(run: Path) -> float:
    """A supervised run's training time in minutes, from its history (NaN for a history without times)."""
    history = pd.read_csv(run / "history.csv")
    return float(history["seconds"].sum()) / 60 if "seconds" in history else float("nan")


def plot_strength(match: pd.DataFrame, opponent: str, path: Path) -> None:
    """Score against the opponent (95% intervals) against the training time each engine needed."""
    fig, axis = new_figure((6.4, 4.2))
    for k, row in enumerate(match.itertuples()):
        axis.errorbar([row.training_minutes / 60], [row.score], yerr=[[row.score - row.low], [row.high - row.score]],
                      marker="o", capsize=4, color=f"C{k}", label=row.engine)
    axis.axhline(0.5, color="grey", linestyle=":")
    axis.set(xlabel="hours of computing before it plays (teacher's games, training, self-play)",
             ylabel=f"score against {opponent}", ylim=(-0.05, 1.05), title="strength against training time")
    axis.legend(fontsize="small")
    axis.grid(alpha=0.3)
    save_figure(fig, path)


def run(args: argparse.Namespace, argv: list[str] | None) -> int:
    """AlphaGo's recipe, step by step (each resumable in --work), then the match and the summary."""
    if args.quick:
        quick(args)
    chapters.check_engines([args.opponent], GAME)
    supervised.take_supervised_folders(GAME, args)
    out, work = Path(args.out), Path(args.work)
    table, teacher = learn_the_teachers_moves(args, out, work)  # 1-2
    sl_policy = Path(table["path"].iloc[0])
    minutes = {"teacher's games": engine_minutes(read_games(work / "games" / "games.csv")),
               "SL policy": epoch_minutes(sl_policy.parent)}
    rollout, rollout_info = fit_the_rollout_policy(args, out, work)  # 3
    rl_policy, rl_minutes, rl_score = improve_by_self_play(args, out, work, sl_policy)  # 4
    minutes["RL policy"] = rl_minutes
    value_run, value = learn_the_value(args, out, work, rl_policy, minutes)  # 5
    prefix = alphago_set(work, sl_policy, value_run / "model.keras", rollout)
    alphago = f"alphago:checkpoint={prefix},simulations=100000,seconds={args.seconds:g},lam={args.lam:g},plain=true"
    match, records = play_the_match(args, out, work, [f"predictor:model={sl_policy}", f"pg:model={rl_policy}",
                                                      alphago], list(minutes.values()))  # 6
    if args.ship:
        ship(prefix)
    summary = write(out, args, argv, table, teacher, rollout_info, (rl_minutes, rl_score), value, match, records,
                    alphago)
    print(match.drop(columns=["spec"]).to_string(index=False))
    print(f"report: {summary}")
    return 0


def learn_the_teachers_moves(args: argparse.Namespace, out: Path, work: Path) -> tuple[pd.DataFrame, dict]:
    """Steps 1-2: the teacher's games, the SL policy and its accuracy next to the teacher's own."""
    preset = replace(PRESET, teacher=args.teacher, games=args.games, epochs=args.epochs,
                     runs=[("tiny", "simple")] if args.quick else PRESET.runs)
    return supervised.generate_and_train(preset, args, out, work)


def fit_the_rollout_policy(args: argparse.Namespace, out: Path, work: Path) -> tuple[Path, dict]:
    """Step 3: the rollout policy (refitted when the teacher's games have changed); writes ``rollout.csv``.
    Returns its file and its figures."""
    rollout = work / "rollout.npz"
    n_games = len(read_games(work / "games" / "games.csv"))
    if not rollout.exists() or read_rollout_policy(rollout).info.get("games") != n_games:
        print(f"3. rollout policy: fit to {n_games} games -> {rollout}", flush=True)
        train_rollout(work / "games", rollout, epochs=args.rollout_epochs, seed=args.seed)
    info = read_rollout_policy(rollout).info
    with atomic_write(out / "rollout.csv") as handle:
        pd.DataFrame([info]).to_csv(handle, index=False)
    return rollout, info


def improve_by_self_play(args: argparse.Namespace, out: Path, work: Path, sl_policy: Path
                         ) -> tuple[Path, float, float]:
    """Step 4: policy gradients from the SL policy, learning against it and itself.
    Returns (the RL policy, its minutes of training, its last score against the SL policy);
    the SL policy itself, with no training, if ``--rl-generations 0``."""
    from engines.training.rl import plot_rl_history, train_rl  # loads TensorFlow

    if not args.rl_generations:
        return sl_policy, 0.0, float("nan")
    sl_player = f"pg:model={sl_policy}"  # the opponent it learns against, and its yardstick
    config = RLConfig(method="pg", game=GAME, model="tiny" if args.quick else "small", init=str(sl_policy),
                      games=args.rl_games, sparring=[sl_player], sparring_games=args.rl_sparring_games,
                      learning_rate=5e-5, clip=0.2, epochs=2, eval_games=4 if args.quick else 20,
                      baselines=[sl_player],
                      baseline_games=4 if args.quick else 40, seed=args.seed)
    print(f"4. self-play: {args.rl_generations} generations of {args.rl_sparring_games} games against the SL "
          f"policy and {args.rl_games} against itself", flush=True)
    history = train_rl(work / "rl", config, args.rl_generations)
    plot_rl_history(history, out / "rl_curve.png", "policy gradients from the SL policy", config.baseline_games)
    return (work / "rl" / "current.keras", float(history["seconds"].sum()) / 60,
            float(history[f"score_vs_{sl_player}"].iloc[-1]))


def learn_the_value(args: argparse.Namespace, out: Path, work: Path, rl_policy: Path, minutes: dict[str, float]
                    ) -> tuple[Path, dict]:
    """Step 5: the value network, on the teacher's games or the RL policy's self-play; writes
    ``value.csv`` and adds its minutes to ``minutes``. Returns its run folder and its accuracy."""
    from engines.training.supervised import train_supervised  # loads TensorFlow

    value_games = work / "games"
    if args.value_data == "selfplay":
        value_games = work / "value-games"
        print(f"5. value: {args.value_games} self-play games of the RL policy -> {value_games}", flush=True)
        generate_games(ENGINES, value_games, GAME, f"pg:model={rl_policy},temperature=1", args.value_games,
                       seed=args.seed, opening_plies=2, batch=256)  # one network call for 256 games
    value_run = work / "value"
    train_supervised(value_games, value_run, model="tiny" if args.quick else "small", encoder="simple",
                     epochs=max(1, args.epochs), batch_size=256, patience=3, seed=args.seed, target="value",
                     positions_per_game=args.value_positions)
    if args.value_data == "selfplay":
        minutes["value network's games"] = engine_minutes(read_games(value_games / "games.csv"))
    minutes["value network"] = epoch_minutes(value_run)
    value = evaluate_value(value_run / "model.keras", value_games)
    with atomic_write(out / "value.csv") as handle:
        pd.DataFrame([value]).to_csv(handle, index=False)
    return value_run, value


def alphago_set(work: Path, policy: Path, value: Path, rollout: Path) -> Path:
    """The three networks as the set ``alphago:checkpoint=PREFIX`` plays from; returns the prefix."""
    prefix = work / "go9"
    for role, source in (("policy", policy), ("value", value), ("rollout", rollout)):
        atomic_copy(source, f"{prefix}{SET_FILES[role]}")
    return prefix


def play_the_match(args: argparse.Namespace, out: Path, work: Path, engines: list[str], minutes: list[float]
                   ) -> tuple[pd.DataFrame, list]:
    """Step 6: the SL policy alone, the RL policy alone and ``alphago`` (``engines``) each against
    --opponent, one game at a time; writes ``match.csv`` and ``strength_vs_training.png``
    (``minutes``: each step's training, in order). Returns the table and the games."""
    tasks = []
    for engine in engines:
        for k in range(args.match_games):
            game_id = f"{engine} vs {args.opponent} #{k}"
            black, white = (engine, args.opponent) if k % 2 == 0 else (args.opponent, engine)
            tasks.append(Task(game_id, black, white, task_seed(args.seed, game_id)))
    print(f"6. match: {', '.join(engines)} against {args.opponent}, {args.match_games} games each", flush=True)
    # one game at a time: alphago's seconds a move are on both cores, as the target reads
    records = play_games(ENGINES, work / "match", GAME, tasks, opening_plies=2, workers=1)
    rows = []
    for engine, label in zip(engines, ["SL policy alone", "RL policy alone", "alphago"]):
        score, games = chapters.score_against(records, engine, args.opponent)
        low, high = wilson_interval(score, games)
        seconds = [r.black_seconds if r.black == engine else r.white_seconds
                   for r in records if engine in (r.black, r.white)]  # each game's mean seconds a move
        rows.append({"engine": label, "spec": engine, "score": score, "low": low, "high": high, "games": games,
                     "seconds_per_move": sum(seconds) / max(1, len(seconds)),
                     "elo": elo_against(score, games) if args.opponent == ANCHOR else float("nan")})
    match = pd.DataFrame(rows)
    match["training_minutes"] = [sum(minutes[:2]), sum(minutes[:3]), sum(minutes)]  # what each needed before it
    with atomic_write(out / "match.csv") as handle:
        match.to_csv(handle, index=False)
    plot_strength(match, args.opponent, out / "strength_vs_training.png")
    return match, records


def ship(prefix: Path) -> None:
    """``--ship``: the three networks to ``checkpoints/go9-*``, where ``alphago:checkpoint=go9`` finds them."""
    from engines.neural.backend import export_model  # loads TensorFlow

    for ending in (SET_FILES[role] for role in ALPHAGO_ROLES):
        if ending.endswith(".keras"):
            export_model(f"{prefix}{ending}", SHIPPED / f"go9{ending}")  # without the optimizer's state
        else:
            atomic_copy(f"{prefix}{ending}", SHIPPED / f"go9{ending}")
    sizes = ", ".join(f"{p.name} {p.stat().st_size / 1e6:.1f} MB" for p in sorted(SHIPPED.glob("go9-*")))
    print(f"shipped: {sizes}", flush=True)


def write(out: Path, args: argparse.Namespace, argv: list[str] | None, table: pd.DataFrame, teacher: dict,
          rollout: dict, rl: tuple[float, float], value: dict, match: pd.DataFrame, records: list,
          alphago: str) -> Path:
    """The summary: every step's figures, the match, one game."""
    body = [*learning_lines(args, table, teacher, rollout, rl, value), *match_lines(args, match),
            *game_lines(args, records, alphago, out)]
    summary = chapters.write_summary(out, "Chapter 13: AlphaGo on 9x9 Go", chapters.command(__file__, argv), body,
                                     LOOK_FOR)
    update_facts(out, facts(out))
    return summary


def facts(out: Path) -> dict[str, Any]:
    """The chapter's headline facts (:mod:`dlgo.storage.facts`): ``policy`` (the SL policy's top-1
    and GNU Go's self-agreement), ``value`` (the share of winners named) and ``match`` (each
    engine against GNU Go: score, games, seconds a move, Elo), from its CSV files."""
    policy = pd.read_csv(out / "accuracy.csv").iloc[0]
    value = pd.read_csv(out / "value.csv").iloc[0]
    match = pd.read_csv(out / "match.csv")
    return {"policy": {"top1": float(policy.top1), "teacher": float(policy.teacher)},
            "value": {"winner": float(value.winner)},
            "match": [{"engine": row.engine, "score": float(row.score), "games": int(row.games),
                       "seconds_per_move": float(row.seconds_per_move), "elo": float(row.elo)}
                      for row in match.itertuples()]}


def learning_lines(args: argparse.Namespace, table: pd.DataFrame, teacher: dict, rollout: dict,
                   rl: tuple[float, float], value: dict) -> list[str]:
    """Steps 1 to 5 in figures: the teacher, the SL policy, the rollout policy, the RL policy, the value network."""
    policy = table.iloc[0]
    body = [f"**Teacher**: `{args.teacher}` playing itself, {args.games:,} games of 9x9 (komi 7.5, area scoring, "
            f"{PRESET.opening_plies} random opening plies, so that no two games repeat).", "",
            f"**SL policy** (chapter 7's `{policy.model}` network, `simple` encoder), on held-out games:", "",
            "| top-1 | top-5 | top-1, legal moves only | the teacher again, another seed | positions |",
            "|---:|---:|---:|---:|---:|",
            f"| {policy.top1:.1%} | {policy.top5:.1%} | {policy.top1_legal:.1%} | "
            f"{teacher.get('teacher', float('nan')):.1%} ({teacher.get('teacher_positions', 0)} positions) | "
            f"{policy.positions:,} |", "",
            "![learning curve](learning_curve.png)", "",
            f"**Rollout policy**: the move played has probability {rollout['likelihood']:.1%} on average "
            f"(uniform over the empty points: {rollout['uniform']:.1%}); its most likely move is the teacher's "
            f"{rollout['top1']:.1%} of the time; {rollout['responses']:.0%} of the teacher's moves answer the last "
            f"move ({rollout['test_positions']:,} test positions).", ""]
    if args.rl_generations:
        rl_minutes, rl_score = rl
        verdict = "stronger than" if rl_score > 0.5 else "no stronger than"
        body += [f"**RL policy**: {args.rl_generations} generations of policy gradients from the SL policy, each "
                 f"learning from {args.rl_sparring_games} games against the SL policy and {args.rl_games} against "
                 f"itself, {rl_minutes:.0f} minutes. The last generation scores {rl_score:.0%} against the SL "
                 f"policy: {verdict} its start (AlphaGo's RL policy won 80% against its SL policy after 1.28 "
                 "million games; this run played "
                 f"{args.rl_generations * (args.rl_games + args.rl_sparring_games):,}).", "",
                 "![self-play](rl_curve.png)", ""]
    source = "the RL policy's self-play" if args.value_data == "selfplay" else "the teacher's"
    return body + [f"**Value network** ({args.value_positions} position(s) of each of {source} games): on the "
                   f"held-out games' positions its sign names the winner {value['winner']:.1%} of the time "
                   f"({value['late_winner']:.1%} in the second half of each game); mean squared error "
                   f"{value['mse']:.3f}, against {value['baseline_mse']:.3f} for always answering 0.", ""]


def match_lines(args: argparse.Namespace, match: pd.DataFrame) -> list[str]:
    """Step 6: each engine's score against the opponent, and the picture of strength against training time."""
    body = [f"**The match** against `{args.opponent}`, colours alternating, komi 7.5:", "",
            "| engine | score | 95% interval | games | seconds a move | Elo (GNU Go 10 = 1800) |",
            "|---|---:|---:|---:|---:|---:|"]
    for row in match.itertuples():
        elo = f"{row.elo:,.0f}" if math.isfinite(row.elo) else "-"
        body.append(f"| {row.engine} | {row.score:.1%} | {row.low:.0%} to {row.high:.0%} | {row.games} | "
                    f"{row.seconds_per_move:.2f} | {elo} |")
    body += ["", "Each engine after the computing it needed (on this 2-core machine; GNU Go's thinking time for "
             "the games it played, then the training):", "", "![strength against training time]"
             "(strength_vs_training.png)"]
    return body


def game_lines(args: argparse.Namespace, records: list, alphago: str, out: Path) -> list[str]:
    """One game of ``alphago`` (a win if it has one), and how to play it yourself."""
    body: list[str] = []
    games = sorted((r for r in records if alphago in (r.black, r.white)), key=lambda r: -r.score_for(alphago))
    if games:
        body += ["", "One game of `alphago` (a win if it has one):", "",
                 *chapters.draw_game(games[0], out, "game", f"alphago vs {args.opponent}: {games[0].result}")]
    shipped = ladders.BOOK_ALPHAGO  # what --ship makes playable from anywhere, in the match's search
    body += ["Play it yourself: the networks are shipped in `checkpoints/` (`go9-policy.keras`, `go9-value.keras`, "
             "`go9-rollout.npz`), so from any folder:" if args.ship else
             "Play it yourself (`--ship` copies the networks to `checkpoints/`, where `alphago:checkpoint=go9` "
             "finds them from any folder):", "",
             f"    dlgo play --game {GAME} --black human --white "
             + (shipped if args.ship else alphago.split(',simulations')[0] + ",plain=true")]
    return body


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args, argv)
    except DlgoError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
