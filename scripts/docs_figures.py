"""The figures in README.md and docs/*.md, written from the committed reports.

    python scripts/docs_figures.py           # rewrite every generated block
    python scripts/docs_figures.py --check   # exit 1 and name the stale blocks (a test runs this)

A generated block sits between ``<!-- figures:NAME -->`` and
``<!-- /figures:NAME -->``; ``NAME`` picks a function below, which builds the
block's Markdown from ``reports/`` (results, ratings, benchmark tables) or from
the engine registry. Nobody types a measured figure into the documentation: rerun
an experiment or a benchmark, then this script. The script only reads reports.
"""
from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path
from typing import Callable

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from any folder

from dlgo.arena.ratings import expected_score, wilson_interval  # noqa: E402
from dlgo.storage.atomic import atomic_write  # noqa: E402
from engines.registry import engine_class, engine_description, engine_names, engine_parameters  # noqa: E402
from experiments.headline import alphazero_economies  # noqa: E402
from experiments.shared.chapters import course_spec  # noqa: E402

REPORTS = ROOT / "reports"
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(<!-- figures:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /figures:(?P=name) -->)", re.S)


def games(folder: str) -> pd.DataFrame:
    """A report's ``games.csv`` (read only: never repaired here)."""
    return pd.read_csv(REPORTS / folder / "games.csv", keep_default_na=False)


def score(table: pd.DataFrame, spec: str, opponent: str | None = None) -> tuple[float, int]:
    """(score of ``spec``, games) over its games in ``table`` (against ``opponent`` only, if given)."""
    mine = table[(table.black == spec) | (table.white == spec)]
    if opponent is not None:
        mine = mine[(mine.black == opponent) | (mine.white == opponent)]
    points = [0.5 if w == "draw" else float((b if w == "black" else wh) == spec)
              for b, wh, w in zip(mine.black, mine.white, mine.winner)]
    return (sum(points) / len(points) if points else float("nan")), len(points)


def seconds_per_move(table: pd.DataFrame, spec: str) -> float:
    """``spec``'s mean seconds a move over its games in ``table`` (each game's mean, averaged)."""
    return float(pd.concat([table[table.black == spec].black_seconds, table[table.white == spec].white_seconds]).mean())


def ratings(folder: str) -> pd.DataFrame:
    return pd.read_csv(REPORTS / folder / "ratings.csv").set_index("engine")


def mistakes(folder: str) -> pd.DataFrame:
    """A report's mistake rates over all its solved positions, by engine (empty where it measured none)."""
    path = REPORTS / folder / "mistake_rates.csv"
    if not path.exists():
        return pd.DataFrame(columns=["engine", "critical_rate"]).set_index("engine")
    table = pd.read_csv(path)
    table["critical_rate"] = table.critical_mistakes / table.critical  # exact, not the file's 4 digits
    return table[table.group == "all"].set_index("engine")


def perfect_play_answer() -> str:
    """Each family at its fewest mistakes on the solved Connect Four sets."""
    rates = mistakes("perfect-play-connect4")
    if rates.empty:
        return "not measured yet: `python experiments/crosschecks/perfect_play.py --out reports/perfect-play-connect4`"
    best = rates.sort_values("critical_rate").groupby("family", sort=False).head(1)
    parts = [f"`{engine}` {row.critical_rate:.1%} ({row.critical_low:.1%} to {row.critical_high:.1%}) at "
             f"{row.seconds_per_move:.2g} s a move" for engine, row in best.iterrows() if row.family != "solver"]
    critical = int(rates.critical.iloc[0])
    solver = rates.loc["solver"] if "solver" in rates.index else None
    return (f"mistakes per critical position, each family at its best on {critical} critical positions of "
            f"{int(rates.positions.iloc[0]):,} solved: " + "; ".join(parts)
            + (f"; the solver 0 at {solver.seconds_per_move:.2g} s a move" if solver is not None else ""))


def summary_table(folder: str, heading: str) -> list[list[str]]:
    """The rows (cells as text) of the first Markdown table after ``heading`` in a report's summary."""
    lines = (REPORTS / folder / "summary.md").read_text().splitlines()
    start = lines.index(heading)
    rows, inside = [], False
    for line in lines[start + 1:]:
        if line.startswith("|"):
            inside = True
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not set("".join(cells)) <= set("-:"):
                rows.append(cells)
        elif inside:
            break
    return rows[1:]  # without the header


def final_match(folder: str) -> tuple[str, str, float, int, dict[str, float]]:
    """(network spec, opponent, score, games, score by colour) of an AlphaZero run's final match: the
    network of its last game (a match folder keeps the games of networks published before)."""
    table = games(f"{folder}/match")
    last = (table.black.iloc[-1], table.white.iloc[-1])
    network = next(s for s in last if s.startswith("alphazero:"))
    opponent = next(s for s in last if s != network)
    table = table[(table.black == network) | (table.white == network)]
    total, played = score(table, network)
    by_colour = {"black": score(table[table.black == network], network)[0],
                 "white": score(table[table.white == network], network)[0]}
    return network, opponent, total, played, by_colour


def history(folder: str) -> pd.DataFrame:
    return pd.read_csv(REPORTS / folder / "history.csv")


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


# The blocks ---------------------------------------------------------------------------------------------------


def demo() -> str:
    """The demo's headline from its committed sample (reports/sample-connect4)."""
    rated = ratings("sample-connect4")
    best, second = rated.index[0], rated.index[1]
    mcts = max((e for e in rated.index if e.startswith("mcts:")), key=lambda e: int(e.split("=")[1]))
    played = len(games("sample-connect4"))
    rates = mistakes("sample-connect4")
    erring = "" if not {best, mcts, "random"} <= set(rates.index) else (
        f" On {int(rates.critical.iloc[0])} critical solved positions `{best}` changes the result in "
        f"{rates.loc[best, 'critical_rate']:.0%} of them, `{mcts}` in {rates.loc[mcts, 'critical_rate']:.0%}, "
        f"`random` in {rates.loc['random', 'critical_rate']:.0%}.")
    runner_up = (f"then the strongest MCTS, `{mcts}` ({rated.loc[mcts, 'elo']:,.0f}, at "
                 f"{rated.loc[mcts, 'seconds_per_move']:.2f} s a move)" if second == mcts else
                 f"then `{second}` ({rated.loc[second, 'elo']:,.0f}); the strongest MCTS, `{mcts}`, rates "
                 f"{rated.loc[mcts, 'elo']:,.0f} at {rated.loc[mcts, 'seconds_per_move']:.2f} s a move")
    return (f"{plural(played, 'game')} in all. `{best}` comes out on top (Elo {rated.loc[best, 'elo']:,.0f}, at "
            f"{rated.loc[best, 'seconds_per_move']:.2f} s a move), {runner_up}.{erring}\n")


