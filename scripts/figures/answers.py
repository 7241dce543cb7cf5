"""The README's answers: what the suite finds, each with its figure and its report."""
from __future__ import annotations

from dlgo.arena.ratings import wilson_interval
from scripts.figures.common import elo, facts, mistakes, plural, ratings, score_in, with_interval
from scripts.figures.go19 import GO19, go19_answer, go19_facts
from scripts.figures.scaling import SCALING, scaling_answer, scaling_facts


def demo() -> str:
    """The demo's headline from its committed sample (reports/sample-connect4)."""
    rated = ratings("sample-connect4")
    best, second = list(rated)[:2]
    mcts = max((e for e in rated if e.startswith("mcts:")), key=lambda e: int(e.split("=")[1]))
    played = facts("sample-connect4")["games"]["games"]
    rates = mistakes("sample-connect4")
    erring = "" if not {best, mcts, "random"} <= set(rates) else (
        f" On {next(iter(rates.values()))['critical']} critical solved positions `{best}` changes the result in "
        f"{rates[best]['critical_rate']:.0%} of them, `{mcts}` in {rates[mcts]['critical_rate']:.0%}, "
        f"`random` in {rates['random']['critical_rate']:.0%}.")
    runner_up = (f"then the strongest MCTS, `{mcts}` ({rated[mcts]['elo']:,.0f}, at "
                 f"{rated[mcts]['seconds_per_move']:.2f} s a move)" if second == mcts else
                 f"then `{second}` ({rated[second]['elo']:,.0f}); the strongest MCTS, `{mcts}`, rates "
                 f"{rated[mcts]['elo']:,.0f} at {rated[mcts]['seconds_per_move']:.2f} s a move")
    return (f"{plural(played, 'game')} in all, every engine measured, on the tournament's own scale (random = 0). "
            f"`{best}` comes out on top (Elo {rated[best]['elo']:,.0f}, at "
            f"{rated[best]['seconds_per_move']:.2f} s a move), {runner_up}.{erring}\n")


def answers() -> str:
    """What the suite answers, each with its figure and its report."""
    rated = ratings("sample-connect4")
    best = next(iter(rated))
    perfect = facts("alphazero-tictactoe")["perfect_play"]
    lines, lost = sum(r["lines"] for r in perfect), sum(r["lost"] for r in perfect)
    learnt, best_rl = learning_by_playing_answer()
    rows = [
        ("Which engine is strongest on Connect Four, and at what cost?",
         f"`{best}`, first of {len(rated)} engines: Elo {rated[best]['elo']:,.0f} on the sample tournament's own "
         f"scale (random = 0) at {rated[best]['seconds_per_move']:.2f} s a move", "sample-connect4"),
        ("How close to perfect play does each engine come on Connect Four?", perfect_play_answer(),
         "perfect-play-connect4"),
        ("Can AlphaZero learn Connect Four on 2 cores?", alphazero_connect4_answer(), "alphazero-connect4"),
        ("And with the recipe the small boards picked, in 8 hours?", alphazero_connect4_recipe_answer(),
         "alphazero-connect4-recipe"),
        ("How far is self-play from learning the solver's truth on Connect Four?", ceiling_answer(),
         "connect4-ceiling"),
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
         "recipe-ablation"),
        ("Is our MCTS as strong and as fast as OpenSpiel's?", openspiel_answer(), "vs-openspiel"),
        ("Does search alone beat GNU Go on 9x9?", mcts_go9_answer(), "mcts-go9"),
        ("And AlphaGo's networks guiding that search?", alphago_engine_answer(), "mcts-go9"),
        ("How far from GNU Go are we on 9x9?", gnugo_answer(), "vs-gnugo"),
        ("Do we count a finished game as GNU Go does?", dead_stones_answer(), "dead-stones"),
    ]
    if scaling_facts() is not None:  # the lab's full run takes hours: its row comes with its report
        rows.insert(-4, ("How does strength grow with training and search compute, up to perfect play?",
                         scaling_answer(), SCALING))
    if "match" in go19_facts():  # the full board's run spans sessions: its row comes with its match
        rows.insert(rows.index(next(r for r in rows if r[2] == "vs-gnugo")) + 1,
                    ("And on the full 19x19 board, trained on 2 cores?", go19_answer(), GO19))
    out = ["| question | answer | report |", "|---|---|---|"]
    out += [f"| {q} | {a} | [{folder}](reports/{folder}/summary.md) |" for q, a, folder in rows]
    return "\n".join(out) + "\n"


