"""Chapter 6 on 9x9 Go: predict MCTS's moves with a convolutional network.

    python experiments/headline/supervised_go9.py            # about an hour on 2 cores, resumable
    python experiments/headline/supervised_go9.py --quick    # seconds: tiny settings

The book (Deep Learning and the Game of Go, chapter 6) generates 9x9 games with
MCTS at 1,000 rounds, about 40,000 moves, and reports 8.35% test accuracy for its
best convolutional network. Here: the book's chapter 6 network on the book's
one-plane encoder (like for like), and the chapter 7 "small" network on the
11-plane encoder with the 8 board symmetries as augmentation; then the best
plays random and MCTS on 9x9 with no search at all.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys

from experiments.shared import chapters, supervised

facts = supervised.facts  # the report's headline facts: facts.json (scripts/refresh_facts.py)

PRESET = supervised.Preset(
    name="supervised-go9",
    game="go:size=9",
    teacher="mcts:rounds=500",
    games=400,
    runs=[("ch6", "oneplane"), ("small", "simple")],
    opponents=["random", "mcts:rounds=100"],
    games_per_pair=50,
    epochs=60,
    book=["**The book's figure:** 8.35% test accuracy for its best chapter 6 network on about 40,000 "
          "moves of 9x9 MCTS self-play (1,000 rounds per move). Ours used 500 rounds per move (our MCTS "
          "skips its own eyes and reuses its tree, so it is stronger per round than the book's). Our games "
          "begin with two random plies, so no two repeat, and are split into train and test by whole games. "
          "The like-for-like run (the chapter 6 network on the one-plane encoder) stays below the book's "
          "figure here; the 11-plane encoder with liberties and the chapter 7 network do better."],
    book_accuracy=0.0835,
)


@chapters.script
def main(argv: list[str] | None = None) -> int:
    return supervised.run_supervised(PRESET, argv, __doc__, __file__)


if __name__ == "__main__":
    sys.exit(main())