def answers() -> str:
    """What the suite answers, each with its figure and its report."""
    rated = ratings("sample-connect4")
    best = rated.index[0]
    perfect = summary_table("alphazero-tictactoe", "## Against perfect play")
    lines, lost = sum(int(r[1]) for r in perfect), sum(int(r[2]) for r in perfect)
    learnt, best_rl = learning_by_playing_answer()
    rows = [
        ("Which engine is strongest on Connect Four, and at what cost?",
         f"`{best}`, first of {len(rated)} engines: Elo {rated.loc[best, 'elo']:,.0f} over random at "
         f"{rated.loc[best, 'seconds_per_move']:.2f} s a move", "sample-connect4"),
        ("How close to perfect play does each engine come on Connect Four?", perfect_play_answer(),
         "perfect-play-connect4"),
        ("Can AlphaZero learn Connect Four on 2 cores?", alphazero_connect4_answer(), "alphazero-connect4"),
        ("And tic-tac-toe?", f"lost {lost} of the {lines} lines a perfect opponent can choose",
         "alphazero-tictactoe"),
        ("Can a network learn Connect Four by playing, with no search of its own?", learnt, best_rl),
        ("And 5x5 Go?", alphazero_go5_answer(), "alphazero-go5"),
        ("How well does a network imitate MCTS on 9x9 Go?", supervised_go9_answer(), "supervised-go9"),
        ("Does AlphaGo beat GNU Go on 9x9, on 2 cores?", alphago_answer(), "ch13_alphago"),
        ("And 7x7 Go from nothing?", alphazero_go7_answer(), "alphazero-go7"),
        ("And AlphaGo Zero on 9x9, from a supervised start?", alphazero_go9_answer(), "alphazero-go9"),
        ("Which AlphaZero economy buys Connect Four strength cheapest?", economies_answer(),
         "alphazero-economies-connect4"),
        ("How close to perfect play does AlphaZero's self-play come on boards the solver knows?", recipe_answer(),
         RECIPE_REPORT),
        ("Is our MCTS as strong and as fast as OpenSpiel's?", openspiel_answer(), "vs-openspiel"),
        ("Does search alone beat GNU Go on 9x9?", mcts_go9_answer(), "mcts-go9"),
        ("And AlphaGo's networks guiding that search?", alphago_engine_answer(), "mcts-go9"),
        ("How far from GNU Go are we on 9x9?", gnugo_answer(), "vs-gnugo"),
        ("Do we count a finished game as GNU Go does?", dead_stones_answer(), "dead-stones"),
    ]
    if scaling_tables() is not None:  # the lab's full run takes hours: its row comes with its report
        rows.insert(-4, ("How does strength grow with training and search compute, up to perfect play?",
                         scaling_answer(), SCALING))
    out = ["| question | answer | report |", "|---|---|---|"]
    out += [f"| {q} | {a} | [{folder}](reports/{folder}/summary.md) |" for q, a, folder in rows]
    return "\n".join(out) + "\n"


def alphazero_connect4_answer() -> str:
    """The Connect Four run: its hours and its final match."""
    network, opponent, c4, c4_games, _ = final_match("alphazero-connect4")
    c4_minutes = history("alphazero-connect4").seconds.sum() / 60
    return (f"after {c4_minutes / 60:.1f} hours of self-play and training, {c4:.1%} against `{opponent}` "
            f"({c4_games} games, {network.rsplit('simulations=', 1)[1]} simulations a move)")


def learning_by_playing_answer() -> tuple[str, str]:
    """Chapters 10-12's networks against random and MCTS, and the report of the best of them."""
    learnt = {folder: pd.read_csv(REPORTS / folder / "final.csv").set_index("opponent").score
              for folder in ("ch10_policy_gradient", "ch11_q_learning", "ch12_actor_critic")}
    best_rl = max(learnt, key=lambda folder: learnt[folder]["mcts:rounds=100"])
    sparred = "--sparring" in (REPORTS / best_rl / "summary.md").read_text()
    return ("against `random`: " + ", ".join(f"{learnt[f]['random']:.0%} ({m})" for f, m in
                                            zip(learnt, ("policy gradients", "Q-learning", "actor-critic")))
            + f"; against `mcts:rounds=100` the best scores {learnt[best_rl]['mcts:rounds=100']:.0%}"
            + (" (it sparred with that engine as it learnt)" if sparred else ""), best_rl)


def alphazero_go5_answer() -> str:
    """The 5x5 Go run: its Elo climb and its final match."""
    go5 = history("alphazero-go5")
    _, go5_opponent, go5_score, go5_games, _ = final_match("alphazero-go5")
    return (f"Elo {go5.elo.iloc[-1]:+,.0f} over its untrained self in {len(go5)} iterations; "
            f"{go5_score:.0%} against `{go5_opponent}` ({go5_games} games)")


def supervised_go9_answer() -> str:
    """The best 9x9 predictor's accuracy, beside the book's and the teacher's own."""
    accuracy = pd.read_csv(REPORTS / "supervised-go9" / "accuracy.csv")
    top = accuracy.loc[accuracy.top1.idxmax()]
    return (f"{top.top1:.1%} top-1 ({top.model} net, {top.encoder} encoder), where the book reports 8.35% "
            f"and the teacher repeats itself {top.teacher:.1%} of the time")


def gnugo_answer() -> str:
    """Our best engines' even games against GNU Go, and the handicap that evens them."""
    gnugo = games("vs-gnugo")
    rated = ratings("vs-gnugo")
    ours = [e for e in rated.index if not e.startswith("gnugo:")]
    even = gnugo[gnugo.game == "go:size=9,komi=7.5"]
    won = sum(score(even, e)[0] * score(even, e)[1] for e in ours)
    even_games = sum(score(even, e)[1] for e in ours)
    handicap = pd.read_csv(REPORTS / "vs-gnugo" / "handicap.csv")
    enough = handicap[handicap.score >= 0.5].sort_values("handicap")
    stones = (f"; the fewest stones that win half the games against level 0: {enough.handicap.iloc[0]}, for "
              f"`{enough.engine.iloc[0]}`") if len(enough) else "; no handicap tried was enough"
    return ("even games against levels 0, 5 and 10: " + "; ".join(
        f"`{e}` {score(even, e)[0]:.0%} of {score(even, e)[1]} (Elo {rated.loc[e, 'elo']:,.0f})"
        for e in sorted(ours, key=lambda e: -rated.loc[e, "elo"])[:3])
        + f"; we won {won:.0f} of {even_games} in all{stones}")


def with_interval(table: pd.DataFrame, spec: str, opponent: str, games: str = "games") -> str:
    """``spec``'s score against ``opponent``: ``70.0% of 40 games (95% interval 55% to 82%)``."""
    value, n = score(table, spec, opponent)
    low, high = wilson_interval(value, n)
    return f"{value:.1%} of {n} {games} (95% interval {max(0.0, low):.0%} to {min(1.0, high):.0%})"


def brief_score(table: pd.DataFrame, spec: str, opponent: str) -> str:
    """A table cell: ``70% of 40 (55-82%)``, or a dash before any game."""
    value, n = score(table, spec, opponent)
    if not n:
        return "–"
    low, high = wilson_interval(value, n)
    return f"{value:.0%} of {n} ({max(0.0, low):.0%}–{min(1.0, high):.0%})"


def match_specs() -> dict[str, str]:
    """The Go engine's match's engines by role (``experiments/headline/mcts_go9.py``), at its 2 s a move."""
    from experiments.headline import mcts_go9

    return mcts_go9.match_specs(2.0)


