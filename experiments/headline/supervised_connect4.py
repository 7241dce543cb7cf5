"""The supervised move predictor on Connect Four: imitate MCTS, then play.

    python experiments/headline/supervised_connect4.py            # about half an hour on 2 cores, resumable
    python experiments/headline/supervised_connect4.py --quick    # seconds: tiny settings

The same pipeline as ``supervised_go9.py``: MCTS self-play games, the chapter 7
"small" network on the mover/opponent planes with the left-right mirror as
augmentation, accuracy against the teacher on held-out games, and the network
(no search) against random and an MCTS ladder.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys

from experiments.shared import chapters, supervised

facts = supervised.facts  # the report's headline facts: facts.json (scripts/refresh_facts.py)

PRESET = supervised.Preset(
    name="supervised-connect4",
    game="connect4",
    teacher="mcts:rounds=1000",
    games=600,
    runs=[("small", "planes")],
    opponents=["random", "mcts:rounds=100", "mcts:rounds=1000"],
    games_per_pair=40,
    book=["The book has no Connect Four figure; the teacher's agreement with itself is the ceiling to compare with."],
)


@chapters.script
def main(argv: list[str] | None = None) -> int:
    return supervised.run_supervised(PRESET, argv, __doc__, __file__)


if __name__ == "__main__":
    sys.exit(main())