def perfect_play_answer() -> str:
    """Each family at its fewest mistakes on the solved Connect Four sets."""
    rates = mistakes("perfect-play-connect4")
    if not rates:
        return "not measured yet: `python experiments/crosschecks/perfect_play.py --out reports/perfect-play-connect4`"
    best: dict[str, dict] = {}
    for row in sorted(rates.values(), key=lambda row: row["critical_rate"]):
        best.setdefault(row["family"], row)
    parts = [f"`{row['engine']}` {row['critical_rate']:.1%} ({row['critical_low']:.1%} to {row['critical_high']:.1%}) "
             f"at {row['seconds_per_move']:.2g} s a move" for row in best.values() if row["family"] != "solver"]
    first = next(iter(rates.values()))
    solver = rates.get("solver")
    return (f"mistakes per critical position, each family at its best on {first['critical']} critical positions of "
            f"{first['positions']:,} solved: " + "; ".join(parts)
            + (f"; the solver 0 at {solver['seconds_per_move']:.2g} s a move" if solver is not None else ""))


def final_match(folder: str) -> dict:
    """An AlphaZero run's final match: network, opponent, score, games, score as black and as white."""
    return facts(folder)["matches"]["match"]


def simulations_of(network: str) -> str:
    return network.rsplit("simulations=", 1)[1]


def alphazero_connect4_answer() -> str:
    """The Connect Four run: its hours and its final match."""
    match = final_match("alphazero-connect4")
    hours = facts("alphazero-connect4")["history"]["seconds"] / 3600
    return (f"after {hours:.1f} hours of self-play and training, {match['score']:.1%} against `{match['opponent']}` "
            f"({match['games']} games, {simulations_of(match['network'])} simulations a move)")


def learning_by_playing_answer() -> tuple[str, str]:
    """Chapters 10-12's networks against random and MCTS, and the report of the best of them."""
    learnt = {folder: facts(folder)["final"] for folder in ("ch10_policy_gradient", "ch11_q_learning",
                                                           "ch12_actor_critic")}
    best_rl = max(learnt, key=lambda folder: learnt[folder]["mcts:rounds=100"])
    sparred = facts(best_rl)["training"]["sparring"]
    return ("against `random`: " + ", ".join(f"{learnt[f]['random']:.0%} ({m})" for f, m in
                                            zip(learnt, ("policy gradients", "Q-learning", "actor-critic")))
            + f"; against `mcts:rounds=100` the best scores {learnt[best_rl]['mcts:rounds=100']:.0%}"
            + (" (it sparred with that engine as it learnt)" if sparred else ""), best_rl)


def alphazero_connect4_recipe_answer() -> str:
    """The recipe run on Connect Four: its hours, its final match and its network's mistakes with search."""
    match = final_match("alphazero-connect4-recipe")
    hours = facts("alphazero-connect4-recipe")["history"]["seconds"] / 3600
    rate = mistakes("perfect-play-connect4").get("alphazero:checkpoint=connect4,simulations=200")
    erring = "" if rate is None else (
        f"; at 200 simulations it changes the result in {rate['critical_rate']:.1%} ({rate['critical_low']:.1%} to "
        f"{rate['critical_high']:.1%}) of {rate['critical']} critical solved positions (`connect4`: it ships)")
    return (f"after {hours:.1f} hours, {match['score']:.1%} against `{match['opponent']}` ({match['games']} games, "
            f"{simulations_of(match['network'])} simulations a move){erring}")


def ceiling_answer() -> str:
    """The best network learnt from solved positions beside the self-play networks, raw and with search."""
    networks = facts("connect4-ceiling")["ceiling"]["networks"]
    best = max((n for n in networks if n["kind"] == "ceiling"), key=lambda n: n["learnt"])
    selfplay = "; ".join(f"`{n['network']}` (self-play) {n['raw']:.1%} and {n['search']:.1%}"
                         for n in networks if n["kind"] != "ceiling")
    return (f"on {best['positions']} critical positions, raw and at {best['simulations']} simulations, the network "
            f"learnt from {best['learnt']:,} solved positions errs in {best['raw']:.1%} and {best['search']:.1%}; "
            f"{selfplay}")