def mcts_go9_answer() -> str:
    """The Go engine's match against GNU Go level 10, beside the readable UCT."""
    match = games("mcts-go9/match")
    opponent = "gnugo:level=10"
    strong, plain = match_specs()["engine"], match_specs()["plain"]
    seconds = strong.split("seconds=")[1]
    return (f"`{strong}` (pure search, compiled, no network) scores "
            f"{with_interval(match, strong, opponent, 'even games')} against GNU Go level 10, at {seconds} s a move "
            f"or less; the readable UCT at the same time {score(match, plain, opponent)[0]:.0%} of "
            f"{score(match, plain, opponent)[1]}")


def alphago_engine_answer() -> str:
    """AlphaGo's networks guiding the Go engine, against the book's PUCT search with the same networks."""
    match = games("mcts-go9/match")
    opponent = "gnugo:level=10"
    guided, book = match_specs()["alphago"], match_specs()["book"]
    return (f"`{guided}`, its networks guiding the compiled Go engine, scores "
            f"{with_interval(match, guided, opponent, 'even games')} against GNU Go level 10; the same networks in "
            f"the book's PUCT search (`plain=true`) {with_interval(match, book, opponent)}")


def dead_stones_answer() -> str:
    """Our count of finished games against GNU Go's, with dead stones estimated and without."""
    counted = pd.read_csv(REPORTS / "dead-stones" / "scores.csv")
    ours_vs = counted[counted.set == "ours against GNU Go"]
    return (f"with dead stones estimated, the same winner in {ours_vs.dead_stones_winner.sum()} and the same margin "
            f"in {ours_vs.dead_stones_margin.sum()} of {len(ours_vs)} games against it (the board as it stands: "
            f"{ours_vs.plain_winner.sum()} and {ours_vs.plain_margin.sum()})")


def alphago_answer() -> str:
    """Chapter 13's match, in a sentence."""
    match = pd.read_csv(REPORTS / "ch13_alphago" / "match.csv").set_index("engine")
    ag, sl = match.loc["alphago"], match.loc["SL policy alone"]
    return (f"`alphago` (the book's PUCT search) at {ag.seconds_per_move:.1f} s a move won {ag.score:.1%} of "
            f"{ag.games} even games against "
            f"GNU Go level 10 (Elo {ag.elo:,.0f}, level 10 = 1,800); its policy network alone, no search, "
            f"{sl.score:.1%}")


def trained_iterations(run: pd.DataFrame) -> int:
    """A run's training iterations (row 0, where there is one, is its start, measured)."""
    return int((run.iteration > 0).sum())


def alphazero_go7_answer() -> str:
    """The zero-knowledge 7x7 run: its fixed opponent's score early and late, and the published network's match."""
    run = history("alphazero-go7")
    network, opponent, _, _, by_colour = final_match("alphazero-go7")
    column = f"score_vs_{opponent}"
    measured = run.dropna(subset=[column])  # the iterations that played the fixed opponent
    third = len(measured) // 3
    early, late = measured.iloc[:third], measured.iloc[len(measured) - third:]  # the first and the last third
    return (f"Gumbel search at 16 simulations and KataGo's auxiliary targets, {trained_iterations(run)} iterations "
            f"in {run.seconds.sum() / 60:.0f} minutes: its score against `{opponent}` (20 games, 50 simulations a "
            f"move) averaged {early[column].mean():.0%} in iterations {int(early.iteration.iloc[0])}-"
            f"{int(early.iteration.iloc[-1])} and {late[column].mean():.0%} in iterations {int(late.iteration.iloc[0])}-"
            f"{int(late.iteration.iloc[-1])}; the published network (iteration {int(run.published.iloc[-1])}) with "
            f"{network.rsplit('simulations=', 1)[1]} simulations scores "
            f"{with_interval(games('alphazero-go7/match'), network, opponent)[:-1]}; {by_colour['black']:.0%} as "
            f"black, {by_colour['white']:.0%} as white)")


def alphazero_go9_answer() -> str:
    """AlphaGo Zero on 9x9: the final network, its supervised start and alphago against the same GNU Go."""
    network, opponent, total, played, _ = final_match("alphazero-go9")
    minutes = history("alphazero-go9").seconds.sum() / 60
    spent = f"{minutes:.0f} minutes" if minutes < 90 else f"{minutes / 60:.1f} hours"
    others = []
    for folder, label in (("match-supervised", "its supervised start (same search)"),
                          ("match-alphago", "`alphago` (the book's PUCT search) at 2 s a move")):
        if (REPORTS / "alphazero-go9" / folder / "games.csv").exists():
            table = games(f"alphazero-go9/{folder}")
            engine = next(s for s in table.black if s != opponent)
            other, n = score(table, engine)
            others.append(f"{label} {other:.0%} of {n}")
    return (f"after {spent} of self-play and training, {total:.0%} of {played} even games against "
            f"`{opponent}` ({network.rsplit('simulations=', 1)[1]} simulations a move); " + "; ".join(others))


