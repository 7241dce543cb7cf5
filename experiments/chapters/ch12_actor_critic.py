"""Chapter 12: actor-critic. Does a value head make policy learning faster?

    python experiments/chapters/ch12_actor_critic.py                # about 20 minutes
    python experiments/chapters/ch12_actor_critic.py --generations 400   # continues the run
    python experiments/chapters/ch12_actor_critic.py --game go:size=9
    python experiments/chapters/ch12_actor_critic.py --quick

An ``ac`` network has two heads on one body: the **actor**, a policy over the
moves, and the **critic**, the value of the position for the player to move.
It starts from random weights. Each generation it plays games against itself,
sampling its policy; then the critic learns each position's result (discounted
by ``discount`` per later move) and the actor learns by policy gradients with
the **advantage** ``result - value``: a move is reinforced by how much better
the game went than the critic expected before it. After every generation the
new network plays the one before and the baselines; at the end the last
network plays ``random``, ``mcts:rounds=100`` and its starting network,
--final-games games each. Writes ``history.csv``, ``learning_curve.png``,
``final.csv``, a game and ``summary.md`` to --out; the run (resumable) to --work.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys

from experiments.shared import chapters, rl

facts = rl.facts  # the report's headline facts: facts.json (scripts/refresh_facts.py)

CHAPTER = rl.RLChapter(
    script=__file__, title="Chapter 12: actor-critic", method="ac", generations=347,
    settings={"learning_rate": 1e-4, "discount": 0.95, "entropy": 0.1},
    about="The `ac` network's policy head (the actor) chooses the moves; its value head (the critic) says how "
          "the position stands for the player to move, and its search report shows it. The actor learns from "
          "the **advantage**, the result minus what the critic expected: a move in a position the critic "
          "already thought won teaches little, a win from a position it thought lost teaches a lot. An entropy "
          "bonus keeps the policy from growing certain before it has learnt anything.",
    look_for="""\
Compare the learning curve with chapter 10's: the policy learns from
advantages instead of raw results, so a move in a position the critic already
knew was won teaches it little; the critic has to learn to read positions
first, and the policy's signal is only as clean as the critic is right. The value head is
worth a look on its own: `dlgo analyze --model PATH` after a few moves shows
how sure the network is of the position. Against `mcts:rounds=100`, a network
without search plays by reflex where MCTS reads ahead: compare its final score
with chapter 10's. Predict, then measure: does `--discount 1` (every move credited with the
game's result, as the book) learn faster or slower?""")


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = rl.rl_parser(CHAPTER, __doc__).parse_args(argv)
    return rl.run_rl_chapter(CHAPTER, args, argv)


if __name__ == "__main__":
    sys.exit(main())