def alphazero_go5_answer() -> str:
    """The 5x5 Go run: its Elo climb and its final match."""
    history, match = facts("alphazero-go5")["history"], final_match("alphazero-go5")
    return (f"Elo {history['elo']:+,.0f} over its untrained self in {history['iterations']} iterations; "
            f"{match['score']:.0%} against `{match['opponent']}` ({match['games']} games)")


def supervised_go9_answer() -> str:
    """The best 9x9 predictor's accuracy, beside the book's and the teacher's own."""
    top = max(facts("supervised-go9")["accuracy"], key=lambda row: row["top1"])
    return (f"{top['top1']:.1%} top-1 ({top['model']} net, {top['encoder']} encoder), where the book reports 8.35% "
            f"and the teacher repeats itself {top['teacher']:.1%} of the time")


def alphago_answer() -> str:
    """Chapter 13's match, in a sentence."""
    match = {row["engine"]: row for row in facts("ch13_alphago")["match"]}
    ag, sl = match["alphago"], match["SL policy alone"]
    return (f"`alphago` (the book's PUCT search) at {ag['seconds_per_move']:.1f} s a move won {ag['score']:.1%} of "
            f"{ag['games']} even games against "
            f"GNU Go level 10 (Elo {ag['elo']:,.0f}, level 10 pinned at 1,800); its policy network alone, no search, "
            f"{sl['score']:.1%}")


def alphazero_go7_answer() -> str:
    """The zero-knowledge 7x7 run: its fixed opponent's score early and late, and the published network's match."""
    history, match = facts("alphazero-go7")["history"], final_match("alphazero-go7")
    opponent = match["opponent"]
    early, late = (history["fixed_opponents"][opponent][part] for part in ("early", "late"))
    return (f"Gumbel search at 16 simulations and KataGo's auxiliary targets, {history['trained_iterations']} "
            f"iterations in {history['seconds'] / 60:.0f} minutes: its score against `{opponent}` (20 games, 50 "
            f"simulations a move) averaged {early[0]:.0%} in iterations {early[1]}-{early[2]} and {late[0]:.0%} in "
            f"iterations {late[1]}-{late[2]}; the published network (iteration {history['published']}) with "
            f"{simulations_of(match['network'])} simulations scores "
            f"{with_interval(match['score'], match['games'])[:-1]}; {match['black']:.0%} as "
            f"black, {match['white']:.0%} as white)")


def alphazero_go9_answer() -> str:
    """AlphaGo Zero on 9x9: the final network, its supervised start and alphago against the same GNU Go."""
    found = facts("alphazero-go9")
    match, minutes = found["matches"]["match"], found["history"]["seconds"] / 60
    spent = f"{minutes:.0f} minutes" if minutes < 90 else f"{minutes / 60:.1f} hours"
    others = [f"{label} {found['matches'][folder]['score']:.0%} of {found['matches'][folder]['games']}"
              for folder, label in (("match-supervised", "its supervised start (same search)"),
                                    ("match-alphago", "`alphago` (the book's PUCT search) at 2 s a move"))
              if folder in found["matches"]]
    return (f"after {spent} of self-play and training, {match['score']:.0%} of {match['games']} even games against "
            f"`{match['opponent']}` ({simulations_of(match['network'])} simulations a move); " + "; ".join(others))