def economies_answer() -> str:
    """The economies ablation in one cell: the variants, best first, at the thriftiest run's evaluations."""
    table = pd.read_csv(REPORTS / "alphazero-economies-connect4" / "economies.csv")
    budget, at = alphazero_economies.common_budget(table)
    ranked = sorted(at.items(), key=lambda item: item[1].best["mistakes_search"])
    n = int(table["reference_positions"].max())
    low, high = wilson_interval(ranked[len(ranked) // 2][1].best["mistakes_search"], n)
    return (f"after {budget / 1e6:.1f} million self-play evaluations from a random network, the share of {n} "
            "critical early-game positions each run's best network loses with search: "
            + ", ".join(f"{name} {v.best['mistakes_search']:.1%}" for name, v in ranked)
            + f" (95% intervals about ±{(high - low) * 50:.0f} points)")


RECIPE_REPORT = "recipe-ablation"
#: the ablation's variant the recipe is, and its network's supervised ceiling
RECIPE, RECIPE_CEILING = "openings", "ceiling-4x64-heads32"
PERFECT_PLAY = 0.01  # the bar: mistakes on critical positions at 64 simulations


def recipe_answer() -> str:
    """The recipe's reach in one cell: per board, its mistakes at search beside its network's ceiling."""
    folder = REPORTS / RECIPE_REPORT
    table = pd.read_csv(folder / "variants.csv").set_index(["board", "variant"])
    simulations = int(pd.read_csv(folder / "mistakes.csv")["simulations"].max())
    cells, perfect = [], []
    for board in dict.fromkeys(table.index.get_level_values("board")):
        if (board, RECIPE) not in table.index:
            continue
        run = table.loc[(board, RECIPE)]
        if run["search"] <= PERFECT_PLAY:
            perfect.append(board)
        ceiling = f", its network's ceiling {table.loc[(board, RECIPE_CEILING), 'search']:.1%}" \
            if (board, RECIPE_CEILING) in table.index else ""
        cells.append(f"{board} **{run['search']:.1%}** ({run['search_low']:.1%} to {run['search_high']:.1%}; "
                     f"{run['raw']:.1%} raw) in {run['minutes']:.0f} minutes{ceiling}")
    return (f"mistakes on the critical solved positions at {simulations} simulations a move, from a random network "
            f"on 2 cores with the recipe (the ablation's `{RECIPE}`): " + "; ".join(cells)
            + f"; perfect play, {PERFECT_PLAY:.0%} or less, reached on {', '.join(perfect) or 'none yet'}")


SCALING = "scaling-connectn"
SCALING_COMMAND = "python experiments/headline/scaling.py --workers 2 --out reports/scaling-connectn"
#: the course's own run of the lab: one network size on the smallest board (docs/course.md, step 15)
STUDENT_NET, STUDENT_ITERATIONS = "2x32", 16


def scaling_tables() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, int] | None:
    """The scaling lab's per-board findings, exchange rate, points and frontier search budget
    (None until a finished run's report is there)."""
    folder = REPORTS / SCALING
    names = ("boards.csv", "exchange.csv", "points.csv", "frontier.csv", "summary.md")
    if not all((folder / name).exists() for name in names):
        return None
    frontier = pd.read_csv(folder / "frontier.csv")
    if frontier.empty:
        return None
    return (pd.read_csv(folder / "boards.csv"), pd.read_csv(folder / "exchange.csv"), pd.read_csv(folder / "points.csv"),
            int(frontier["simulations"].iloc[0]))


def search_doubling(points: pd.DataFrame) -> list[tuple[int, int, float]]:
    """Elo per doubling of the simulations between each two neighbouring budgets, for each
    run's last network, averaged over boards and network sizes: (budget, next budget, Elo)."""
    budgets = sorted(int(n) for n in points["simulations"].unique())
    last = points[points["iteration"] == points.groupby(["board", "net"])["iteration"].transform("max")]
    elo = last.pivot_table(index=["board", "net"], columns="simulations", values="elo")
    return [(small, large, float(((elo[large] - elo[small]) / math.log2(large / small)).mean()))
            for small, large in zip(budgets, budgets[1:])]


def slope_cell(board: pd.Series) -> str:
    """A board's Elo per 10x of training compute with its interval ("too few points" without a fit)."""
    if math.isnan(board.elo_per_decade):
        return "too few points"
    return f"{board.elo_per_decade:.0f} ({board.elo_per_decade_low:.0f} to {board.elo_per_decade_high:.0f})"


def exchange_words(exchange: pd.DataFrame) -> str:
    """How much training compute 10x (and 2x) the search replaces, or why that was not measured."""
    rate = exchange.iloc[0]
    if math.isnan(rate.slope):
        return "too few iso-Elo crossings to measure how much training the search replaces"
    if rate.slope_high >= 0:
        return (f"no measurable trade of search for training compute (slope {rate.slope:.2f}, 95% interval "
                f"{rate.slope_low:.2f} to {rate.slope_high:.2f})")
    return (f"10x the search compute per move replaces **{rate.training_per_10x_search:.1f}x** the training compute "
            f"(95% interval {10 ** -rate.slope_high:.1f}x to {10 ** -rate.slope_low:.1f}x, {int(rate.points)} points), "
            f"so doubling the search stands in for {2 ** -rate.slope:.1f}x the training")


def flops_cell(value: float) -> str:
    return "not reached" if math.isnan(value) else f"{value:.2g}"


def scaling_answer() -> str:
    """The scaling lab in one cell: Elo per 10x of training, and search for training."""
    tables = scaling_tables()
    if tables is None:
        return f"not measured yet: `{SCALING_COMMAND}`"
    boards, exchange, _, _ = tables
    slopes = ", ".join(f"{board.board} {slope_cell(board)}" for _, board in boards.iterrows())
    return (f"Elo per 10x of training compute along the frontier: {slopes} (Jones on Hex: about 500); "
            f"{exchange_words(exchange).replace('**', '')}")


def scaling() -> str:
    """The scaling lab's findings per board (docs/alphazero.md), from reports/scaling-connectn."""
    tables = scaling_tables()
    if tables is None:
        return f"*The full run has not been committed yet: `{SCALING_COMMAND}`.*\n"
    boards, exchange, _, budget = tables
    lines = [f"At {budget} simulations a move ([reports/{SCALING}](reports/{SCALING}/summary.md); FLOPs of training):",
             "", "| board | Elo per 10x (95%) | Elo flat from (95%) | <= 5% mistakes | <= 1% mistakes (perfect) | "
             "fewest mistakes (any budget) | training hours (all networks) |", "|---|---:|---|---:|---:|---:|---:|"]
    for _, board in boards.iterrows():
        flat = ("no plateau" if math.isnan(board.plateau_flops) else
                f"{board.plateau_flops:.2g} ({board.plateau_flops_low:.2g} to {board.plateau_flops_high:.2g}) "
                f"at Elo {board.plateau:.0f} (solver {board.solver_elo:.0f}"
                f"{')' if board.plateau_at_solver else ': a stall below it)'}")
        fewest = "not measured" if math.isnan(board.fewest_mistakes) else f"{board.fewest_mistakes:.1%}"
        lines.append(f"| {board.board} | {slope_cell(board)} | {flat} | {flops_cell(board.flops_to_5pct)} | "
                     f"{flops_cell(board.flops_to_1pct)} | {fewest} | {board.train_hours:.1f} |")
    words = exchange_words(exchange).replace("**", "")
    lines += ["", f"Along iso-Elo curves, {words}.", "",
              f"![Elo against training compute](reports/{SCALING}/elo_vs_training.png)"]
    return "\n".join(lines) + "\n"


def course_scaling() -> str:
    """Step 15's findings: where the course's run lands and what doubling each compute buys."""
    tables = scaling_tables()
    if tables is None:
        return f"*The full run has not been committed yet: `{SCALING_COMMAND}`.*\n"
    boards, exchange, points, budget = tables
    small = boards.iloc[0]
    slopes = "; ".join(f"{board.board} ({board.cells} points): {slope_cell(board)}" for _, board in boards.iterrows())
    lines = [f"In the committed run ([reports/{SCALING}](reports/{SCALING}/summary.md)) each 10x of training compute "
             f"buys, along the frontier at {budget} simulations a move, in Elo: {slopes} (Jones measured about 500 "
             "on Hex)."]
    student = points[(points["board"] == small.board) & (points["net"] == STUDENT_NET)
                     & (points["iteration"] == STUDENT_ITERATIONS) & (points["simulations"] == budget)]
    if len(student):
        row = student.iloc[0]
        if math.isnan(small.plateau_flops):
            flat = "its frontier had not turned flat by the end of the run"
        elif not small.plateau_at_solver:
            flat = f"its frontier stalls below the solver, at Elo {small.plateau:.0f}"
        elif small.plateau_flops > row.train_flops:
            flat = (f"its frontier turns flat at Elo {small.plateau:.0f} from {small.plateau_flops:.2g} FLOPs, "
                    f"{small.plateau_flops / row.train_flops:.1f}x further on")
        else:
            flat = f"its frontier had already turned flat, at Elo {small.plateau:.0f}"
        lines.append(f"The full run's `{STUDENT_NET}` network on {small.board} after {STUDENT_ITERATIONS} iterations, "
                     f"what the course's command trains ({plural(max(1, round(row.train_seconds / 60)), 'minute')} of "
                     f"training there, {row.train_flops:.2g} FLOPs), rates **{row.elo:.0f}** ({row.elo_low:.0f} to "
                     f"{row.elo_high:.0f}) at {budget} simulations, where random play is 0 and the solver "
                     f"{small.solver_elo:.0f}; {flat}. Your own run rates its networks on its own scale (random is 0 "
                     "there too) from its own games, so expect it near, not on, that figure.")
    rising = boards["elo_per_decade"].dropna()
    if len(rising):
        train_gain = float(rising.mean()) * math.log10(2)
        lines.append(f"Doubling the training compute buys about **{train_gain:.0f} Elo** on the rising frontier "
                     f"(averaged over the boards): the doubled run's network wins {expected_score(train_gain, 0):.0%} of its "
                     "games against the network it doubled.")
    doublings = search_doubling(points)
    if doublings:
        search = ", ".join(f"**{gain:.0f}** from {small_budget} to {large_budget}"
                           for small_budget, large_budget, gain in doublings)
        lines.append(f"Each doubling of the search buys each run's last network, in Elo averaged over the runs: "
                     f"{search} simulations a move.")
    lines.append(f"Along iso-Elo curves, {exchange_words(exchange)}.")
    return "\n\n".join(lines) + "\n"


def economies() -> str:
    """What the economies ablation measured: every variant at the same self-play
    evaluations, what Gumbel paid to reach PUCT 200's best, and which published
    networks differ from the recipe's by more than their intervals."""
    folder = "alphazero-economies-connect4"
    table = pd.read_csv(REPORTS / folder / "economies.csv")
    budget, at = alphazero_economies.common_budget(table)
    n, searched = int(table["reference_positions"].max()), alphazero_economies.recipe().eval_simulations
    lines = [f"What [the ablation](reports/{folder}/summary.md) measured, each run from a random network "
             f"on 2 cores. After the same {budget / 1e6:.1f} million self-play evaluations (all that the "
             f"thriftiest run spent), each run's best network by then loses, with {searched} simulations of search, "
             + ", ".join(f"{v.best['mistakes_search']:.1%} ({name}, {plural(v.iterations, 'iteration')})"
                         for name, v in sorted(at.items(), key=lambda item: item[1].best["mistakes_search"]))
             + f" of the {n} critical early-game positions."]
    reach = alphazero_economies.first_reaching(table)
    if reach is not None:
        best, firsts = reach
        reference, cost = str(best["variant"]), float(best["cumulative_evaluations"])
        reached = sorted(((float(row["cumulative_evaluations"]), name) for name, row in firsts.items()
                          if row is not None and name != reference))
        lines.append(f"{reference}'s best, {best['mistakes_search']:.1%}, took it {cost / 1e6:.1f} million; "
                     + ("; ".join(f"{name} first reached it after {evals / 1e6:.1f} million ({evals / cost:.0%})"
                                  for evals, name in reached) if reached else "no other run reached it")
                     + ".")
    published = {str(name): alphazero_economies.published_row(runs) for name, runs in table.groupby("variant")}
    lowest = min(published, key=lambda name: published[name]["mistakes_search"])
    top = published[lowest]
    low, high = wilson_interval(top["mistakes_search"], n)
    lines.append(f"The fewest mistakes of any published network: {lowest}'s {top['mistakes_search']:.1%} ({low:.1%} "
                 f"to {high:.1%}), after {top['cumulative_evaluations'] / 1e6:.1f} million evaluations.")
    recipe = published["puct100"]
    clear = []
    for name, row in published.items():
        for column, what in (("mistakes_search", "with search"), ("mistakes_raw", "raw policy")):
            low, high = wilson_interval(row[column], n)
            base_low, base_high = wilson_interval(recipe[column], n)
            if name != "puct100" and (high < base_low or low > base_high):
                clear.append(f"{name} ({what}: {row[column]:.1%}, {low:.1%} to {high:.1%}, against "
                             f"{recipe[column]:.1%}, {base_low:.1%} to {base_high:.1%})")
    lines.append("Published networks whose 95% interval does not overlap the recipe's (puct100, "
                 f"{recipe['mistakes_search']:.1%} with search, {recipe['mistakes_raw']:.1%} raw): "
                 + ("; ".join(clear) if clear else "none") + ".")
    return "\n".join(lines) + "\n"


def openspiel_answer() -> str:
    """OpenSpiel's MCTS against ours at the largest budget both played."""
    rated = ratings("vs-openspiel")
    theirs = max((e for e in rated.index if e.startswith("openspiel:")), key=lambda e: int(e.rsplit("=", 1)[1]))
    n = int(theirs.rsplit("=", 1)[1])
    ours = f"mcts:rounds={n}"
    return (f"at {n:,} simulations a move on Connect Four, OpenSpiel's MCTS rates {rated.loc[theirs, 'elo']:,.0f} "
            f"and ours {rated.loc[ours, 'elo']:,.0f} on the course's scale; ours takes "
            f"{rated.loc[ours, 'seconds_per_move']:.3f} s a move, OpenSpiel's {rated.loc[theirs, 'seconds_per_move']:.3f} s")


def engines_table() -> str:
    """Every registered engine with its parameters and defaults, from the registry itself."""
    def default(value: object) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        return "none" if value in ("", None) else str(value)

    out = ["| engine | what it does | parameters (defaults) |", "|---|---|---|"]
    for name in engine_names():
        alias_of = engine_class(name).alias_of
        params = (f"an alias: the parameters of {' and '.join(f'`{a}`' for a in alias_of)}" if alias_of
                  else ", ".join(f"`{p.name}={default(p.default)}`" for p in engine_parameters(name)))
        params += "".join(f" (old specs: `{old}=N` is `{other}:{renamed}=N`)"
                          for old, (other, renamed) in engine_class(name).moved_parameters.items())
        out.append(f"| `{name}` | {engine_description(name).replace('``', '`')} | {params} |")
    return "\n".join(out) + "\n"


def benchmark(name: str) -> Callable[[], str]:
    """The table a benchmark last wrote (``reports/benchmarks/NAME.md``), with the command that made it."""
    def block() -> str:
        text = (REPORTS / "benchmarks" / f"{name}.md").read_text()
        return text if text.endswith("\n") else text + "\n"
    block.__doc__ = f"reports/benchmarks/{name}.md"
    return block


def supervised() -> str:
    """Test accuracy and playing strength of the supervised runs."""
    out = ["| game | network, encoder | test top-1 | top-5 | uniform over legal moves | teacher's self-agreement "
           "| score vs random | vs MCTS 100 rounds |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for folder, game, spec in (("supervised-go9", "Go 9x9", "go:size=9"), ("supervised-connect4", "Connect Four",
                                                                          "connect4")):
        accuracy = pd.read_csv(REPORTS / folder / "accuracy.csv")
        best = accuracy.top1.idxmax()
        played = games(f"{folder}/tournament")
        predictor = next(s for s in played.black if s.startswith("predictor:"))
        for k, row in accuracy.iterrows():
            cells = ["", ""]
            if k == best:
                cells = [f"{s:.0%} ({n} games)" for s, n in (score(played, predictor, "random"),
                                                            score(played, predictor,
                                                                  course_spec("mcts:rounds=100", spec)))]
            out.append(f"| {game} | `{row.model}`, `{row.encoder}` | {row.top1:.1%} | {row.top5:.1%} | "
                       f"{row.uniform_legal:.1%} | {row.teacher:.1%} | {cells[0]} | {cells[1]} |")
    return "\n".join(out) + "\n"


