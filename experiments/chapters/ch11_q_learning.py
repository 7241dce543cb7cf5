"""Chapter 11: Q-learning. Can a network that values every move learn Connect Four from its own games?

    python experiments/chapters/ch11_q_learning.py                  # about an hour
    python experiments/chapters/ch11_q_learning.py --generations 400     # continues the run
    python experiments/chapters/ch11_q_learning.py --game go:size=9
    python experiments/chapters/ch11_q_learning.py --quick

A ``q`` network starts from random weights. Each generation it plays games
against itself, choosing the move it values most and, one time in ten
(``epsilon``), a random one to explore, and 100 games against
``mcts:rounds=100`` (its sparring partner); then it learns from them by
Q-learning: the value of each move it played moves towards the value of what
came next (the opponent's best move value, negated; after a sparring
partner's reply, its own best value), or towards the result if the game
ended, by squared error on that action alone, every position once as played
and once mirrored. After every generation the new network plays the one
before (greedy, the book's binomial test) and the baselines. At the end the
last network plays ``random``, ``mcts:rounds=100`` and its own starting
network, --final-games games each. Writes ``history.csv``,
``learning_curve.png``, ``final.csv``, a game and ``summary.md`` to --out;
the run (resumable: rerun the same command) goes to --work. The book's
variant, learning from the results alone and from self-play alone:
``--bootstrap 0 --sparring "" --no-symmetries``.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys

from experiments.shared import chapters, rl

facts = rl.facts  # the report's headline facts: facts.json (scripts/refresh_facts.py)

CHAPTER = rl.RLChapter(
    script=__file__, title="Chapter 11: Q-learning", method="q", generations=305,
    settings={"learning_rate": 1e-3, "epsilon": 0.1, "bootstrap": 1.0, "sparring": ["mcts:rounds=100"],
              "sparring_games": 100, "symmetries": True, "baseline_games": 40},
    about="The `q` network outputs, for every move, the result it expects after playing it (from -1, a sure "
          "loss, to +1, a sure win) and plays the move it values most. In self-play it explores: with "
          "probability `epsilon` it plays a random move instead. It learns by regression on the moves it "
          "played: each one's value moves towards a target, either the game's result (the book's Monte Carlo "
          "target) or the value of the position that followed (Q-learning's one-step target: the opponent's "
          "best move value, negated; after a sparring partner's reply, its own best value). The book's "
          "chapter 11 learns from the results and from self-play alone; that run here (`--bootstrap 0 "
          "--sparring \"\" --no-symmetries --discount 0.95 --baseline-games 20`: 644 generations, 64 minutes, "
          "four runs sharing the machine) reached 11.0% against `mcts:rounds=100` in 200 games.",
    look_for="""\
A move that completes four is worth +1 at once, and the moves before it learn
their worth from it (with the one-step target, one move further back each
generation), those that set up a win and those that failed to block one: that
is how the curve against `random` moves first. A sparring partner (the
default) finds every block the network misses and every threat it leaves, and
each of those games ends in a -1 right after the mistake, where the one-step
target lays the blame: that is what can carry the curve against
`mcts:rounds=100` on. Against the generation before, expect about 50%: each
generation changes the network a little, and the binomial test rarely calls a
step significant, which is why the book keeps a network only when it is.
Predict, then measure: with
`--sparring ""` (self-play alone, as in the book), how far does the same hour
get against `mcts:rounds=100`? And with `--bootstrap 0` (the book's target,
the game's result)?""")


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = rl.rl_parser(CHAPTER, __doc__).parse_args(argv)
    return rl.run_rl_chapter(CHAPTER, args, argv)


if __name__ == "__main__":
    sys.exit(main())