def economies_answer() -> str:
    """The economies ablation in one cell: the variants, best first, at the thriftiest run's evaluations."""
    economies = facts("alphazero-economies-connect4")["economies"]
    ranked = sorted(economies["at_budget"], key=lambda row: row["mistakes_search"])
    n = economies["positions"]
    low, high = wilson_interval(ranked[len(ranked) // 2]["mistakes_search"], n)
    return (f"after {economies['budget'] / 1e6:.1f} million self-play evaluations from a random network, the share of "
            f"{n} critical early-game positions each run's best network loses with search: "
            + ", ".join(f"{row['variant']} {row['mistakes_search']:.1%}" for row in ranked)
            + f" (95% intervals about ±{(high - low) * 50:.0f} points)")


def recipe_answer() -> str:
    """The recipe's reach in one cell: per board, its mistakes at search beside its network's ceiling."""
    recipe = facts("recipe-ablation")["recipe"]
    cells = [f"{b['board']} **{b['search']:.1%}** ({b['search_low']:.1%} to {b['search_high']:.1%}; "
             f"{b['raw']:.1%} raw) in {b['minutes']:.0f} minutes"
             + (f", its network's ceiling {b['ceiling']:.1%}" if b["ceiling"] is not None else "")
             for b in recipe["boards"]]
    return (f"mistakes on the critical solved positions at {recipe['simulations']} simulations a move, from a random "
            f"network on 2 cores with the recipe (the ablation's `{recipe['variant']}`): " + "; ".join(cells)
            + f"; perfect play, {recipe['perfect_play']:.0%} or less, reached on "
            f"{', '.join(recipe['perfect']) or 'none yet'}")


def openspiel_answer() -> str:
    """OpenSpiel's MCTS against ours at the largest budget both played."""
    rated = ratings("vs-openspiel")
    theirs = max((e for e in rated if e.startswith("openspiel:")), key=lambda e: int(e.rsplit("=", 1)[1]))
    n = int(theirs.rsplit("=", 1)[1])
    ours = f"mcts:rounds={n}"
    games = facts("vs-openspiel")["games"]
    return (f"at {n:,} simulations a move on Connect Four, on the course's scale, OpenSpiel's MCTS rates "
            f"{elo(rated[theirs])} and ours {elo(rated[ours])}; in the same games OpenSpiel's scores "
            f"{score_in(games, theirs)[0]:.1%} and ours {score_in(games, ours)[0]:.1%}; ours takes "
            f"{rated[ours]['seconds_per_move']:.3f} s a move, OpenSpiel's {rated[theirs]['seconds_per_move']:.3f} s")


def go_match() -> dict:
    """The Go engine's match against GNU Go (reports/mcts-go9): each role's spec and score."""
    return facts("mcts-go9")["match"]


def mcts_go9_answer() -> str:
    """The Go engine's match against GNU Go level 10, beside the readable UCT."""
    roles = go_match()["roles"]
    strong, plain = roles["engine"], roles["plain"]
    seconds = strong["spec"].split("seconds=")[1]
    return (f"`{strong['spec']}` (pure search, compiled, no network) scores "
            f"{with_interval(*strong['against'], 'even games')} against GNU Go level 10, at {seconds} s a move "
            f"or less; the readable UCT at the same time {plain['against'][0]:.0%} of {plain['against'][1]}")


def alphago_engine_answer() -> str:
    """AlphaGo's networks guiding the Go engine, against the book's PUCT search with the same networks."""
    roles = go_match()["roles"]
    guided, book = roles["alphago"], roles["book"]
    return (f"`{guided['spec']}`, its networks guiding the compiled Go engine, scores "
            f"{with_interval(*guided['against'], 'even games')} against GNU Go level 10; the same networks in "
            f"the book's PUCT search (`plain=true`) {with_interval(*book['against'])}")


def gnugo_answer() -> str:
    """Our best engines' even games against GNU Go, and the handicap that evens them."""
    found = facts("vs-gnugo")
    rated = ratings("vs-gnugo")
    ours = [e for e in rated if not e.startswith("gnugo:")]
    even = {e: score_in(found["games"], e, game="go:size=9,komi=7.5") for e in ours}
    won = sum(value * n for value, n in even.values())
    enough = sorted((row for row in found["handicap"] if row["score"] >= 0.5), key=lambda row: row["handicap"])
    stones = (f"; the fewest stones that win half the games against level 0: {enough[0]['handicap']}, for "
              f"`{enough[0]['engine']}`") if enough else "; no handicap tried was enough"
    return ("even games against levels 0, 5 and 10 (Elo with GNU Go's levels pinned, level 10 at 1,800): " + "; ".join(
        f"`{e}` {even[e][0]:.0%} of {even[e][1]} (Elo {elo(rated[e])})"
        for e in sorted(ours, key=lambda e: -rated[e]["elo"])[:3])
        + f"; we won {won:.0f} of {sum(n for _, n in even.values())} in all{stones}")


def dead_stones_answer() -> str:
    """Our count of finished games against GNU Go's, with dead stones estimated and without."""
    ours = facts("dead-stones")["dead_stones"]["sets"]["ours against GNU Go"]
    return (f"with dead stones estimated, the same winner in {ours['dead_stones_winner']} and the same margin "
            f"in {ours['dead_stones_margin']} of {ours['games']} games against it (the board as it stands: "
            f"{ours['plain_winner']} and {ours['plain_margin']})")