def alphazero() -> str:
    """What each AlphaZero run reached, from its history and its final match."""
    out = ["| game | training (2 cores) | result | report |", "|---|---|---|---|"]
    ttt = history("alphazero-tictactoe")
    perfect = summary_table("alphazero-tictactoe", "## Against perfect play")
    out.append(f"| tic-tac-toe | {len(ttt)} iterations, {ttt.seconds.sum() / 60:.1f} minutes | never loses to "
               "perfect play: every line a perfect opponent can choose, "
               + " and ".join(f"{r[1]} as {r[0]}" for r in perfect)
               + f", {sum(int(r[2]) for r in perfect)} lost | [summary](reports/alphazero-tictactoe/summary.md) |")
    for folder, game, base in (("alphazero-connect4", "Connect Four", "the untrained network"),
                               ("alphazero-go5", "5x5 Go", "the untrained network"),
                               ("alphazero-go7", "7x7 Go, from nothing (Gumbel search, auxiliary targets)",
                                "the untrained network"),
                               ("alphazero-go9", "9x9 Go, from a supervised start (GNU Go's games)",
                                "its supervised start")):
        run = history(folder)
        network, opponent, total, played, by_colour = final_match(folder)
        simulations = network.rsplit("simulations=", 1)[1]
        out.append(f"| {game} | {trained_iterations(run)} iterations, {run.seconds.sum() / 60:.1f} minutes | "
                   f"**{total:.1%}** "
                   f"against `{opponent}` with {simulations} simulations a move ({played} games: "
                   f"{by_colour['black']:.1%} as black, {by_colour['white']:.1%} as white); Elo "
                   f"{run.elo.iloc[-1]:+,.0f} over {base} | [summary](reports/{folder}/summary.md) |")
    return "\n".join(out) + "\n"


