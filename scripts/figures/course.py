"""The course's findings (docs/course.md), each step's from its chapter's committed sample."""
from __future__ import annotations

from scripts.figures.common import facts, mistakes, ratings


def course_random() -> str:
    """Step 1's findings, from the sample's games."""
    games = facts("ch03_random_go")["random_games"]
    mean, shortest, longest = games["plies"]
    komi, points, n = games["komi"], games["points"], games["games"]
    return (f"Game lengths average {mean:.0f} moves (from {shortest} to {longest}). The "
            f"margins form a wide hump around 0 plus two spikes at {points - komi:+g} and {-points - komi:+g}: "
            f"in {games['wipe_outs']} of {n:,} games ({games['wipe_outs'] / n:.0%}) one colour owns the whole "
            f"board because every stone of the other died. White wins {games['white_wins']:.0%}: that is the {komi:g} "
            "points of komi.\n")


def course_minimax() -> str:
    """Step 2's findings: the same paragraph as the sample's summary."""
    return facts("ch04a_minimax_alphabeta")["findings"] + "\n"


def course_mcts() -> str:
    """Step 3's findings, from the sample's ratings."""
    ladder = sorted((row for engine, row in ratings("ch04b_mcts/tournament").items() if engine.startswith("mcts:")),
                    key=lambda row: row["compute_per_move"])
    elo, rounds = [row["elo"] for row in ladder], [int(row["engine"].split("=")[1]) for row in ladder]
    steps = ", ".join(f"{b - a:+.0f}" for a, b in zip(elo, elo[1:]))
    return (f"After that, each step of about three times the rounds adds {steps} Elo: from {elo[0]:+.0f} at "
            f"{rounds[0]:,} rounds to {elo[-1]:+,.0f} at {rounds[-1]:,} in the sample.\n")


def course_predictor() -> str:
    """Step 5's findings: the sample's own closing paragraph."""
    return facts("ch06_07_train_predictor")["findings"] + "\n"


def course_predictor_plays() -> str:
    """Step 6's findings, from the sample's scores and ratings (on the course's scale)."""
    folder = "ch08_play_predictor"
    rated = ratings(f"{folder}/tournament")
    spec = next(e for e in rated if e.startswith("predictor:"))
    elo = rated[spec]["elo"]
    mcts = {engine: row["elo"] for engine, row in rated.items() if engine.startswith("mcts:")}
    nearest = min(mcts, key=lambda engine: abs(mcts[engine] - elo))
    scores = ", ".join(f"{score:.0%} against `{opponent}`" for opponent, score, _ in facts(folder)["scores"])
    return (f"In the sample the predictor scores {scores}. On the course's scale it rates {elo:.0f}, nearest to "
            f"`{nearest}` ({mcts[nearest]:.0f}), at the cost of a single network call per move.\n")


def course_alphago() -> str:
    """Step 11's findings, from chapter 13's sample: the policy, the value network, the match."""
    found = facts("ch13_alphago")
    policy, value = found["policy"], found["value"]
    scores = "; ".join(f"{row['engine']} {row['score']:.1%} ({row['games']} games, Elo {row['elo']:,.0f} where GNU Go "
                       "level 10 is 1,800)" for row in found["match"])
    return (f"the policy names GNU Go's move {policy['top1']:.1%} of the time on held-out games (GNU Go repeats "
            f"itself {policy['teacher']:.1%} of the time); the value network names the winner of "
            f"{value['winner']:.1%} of held-out positions; against GNU Go level 10: {scores}.\n")


def course_alphazero_tictactoe() -> str:
    """Step 12's findings, from the sample's history and perfect-play check."""
    found = facts("ch14a_alphazero_tictactoe")
    h, perfect = found["history"], found["perfect_play"]
    games, lost = sum(r["lines"] for r in perfect), sum(r["lost"] for r in perfect)
    return (f"In the sample, {h['iterations']} iterations take {h['seconds'] / 60:.1f} minutes. The trained network "
            f"then plays every line a perfect opponent can choose, from both sides: {lost} losses in {games} games. "
            f"The policy loss falls from {h['policy_loss'][0]:.2f} to {h['policy_loss'][1]:.2f} and the "
            f"value loss from {h['value_loss'][0]:.3f} to {h['value_loss'][1]:.3f}, while the Elo curve "
            f"ends at {h['elo']:+.0f}: even the untrained network with 50 simulations finds the forced "
            "wins and blocks, so the games between successive networks are mostly draws and their Elo steps mostly "
            "noise.\n")


def course_scale() -> str:
    """The course's engines on one Connect Four scale (chapter 15's sample), family by family."""
    rated = ratings("ch15_strength_per_compute")
    learnt = {family: [e for e in rated if e.startswith(f"{family}:")] for family in ("predictor", "pg", "q", "ac")}
    families = [("random", "", ["random"], "nothing"),
                ("mcts", "10 / 100 / 1,000 rounds", [f"mcts:rounds={n}" for n in (10, 100, 1000)],
                 "nothing: rollouts need only the rules"),
                ("alphabeta", "depth 1 / 2 / 4", [f"alphabeta:depth={d},nodes=0" for d in (1, 2, 4)],
                 "a hand-written evaluation function"),
                ("predictor", "one network call", learnt["predictor"],
                 "a teacher's games and a training run (step 5: 3 minutes)"),
                ("pg", "one network call", learnt["pg"], "self-play by policy gradients (step 8)"),
                ("q", "one network call", learnt["q"],
                 "self-play and sparring with `mcts:rounds=100`, by Q-learning (step 9)"),
                ("ac", "one network call", learnt["ac"], "self-play by actor-critic (step 10)"),
                ("alphazero", "raw policy / 50 simulations",
                 [f"alphazero:checkpoint=connect4,simulations={n}" for n in (0, 50)],
                 "self-play with search (7.7 hours on 2 cores for the shipped network)")]
    rates = mistakes("ch15_strength_per_compute")
    out = ["| engine | budget | Elo | mistakes (critical) | seconds per move | before the first move |",
           "|---|---|---:|---:|---:|---|"]
    for family, budget, specs, before in families:
        specs = [e for e in specs if e in rated]
        if not specs:
            continue
        erring = " / ".join(f"{rates[e]['critical_rate']:.0%}" if e in rates else "-" for e in specs)
        out.append(f"| `{family}` | {budget} | " + " / ".join(f"{rated[e]['elo']:,.0f}" for e in specs)
                   + f" | {erring} | " + " / ".join(f"{rated[e]['seconds_per_move']:.2g}" for e in specs)
                   + f" | {before} |")
    return "\n".join(out) + "\n"
