"""Chapter 11: Q-learning. Can a network that values every move learn Connect Four from its own games?

    python experiments/ch11_q_learning.py                  # about 20 minutes
    python experiments/ch11_q_learning.py --generations 400     # continues the run
    python experiments/ch11_q_learning.py --game go:size=9
    python experiments/ch11_q_learning.py --quick

A ``q`` network starts from random weights. Each generation it plays games
against itself, choosing the move it values most and, one time in ten
(``epsilon``), a random one to explore; then it learns from them: the value of
each move it played moves towards the result that followed (discounted by
``discount`` per later move), by squared error on that action alone. After
every generation the new network plays the one before (greedy, the book's
binomial test) and the baselines. At the end the last network plays
``random``, ``mcts:rounds=100`` and its own starting network, --final-games
games each. Writes ``history.csv``, ``learning_curve.png``, ``final.csv``, a game
and ``summary.md`` to --out; the run (resumable: rerun the same command) goes
to --work.
"""
from __future__ import annotations

import sys

from experiments import common

CHAPTER = common.RLChapter(
    script="ch11_q_learning", title="Chapter 11: Q-learning", method="q", generations=644,
    settings={"learning_rate": 1e-3, "discount": 0.95, "epsilon": 0.1},
    about="The `q` network outputs, for every move, the result it expects after playing it (from -1, a sure "
          "loss, to +1, a sure win) and plays the move it values most. In self-play it explores: with "
          "probability `epsilon` it plays a random move instead. It learns each move's value from the result "
          "that followed, discounted per later move (a Monte Carlo target: no bootstrapping from the next "
          "position's value, as in the book).",
    look_for="""\
Against `random` the curve climbs over the first hundred generations: a move
that completes four is worth +1 in every game where it is played, so the
network learns to take wins, and then to block. Against its own starting
network it wins nearly everything. The curve against the generation before
hovers around 50%: each generation changes the network a little, and the
binomial test rarely calls a step significant, which is why the book keeps a
network only when it is. Against `mcts:rounds=100` a network without search
is at a disadvantage: MCTS reads the tactics of every position, the network
only recalls what its games taught it. Predict, then measure: with
`--epsilon 0` (no exploration), does the network still learn?""")


def main(argv: list[str] | None = None) -> int:
    args = common.rl_parser(CHAPTER, __doc__).parse_args(argv)
    return common.run_rl_chapter(CHAPTER, args, argv)


if __name__ == "__main__":
    sys.exit(main())