def reinforcement() -> str:
    """What each learning-by-playing chapter (10-12) reached on Connect Four, and chapter 10's fine-tuning."""
    out = ["| method | training (wall time; each run shared 2 cores with others) | vs `random` | vs its start "
           "| vs `mcts:rounds=100` | report |",
           "|---|---|---:|---:|---:|---|"]
    for folder, method in (("ch10_policy_gradient", "`pg`, policy gradients"), ("ch11_q_learning", "`q`, Q-learning"),
                           ("ch12_actor_critic", "`ac`, actor-critic")):
        run = pd.read_csv(REPORTS / folder / "history.csv")
        final = pd.read_csv(REPORTS / folder / "final.csv").set_index("opponent")
        cells = [f"{final.score[o]:.1%}" for o in ("random", "its starting network", "mcts:rounds=100")]
        out.append(f"| {method} | {len(run)} generations, {run.seconds.sum() / 60:.0f} minutes | "
                   + " | ".join(cells) + f" | [summary](reports/{folder}/summary.md) |")
    out += ["", "The same three on 9x9 Go (`--game go:size=9 --games 100`: 100 self-play games per generation), "
            "also against a supervised predictor of GNU Go's moves (49% top-1; how it was made is told below):", "",
            "| method | training | vs `random` | vs its start | vs the predictor | report |",
            "|---|---|---:|---:|---:|---|"]
    for folder, method in (("ch10_policy_gradient-go9", "`pg`"), ("ch11_q_learning-go9", "`q`"),
                           ("ch12_actor_critic-go9", "`ac`")):
        run = pd.read_csv(REPORTS / folder / "history.csv")
        final = pd.read_csv(REPORTS / folder / "final.csv").set_index("opponent")
        predictor = final[final.index.str.startswith("predictor:")].score.iloc[0]
        out.append(f"| {method} | {len(run)} generations, {run.seconds.sum() / 60:.0f} minutes | "
                   f"{final.score['random']:.1%} | {final.score['its starting network']:.1%} | {predictor:.1%} | "
                   f"[summary](reports/{folder}/summary.md) |")
    tuned = pd.read_csv(REPORTS / "ch10_policy_gradient" / "finetune.csv").iloc[0]
    out += ["", f"Policy gradients from chapter 6-7's supervised predictor: the fine-tuned network scores "
            f"**{tuned.score:.1%}** against the predictor it started from ({int(tuned.games)} games, 95% interval "
            f"{tuned.low:.0%} to {tuned.high:.0%})."]
    return "\n".join(out) + "\n"


def course_scale() -> str:
    """The course's engines on one Connect Four scale (chapter 15's sample), family by family."""
    rated = ratings("ch15_strength_per_compute")
    network = [str(e) for e in rated.index]
    learnt = {family: [e for e in network if e.startswith(f"{family}:")] for family in ("predictor", "pg", "q", "ac")}
    families = [("random", "", ["random"], "nothing"),
                ("mcts", "10 / 100 / 1,000 rounds", [f"mcts:rounds={n}" for n in (10, 100, 1000)],
                 "nothing: rollouts need only the rules"),
                ("alphabeta", "depth 1 / 2 / 4", [f"alphabeta:depth={d},nodes=0" for d in (1, 2, 4)],
                 "a hand-written evaluation function"),
                ("predictor", "one network call", learnt["predictor"],
                 "a teacher's games and a training run (step 5: 3 minutes)"),
                ("pg", "one network call", learnt["pg"], "self-play by policy gradients (step 8)"),
                ("q", "one network call", learnt["q"], "self-play and sparring with `mcts:rounds=100`, by Q-learning (step 9)"),
                ("ac", "one network call", learnt["ac"], "self-play by actor-critic (step 10)"),
                ("alphazero", "raw policy / 50 simulations",
                 [f"alphazero:checkpoint=connect4,simulations={n}" for n in (0, 50)],
                 "self-play with search (two hours for the shipped network)")]
    rates = mistakes("ch15_strength_per_compute")
    out = ["| engine | budget | Elo | mistakes (critical) | seconds per move | before the first move |",
           "|---|---|---:|---:|---:|---|"]
    for family, budget, specs, before in families:
        specs = [e for e in specs if e in rated.index]
        if not specs:
            continue
        rows = rated.loc[specs]
        erring = " / ".join(f"{rates.loc[e, 'critical_rate']:.0%}" if e in rates.index else "-" for e in specs)
        out.append(f"| `{family}` | {budget} | " + " / ".join(f"{e:,.0f}" for e in rows.elo) + f" | {erring} | "
                   + " / ".join(f"{t:.2g}" for t in rows.seconds_per_move) + f" | {before} |")
    return "\n".join(out) + "\n"


def dead_stones() -> str:
    """How often each of our counts agrees with GNU Go's final score."""
    return "\n".join(line for line in (REPORTS / "dead-stones" / "summary.md").read_text().splitlines()
                     if line.startswith("|")) + "\n"


