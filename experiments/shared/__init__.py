"""What the experiment scripts share. Scripts import this package and the library,
never one another; no module here imports ``dlgo.app`` or a script.

One module per kind of experiment, each importing only the ones above it in this list:

- :mod:`~experiments.shared.chapters`: what every script has: the shared command
  line (``--seed``, ``--quick``, ``--out``, ``--fresh``, ``--work``, ``--preset``),
  the run's folders taken once the arguments are checked (``take_folders``: ``--fresh``
  deletes only the script's own), errors in one line, the reproducing command, game
  and network pictures, ``summary.md``;
- :mod:`~experiments.shared.connectn`: the Connect-N boards of the scaling lab and the
  recipe ablation, their network sizes and the lab's AlphaZero settings;
- :mod:`~experiments.shared.frontier`: the compute frontier's statistics (Jones' change-point
  fit, the compute that reaches perfect play, the iso-Elo trade of search for training),
  pure functions over tables that import no other module here;
- :mod:`~experiments.shared.scaling_report`: the scaling lab's findings per board, figures
  and ``summary.md``, over ``connectn`` and ``frontier``;
- :mod:`~experiments.shared.ladders`: engine ladders (MCTS and alpha-beta at growing
  budgets, the shipped AlphaZero networks) in one round-robin, and the course's rating scale;
- :mod:`~experiments.shared.supervised`: supervised move prediction (chapters 6-8 and 13,
  ``headline/supervised_*.py``): the teacher's games, the networks trained on them,
  their accuracy, the best one playing;
- :mod:`~experiments.shared.alphazero`: AlphaZero (chapter 14, ``headline/alphazero_*.py``):
  a resumable training run, a final match and its report;
- :mod:`~experiments.shared.rl`: learning by playing (chapters 9-12): generations of
  self-play and learning, the last network's final games and its report.

``alphazero`` and ``rl`` stand side by side at the bottom of the list: neither imports
the other. TensorFlow loads only inside the functions that train
(``engines.training.supervised``, ``engines.training.alphazero``, ``engines.training.rl``),
so a script's ``--help`` and the classic chapters start at once.
"""
