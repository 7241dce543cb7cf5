"""The documents' tables and paragraphs of results: each from its report's facts."""
from __future__ import annotations

import math
from typing import Callable

from dlgo.arena.ratings import wilson_interval
from engines.registry import engine_class, engine_description, engine_names, engine_parameters
from scripts.figures import common
from scripts.figures.answers import final_match, go_match
from scripts.figures.common import brief_score, elo, facts, plural, ratings, score_in, with_interval


def supervised() -> str:
    """Test accuracy and playing strength of the supervised runs."""
    out = ["| game | network, encoder | test top-1 | top-5 | uniform over legal moves | teacher's self-agreement "
           "| score vs random | vs MCTS 100 rounds |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for folder, game in (("supervised-go9", "Go 9x9"), ("supervised-connect4", "Connect Four")):
        found = facts(folder)
        accuracy, predictor = found["accuracy"], found["predictor"]
        best = max(range(len(accuracy)), key=lambda k: (accuracy[k]["top1"], -k))
        for k, row in enumerate(accuracy):
            cells = [f"{s:.0%} ({n} games)" for s, n in (predictor["random"], predictor["mcts100"])] \
                if k == best else ["", ""]
            out.append(f"| {game} | `{row['model']}`, `{row['encoder']}` | {row['top1']:.1%} | {row['top5']:.1%} | "
                       f"{row['uniform_legal']:.1%} | {row['teacher']:.1%} | {cells[0]} | {cells[1]} |")
    return "\n".join(out) + "\n"


def alphazero() -> str:
    """What each AlphaZero run reached, from its history and its final match."""
    out = ["| game | training (2 cores) | result | report |", "|---|---|---|---|"]
    ttt = facts("alphazero-tictactoe")
    perfect = ttt["perfect_play"]
    out.append(f"| tic-tac-toe | {ttt['history']['iterations']} iterations, {ttt['history']['seconds'] / 60:.1f} "
               "minutes | never loses to perfect play: every line a perfect opponent can choose, "
               + " and ".join(f"{r['lines']} as {r['side']}" for r in perfect)
               + f", {sum(r['lost'] for r in perfect)} lost | [summary](reports/alphazero-tictactoe/summary.md) |")
    for folder, game, base in (("alphazero-connect4", "Connect Four", "the untrained network"),
                               ("alphazero-go5", "5x5 Go", "the untrained network"),
                               ("alphazero-go7", "7x7 Go, from nothing (Gumbel search, auxiliary targets)",
                                "the untrained network"),
                               ("alphazero-go9", "9x9 Go, from a supervised start (GNU Go's games)",
                                "its supervised start")):
        history, match = facts(folder)["history"], final_match(folder)
        simulations = match["network"].rsplit("simulations=", 1)[1]
        out.append(f"| {game} | {history['trained_iterations']} iterations, {history['seconds'] / 60:.1f} minutes | "
                   f"**{match['score']:.1%}** "
                   f"against `{match['opponent']}` with {simulations} simulations a move ({match['games']} games: "
                   f"{match['black']:.1%} as black, {match['white']:.1%} as white)"
                   + ("" if math.isnan(history["elo"]) else f"; Elo {history['elo']:+,.0f} over {base}")
                   + f" | [summary](reports/{folder}/summary.md) |")
    return "\n".join(out) + "\n"


def reinforcement() -> str:
    """What each learning-by-playing chapter (10-12) reached on Connect Four, and chapter 10's fine-tuning."""
    out = ["| method | training (wall time; each run shared 2 cores with others) | vs `random` | vs its start "
           "| vs `mcts:rounds=100` | report |",
           "|---|---|---:|---:|---:|---|"]
    for folder, method in (("ch10_policy_gradient", "`pg`, policy gradients"), ("ch11_q_learning", "`q`, Q-learning"),
                           ("ch12_actor_critic", "`ac`, actor-critic")):
        training, final = facts(folder)["training"], facts(folder)["final"]
        cells = [f"{final[o]:.1%}" for o in ("random", "its starting network", "mcts:rounds=100")]
        out.append(f"| {method} | {training['generations']} generations, {training['seconds'] / 60:.0f} minutes | "
                   + " | ".join(cells) + f" | [summary](reports/{folder}/summary.md) |")
    out += ["", "The same three on 9x9 Go (`--game go:size=9 --games 100`: 100 self-play games per generation), "
            "also against a supervised predictor of GNU Go's moves (49% top-1; how it was made is told below):", "",
            "| method | training | vs `random` | vs its start | vs the predictor | report |",
            "|---|---|---:|---:|---:|---|"]
    for folder, method in (("ch10_policy_gradient-go9", "`pg`"), ("ch11_q_learning-go9", "`q`"),
                           ("ch12_actor_critic-go9", "`ac`")):
        training, final = facts(folder)["training"], facts(folder)["final"]
        predictor = next(score for opponent, score in final.items() if opponent.startswith("predictor:"))
        out.append(f"| {method} | {training['generations']} generations, {training['seconds'] / 60:.0f} minutes | "
                   f"{final['random']:.1%} | {final['its starting network']:.1%} | {predictor:.1%} | "
                   f"[summary](reports/{folder}/summary.md) |")
    tuned = facts("ch10_policy_gradient")["finetune"]
    out += ["", f"Policy gradients from chapter 6-7's supervised predictor: the fine-tuned network scores "
            f"**{tuned['score']:.1%}** against the predictor it started from ({tuned['games']} games, 95% interval "
            f"{tuned['low']:.0%} to {tuned['high']:.0%})."]
    return "\n".join(out) + "\n"


def vs_gnugo() -> str:
    """Ratings against GNU Go's levels and the handicap table."""
    found = facts("vs-gnugo")
    out = ["| engine | even games (komi 7.5) | score | Elo (GNU Go's levels pinned, level 10 at 1,800) |",
           "|---|---:|---:|---:|"]
    for engine, row in ratings("vs-gnugo").items():
        s, n = score_in(found["games"], engine, game="go:size=9,komi=7.5")
        out.append(f"| `{engine}` | {n} | {s:.0%} | {elo(row)} |")
    handicap = found["handicap"]
    stones = sorted({row["handicap"] for row in handicap})
    scores = {(row["engine"], row["handicap"]): row["score"] for row in handicap}
    out += ["", "Handicap against `gnugo:level=0` (our engine takes black and the stones, komi 0.5; "
            f"{handicap[0]['games']} games each):", "",
            "| engine | " + " | ".join(f"{n} stones" for n in stones) + " |",
            "|---|" + "---:|" * len(stones)]
    out += [f"| `{engine}` | " + " | ".join(f"{scores.get((engine, n), float('nan')):.0%}" for n in stones) + " |"
            for engine in sorted({row["engine"] for row in handicap})]
    return "\n".join(out) + "\n"


def dead_stones() -> str:
    """How often each of our counts agrees with GNU Go's final score."""
    return "\n".join(facts("dead-stones")["dead_stones"]["table"]) + "\n"


def alphago_engine() -> str:
    """The guided alphago against the book's, from the Go engine's match (reports/mcts-go9)."""
    roles = go_match()["roles"]
    rows = [("the networks guiding the Go engine", "alphago"),
            ("the same, the value network mixed in at `lam=0.5`", "valued"),
            ("the book's PUCT search (`plain=true`)", "book"),
            ("the Go engine alone, no network", "engine")]
    lines = ["| search | spec | against GNU Go level 10 | s/move |", "|---|---|---:|---:|"]
    lines += [f"| {label} | `{roles[role]['spec']}` | {brief_score(*roles[role]['against'])} | "
              f"{roles[role]['seconds_per_move']:.2f} |" for label, role in rows]
    return ("9x9, komi 7.5, colours alternating ([reports/mcts-go9](reports/mcts-go9/summary.md)):\n\n"
            + "\n".join(lines) + "\n")


def go_engine() -> str:
    """The Go engine against GNU Go, and what each of its features adds (reports/mcts-go9)."""
    roles, ablation = go_match()["roles"], facts("mcts-go9")["ablation"]
    strong, plain = roles["engine"], roles["plain"]
    lines = ["| feature | the full engine without it, against GNU Go level 10 | the bare engine with it alone, "
             "against the bare engine |", "|---|---:|---:|"]
    lines += [f"| {row['feature']} | {brief_score(*row['without'])} | {brief_score(*row['alone'])} |"
              for row in ablation["features"]]
    return (f"On 9x9 at {strong['spec'].split('=')[1]} s a move against GNU Go level 10, the readable UCT scores "
            f"{plain['against'][0]:.0%} of {plain['against'][1]} games and `{strong['spec']}` "
            f"{with_interval(*strong['against'])}. What each feature adds, at {ablation['seconds']:g} s a move "
            f"([reports/mcts-go9](reports/mcts-go9/summary.md); the bare engine is `{ablation['bare']}`):\n\n"
            + "\n".join(lines) + "\n")


def kaggle() -> str:
    """The ConnectX sample's scores in Kaggle's own environment."""
    by_opponent: dict[str, list[dict]] = {}
    for row in facts("kaggle-connectx")["kaggle"]:
        by_opponent.setdefault(row["opponent"], []).append(row)
    parts = []
    for opponent, rows in by_opponent.items():
        sides = ", ".join(f"{r['won']} of {r['games']} as the {r['side']} player" for r in rows)
        parts.append(f"against `{opponent}` {sum(r['won'] for r in rows)} of {sum(r['games'] for r in rows)} won "
                     f"({sides})")
    return "In `kaggle-environments`: " + "; ".join(parts) + ".\n"


def vs_openspiel() -> str:
    """OpenSpiel's MCTS beside ours, from the sample's ratings (the course's scale)."""
    rated = ratings("vs-openspiel")
    lines = ["| budget | OpenSpiel's MCTS: Elo | seconds a move | our MCTS: Elo | seconds a move |",
             "|---:|---:|---:|---:|---:|"]
    for spec in sorted((e for e in rated if e.startswith("openspiel:")), key=lambda e: int(e.rsplit("=", 1)[1])):
        n = int(spec.rsplit("=", 1)[1])
        ours = rated.get(f"mcts:rounds={n}")
        mine = f"{elo(ours)} | {ours['seconds_per_move']:.3f}" if ours else "- | -"
        lines.append(f"| {n:,} | {elo(rated[spec])} | {rated[spec]['seconds_per_move']:.3f} | {mine} |")
    played = facts("vs-openspiel")["games"]["games"]
    return (f"From [reports/vs-openspiel](reports/vs-openspiel/summary.md) ({plural(played, 'game')}, Connect Four, "
            "on the course's scale: our ladder pinned at its calibrated ratings, OpenSpiel's MCTS measured against "
            "it):\n\n" + "\n".join(lines) + "\n")


def economies() -> str:
    """What the economies ablation measured: every variant at the same self-play
    evaluations, what Gumbel paid to reach PUCT 200's best, and which published
    networks differ from the recipe's by more than their intervals."""
    folder = "alphazero-economies-connect4"
    e = facts(folder)["economies"]
    n = e["positions"]
    lines = [f"What [the ablation](reports/{folder}/summary.md) measured, each run from a random network "
             f"on 2 cores. After the same {e['budget'] / 1e6:.1f} million self-play evaluations (all that the "
             f"thriftiest run spent), each run's best network by then loses, with {e['simulations']} simulations of "
             "search, "
             + ", ".join(f"{v['mistakes_search']:.1%} ({v['variant']}, {plural(v['iterations'], 'iteration')})"
                         for v in sorted(e["at_budget"], key=lambda v: v["mistakes_search"]))
             + f" of the {n} critical early-game positions."]
    if e["reach"] is not None:
        reach = e["reach"]
        cost = reach["evaluations"]
        reached = sorted((row["evaluations"], row["variant"]) for row in reach["firsts"])
        lines.append(f"{reach['variant']}'s best, {reach['mistakes_search']:.1%}, took it {cost / 1e6:.1f} million; "
                     + ("; ".join(f"{name} first reached it after {evals / 1e6:.1f} million ({evals / cost:.0%})"
                                  for evals, name in reached) if reached else "no other run reached it")
                     + ".")
    published = {row["variant"]: row for row in e["published"]}
    lowest = min(published, key=lambda name: published[name]["mistakes_search"])
    top = published[lowest]
    low, high = wilson_interval(top["mistakes_search"], n)
    lines.append(f"The fewest mistakes of any published network: {lowest}'s {top['mistakes_search']:.1%} ({low:.1%} "
                 f"to {high:.1%}), after {top['cumulative_evaluations'] / 1e6:.1f} million evaluations.")
    lines.append(apart_from_the_recipe(published, n))
    return "\n".join(lines) + "\n"


def apart_from_the_recipe(published: dict[str, dict], n: int, recipe_name: str = "puct100") -> str:
    """The published networks whose 95% interval does not overlap the recipe's, with search or raw."""
    recipe = published[recipe_name]
    clear = []
    for name, row in published.items():
        for column, what in (("mistakes_search", "with search"), ("mistakes_raw", "raw policy")):
            low, high = wilson_interval(row[column], n)
            base_low, base_high = wilson_interval(recipe[column], n)
            if name != recipe_name and (high < base_low or low > base_high):
                clear.append(f"{name} ({what}: {row[column]:.1%}, {low:.1%} to {high:.1%}, against "
                             f"{recipe[column]:.1%}, {base_low:.1%} to {base_high:.1%})")
    return (f"Published networks whose 95% interval does not overlap the recipe's ({recipe_name}, "
            f"{recipe['mistakes_search']:.1%} with search, {recipe['mistakes_raw']:.1%} raw): "
            + ("; ".join(clear) if clear else "none") + ".")


def engines_table() -> str:
    """Every registered engine with its parameters, their defaults and its unit of work, from the registry itself."""
    def default(value: object) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        return "none" if value in ("", None) else str(value)

    out = ["| engine | what it does | parameters (defaults) | work counted in |", "|---|---|---|---|"]
    for name in engine_names():
        alias_of = engine_class(name).alias_of
        units = dict.fromkeys(unit for engine in alias_of or [name]
                              for unit in engine_class(engine).units or (engine_class(engine).unit,))
        params = (f"an alias: the parameters of {' and '.join(f'`{a}`' for a in alias_of)}" if alias_of
                  else ", ".join(f"`{p.name}={default(p.default)}`" for p in engine_parameters(name)))
        params += "".join(f" (old specs: `{old}=N` is `{other}:{renamed}=N`)"
                          for old, (other, renamed) in engine_class(name).moved_parameters.items())
        out.append(f"| `{name}` | {engine_description(name)} | {params} | {' or '.join(units)} |")
    return "\n".join(out) + "\n"


def games_table() -> str:
    """Every registered game: what it is, ``new_game`` with its options' defaults, how a move is
    typed and the default game's actions, each asked of the registry and the game itself."""
    from dlgo.games import GAMES, game_options, new_game

    out = ["| game | what it is | `new_game(...)` | a move is typed as | actions (the default game) |",
           "|---|---|---|---|---|"]
    for name, spec in GAMES.items():
        call = ", ".join([f'"{name}"', *(f"{k}={v!r}" for k, v in game_options(name).items())])
        state = new_game(name)
        passing = " (the last: pass)" if state.game.has_pass else ""
        out.append(f"| `{name}` | {spec.description} | `{call}` | {state.move_help()} | "
                   f"{state.game.num_actions}{passing} |")
    return "\n".join(out) + "\n"


def benchmark(name: str) -> Callable[[], str]:
    """The table a benchmark last wrote (``reports/benchmarks/NAME.md``), with the command that made it."""
    def block() -> str:
        text = (common.REPORTS / "benchmarks" / f"{name}.md").read_text()
        return text if text.endswith("\n") else text + "\n"
    block.__doc__ = f"reports/benchmarks/{name}.md"
    return block


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