def vs_gnugo() -> str:
    """Ratings against GNU Go's levels and the handicap table."""
    rated = ratings("vs-gnugo")
    handicap = pd.read_csv(REPORTS / "vs-gnugo" / "handicap.csv")
    played = games("vs-gnugo")
    even = played[played.game == "go:size=9,komi=7.5"]
    out = ["| engine | even games (komi 7.5) | score | Elo (GNU Go level 10 = 1800) |", "|---|---:|---:|---:|"]
    for engine, row in rated.iterrows():
        s, n = score(even, str(engine))
        out.append(f"| `{engine}` | {n} | {s:.0%} | {row.elo:,.0f} |")
    pivot = handicap.pivot(index="engine", columns="handicap", values="score")
    out += ["", "Handicap against `gnugo:level=0` (our engine takes black and the stones, komi 0.5; "
            f"{handicap.games.iloc[0]} games each):", "",
            "| engine | " + " | ".join(f"{n} stones" for n in pivot.columns) + " |",
            "|---|" + "---:|" * len(pivot.columns)]
    out += [f"| `{engine}` | " + " | ".join(f"{v:.0%}" for v in row) + " |" for engine, row in pivot.iterrows()]
    return "\n".join(out) + "\n"


def course_minimax() -> str:
    """Step 2's findings: the same paragraph as the sample's summary, from its nodes.csv."""
    from experiments.chapters.ch04a_minimax_alphabeta import what_to_look_for

    return what_to_look_for(pd.read_csv(REPORTS / "ch04a_minimax_alphabeta" / "nodes.csv")) + "\n"


def course_random() -> str:
    """Step 1's findings, from the sample's games."""
    table = games("ch03_random_go")
    margins = [float(r[2:]) * (1 if r[0] == "B" else -1) for r in table.result if r[2:].replace(".", "").isdigit()]
    komi = float(table.game.iloc[0].split("komi=")[1])
    points = int(table.game.iloc[0].split("size=")[1].split(",")[0]) ** 2
    wipe_outs = sum(m in (points - komi, -points - komi) for m in margins)
    lengths = table.plies
    white = (table.winner == "white").mean()
    return (f"Game lengths average {lengths.mean():.0f} moves (from {lengths.min()} to {lengths.max()}). The "
            f"margins form a wide hump around 0 plus two spikes at {points - komi:+g} and {-points - komi:+g}: "
            f"in {wipe_outs} of {len(table):,} games ({wipe_outs / len(table):.0%}) one colour owns the whole "
            f"board because every stone of the other died. White wins {white:.0%}: that is the {komi:g} points "
            "of komi.\n")


def course_predictor() -> str:
    """Step 5's findings: the sample's own closing paragraph, from its accuracy and history."""
    from experiments.chapters.ch06_07_train_predictor import what_to_look_for

    folder = REPORTS / "ch06_07_train_predictor"
    row = pd.read_csv(folder / "accuracy.csv").iloc[0]
    history = pd.read_csv(folder / f"history-{row['model']}-{row['encoder']}.csv")
    teacher = {"teacher": row["teacher"]} if pd.notna(row["teacher"]) else {}
    return what_to_look_for(row, teacher, history) + "\n"


def course_alphazero_tictactoe() -> str:
    """Step 12's findings, from the sample's history and perfect-play table."""
    folder = "ch14a_alphazero_tictactoe"
    h = history(folder)
    rows = summary_table(folder, "## Against perfect play")
    games, lost = sum(int(r[1]) for r in rows), sum(int(r[2]) for r in rows)
    return (f"In the sample, {len(h)} iterations take {h['seconds'].sum() / 60:.1f} minutes. The trained network "
            f"then plays every line a perfect opponent can choose, from both sides: {lost} losses in {games} games. "
            f"The policy loss falls from {h['policy_loss'].iloc[0]:.2f} to {h['policy_loss'].iloc[-1]:.2f} and the "
            f"value loss from {h['value_loss'].iloc[0]:.3f} to {h['value_loss'].iloc[-1]:.3f}, while the Elo curve "
            f"ends at {h['elo'].iloc[-1]:+.0f}: even the untrained network with 50 simulations finds the forced "
            "wins and blocks, so the games between successive networks are mostly draws and their Elo steps mostly "
            "noise.\n")


def course_predictor_plays() -> str:
    """Step 6's findings, from the sample's table and ratings (on the course's scale)."""
    folder = "ch08_play_predictor"
    rows = [r for r in summary_rows(folder) if r[0].startswith("`")]  # the score table's opponents
    rated = ratings(f"{folder}/tournament")
    spec = next(e for e in rated.index if e.startswith("predictor:"))
    elo = rated.loc[spec, "elo"]
    mcts = rated[rated.index.str.startswith("mcts:")]["elo"]
    nearest = (mcts - elo).abs().idxmin()
    scores = ", ".join(f"{r[1]} against {r[0]}" for r in rows)
    return (f"In the sample the predictor scores {scores}. On the course's scale it rates {elo:.0f}, nearest to "
            f"`{nearest}` ({mcts[nearest]:.0f}), at the cost of a single network call per move.\n")


def summary_rows(folder: str) -> list[list[str]]:
    """The cells of every table row of a report's summary (the first column's text kept as written)."""
    lines = (REPORTS / folder / "summary.md").read_text().splitlines()
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines
            if line.startswith("|") and not line.startswith("|---")]


def course_mcts() -> str:
    """Step 3's findings, from the sample's ratings."""
    rated = pd.read_csv(REPORTS / "ch04b_mcts" / "tournament" / "ratings.csv")
    ladder = rated[rated.engine.str.startswith("mcts:")].sort_values("compute_per_move")
    elo, rounds = list(ladder.elo), [int(e.split("=")[1]) for e in ladder.engine]
    steps = ", ".join(f"{b - a:+.0f}" for a, b in zip(elo, elo[1:]))
    return (f"After that, each step of about three times the rounds adds {steps} Elo: from {elo[0]:+.0f} at "
            f"{rounds[0]:,} rounds to {elo[-1]:+,.0f} at {rounds[-1]:,} in the sample.\n")


def alphago_engine() -> str:
    """The guided alphago against the book's, from the Go engine's match (reports/mcts-go9)."""
    match = games("mcts-go9/match")
    opponent = "gnugo:level=10"
    specs = match_specs()
    rows = [("the networks guiding the Go engine", specs["alphago"]),
            ("the same, the value network mixed in at `lam=0.5`", specs["valued"]),
            ("the book's PUCT search (`plain=true`)", specs["book"]),
            ("the Go engine alone, no network", specs["engine"])]
    lines = ["| search | spec | against GNU Go level 10 | s/move |", "|---|---|---:|---:|"]
    lines += [f"| {label} | `{spec}` | {brief_score(match, spec, opponent)} | {seconds_per_move(match, spec):.2f} |"
              for label, spec in rows]
    return ("9x9, komi 7.5, colours alternating ([reports/mcts-go9](reports/mcts-go9/summary.md)):\n\n"
            + "\n".join(lines) + "\n")


def go_engine() -> str:
    """The Go engine against GNU Go, and what each of its features adds (reports/mcts-go9)."""
    from experiments.headline import mcts_go9

    match, ablation = games("mcts-go9/match"), games("mcts-go9/ablation")
    opponent = "gnugo:level=10"
    strong, plain = match_specs()["engine"], match_specs()["plain"]
    full = next(s for s in ablation.black if s.startswith("mcts:seconds=") and "," not in s)
    seconds = float(full.split("=")[1])
    base = mcts_go9.bare(seconds)
    rows = [("all five", full, full)] + [(name, mcts_go9.engine(seconds, off), mcts_go9.alone(seconds, name))
                                         for name, off in mcts_go9.FEATURES.items()]
    lines = [f"| feature | the full engine without it, against GNU Go level 10 | the bare engine with it alone, "
             "against the bare engine |", "|---|---:|---:|"]
    for name, without, alone in rows:
        cells = [brief_score(ablation, spec, rival) for spec, rival in ((without, opponent), (alone, base))]
        lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
    return (f"On 9x9 at {strong.split('=')[1]} s a move against GNU Go level 10, the readable UCT scores "
            f"{score(match, plain, opponent)[0]:.0%} of {score(match, plain, opponent)[1]} games and `{strong}` "
            f"{with_interval(match, strong, opponent)}. What each feature adds, at {seconds:g} s a move "
            f"([reports/mcts-go9](reports/mcts-go9/summary.md); the bare engine is `{base}`):\n\n"
            + "\n".join(lines) + "\n")


def course_alphago() -> str:
    """Step 11's findings, from chapter 13's sample: the policy, the value network, the match."""
    folder = REPORTS / "ch13_alphago"
    policy = pd.read_csv(folder / "accuracy.csv").iloc[0]
    value = pd.read_csv(folder / "value.csv").iloc[0]
    match = pd.read_csv(folder / "match.csv").set_index("engine")
    scores = "; ".join(f"{engine} {row.score:.1%} ({row.games} games, Elo {row.elo:,.0f} where GNU Go level 10 is "
                       f"1,800)" for engine, row in match.iterrows())
    return (f"the policy names GNU Go's move {policy.top1:.1%} of the time on held-out games (GNU Go repeats "
            f"itself {policy.teacher:.1%} of the time); the value network names the winner of "
            f"{value.winner:.1%} of held-out positions; against GNU Go level 10: {scores}.\n")


def kaggle() -> str:
    """The ConnectX sample's scores in Kaggle's own environment."""
    table = pd.read_csv(REPORTS / "kaggle-connectx" / "results.csv")
    parts = []
    for opponent, rows in table.groupby("opponent", sort=False):
        sides = ", ".join(f"{r.won} of {r.games} as the {r.side} player" for r in rows.itertuples())
        parts.append(f"against `{opponent}` {rows.won.sum()} of {rows.games.sum()} won ({sides})")
    return "In `kaggle-environments`: " + "; ".join(parts) + ".\n"


def vs_openspiel() -> str:
    """OpenSpiel's MCTS beside ours, from the sample's ratings (the course's scale)."""
    rated = ratings("vs-openspiel")
    lines = ["| budget | OpenSpiel's MCTS: Elo | seconds a move | our MCTS: Elo | seconds a move |",
             "|---:|---:|---:|---:|---:|"]
    for spec in sorted((e for e in rated.index if e.startswith("openspiel:")), key=lambda e: int(e.rsplit("=", 1)[1])):
        n = int(spec.rsplit("=", 1)[1])
        ours = f"mcts:rounds={n}"
        mine = (f"{rated.loc[ours, 'elo']:,.0f} | {rated.loc[ours, 'seconds_per_move']:.3f}" if ours in rated.index
                else "- | -")
        lines.append(f"| {n:,} | {rated.loc[spec, 'elo']:,.0f} | {rated.loc[spec, 'seconds_per_move']:.3f} | {mine} |")
    played = len(games("vs-openspiel"))
    return (f"From [reports/vs-openspiel](reports/vs-openspiel/summary.md) ({plural(played, 'game')}, Connect Four, "
            "our ladder held on the course's scale):\n\n" + "\n".join(lines) + "\n")


def solver_opening() -> str:
    """The first move's exact scores on Connect Four, from the shipped opening book."""
    from dlgo.games import new_game
    from dlgo.games.solvers.opening_book import shipped_book

    state = new_game("connect4")
    book = shipped_book(state.game)  # type: ignore[arg-type]
    if book is None:
        return "(no opening book shipped yet: `dlgo solve-book --plies 1 --ship` makes it)\n"
    scores = state.game.solver().move_scores(state)  # type: ignore[union-attr]
    words = {1: "first player wins", 0: "draw", -1: "second player wins"}
    return ("| first move (column) | " + " | ".join(str(c + 1) for c in sorted(scores)) + " |\n|---|"
            + "---:|" * len(scores) + "\n| score | " + " | ".join(f"{scores[c]:+d}" for c in sorted(scores))
            + " |\n| result | " + " | ".join(words[(v > 0) - (v < 0)] for _, v in sorted(scores.items())) + " |\n")


BLOCKS: dict[str, Callable[[], str]] = {
    "solver-opening": solver_opening,
    "kaggle": kaggle, "course-alphago": course_alphago, "vs-openspiel": vs_openspiel, "go-engine": go_engine,
    "alphago-engine": alphago_engine,
    "demo": demo, "answers": answers, "engines": engines_table, "supervised": supervised,
    "alphazero": alphazero, "economies": economies, "vs-gnugo": vs_gnugo, "dead-stones": dead_stones, "reinforcement": reinforcement,
    "course-scale": course_scale, "course-minimax": course_minimax, "course-predictor-plays": course_predictor_plays, "course-alphazero-tictactoe": course_alphazero_tictactoe, "course-predictor": course_predictor, "course-random": course_random, "course-mcts": course_mcts,
    "course-scaling": course_scaling, "scaling": scaling,
    **{f"bench-{name}": benchmark(name) for name in ("playouts", "search", "predictor", "selfplay", "selfplay-workers",
                                                          "web_engines", "solver")},
}


def render(text: str, root: str = "") -> str:
    """``text`` with every generated block rebuilt (an unknown block name is an
    error); ``root`` leads from the document's folder to the repository's, so
    that the blocks' links to reports resolve from README.md and docs/ alike."""
    def rebuild(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in BLOCKS:
            raise SystemExit(f"docs_figures: unknown block {name!r}; the blocks are: {', '.join(BLOCKS)}")
        body = BLOCKS[name]().replace("](reports/", f"]({root}reports/")
        return f"{match.group(1)}{body}{match.group(4)}"

    return BLOCK.sub(rebuild, text)


def root_of(path: Path) -> str:
    """The relative way from ``path``'s folder back to the repository root."""
    return "../" * len(path.parent.relative_to(ROOT).parts)


def stale() -> list[str]:
    """The documents whose generated blocks differ from what the reports say now."""
    return [str(path.relative_to(ROOT)) for path in DOCUMENTS
            if render(path.read_text(), root_of(path)) != path.read_text()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a block is stale")
    args = parser.parse_args(argv)
    if args.check:
        old = stale()
        for name in old:
            print(f"{name}: generated figures are stale; run python scripts/docs_figures.py", file=sys.stderr)
        return 1 if old else 0
    for path in DOCUMENTS:
        text = path.read_text()
        new = render(text, root_of(path))
        if new != text:
            with atomic_write(path) as handle:
                handle.write(new)
            print(f"updated {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
