"""How the engines learn: the training pipelines, apart from what plays.

The players (``engines/``: agents, searches, evaluators, the networks' forward
pass and loading, the registry) never import anything here; these modules stand
on them and on :mod:`dlgo.data`:

- :mod:`~engines.training.selfplay`: batched self-play and two-network matches;
- :mod:`~engines.training.replay`: the replay buffer, with symmetries;
- :mod:`~engines.training.supervised`: move prediction and value learning from recorded games;
- :mod:`~engines.training.accuracy`: how often a predictor names the teacher's move;
- :mod:`~engines.training.rollout_policy`: fitting the fast rollout policy to a teacher;
- :mod:`~engines.training.bradley_terry`: Elo ratings of move features (Coulom's generalized
  Bradley-Terry model, fitted by minorization-maximization); :mod:`~engines.training.move_patterns`
  fits them to a teacher's Go moves;
- :mod:`~engines.training.alphazero` (settings: :mod:`~engines.training.alphazero_config`):
  the resumable self-play -> train -> evaluate -> publish loop;
- :mod:`~engines.training.rl` (settings: :mod:`~engines.training.rl_config`): policy
  gradients, Q-learning and actor-critic by generations.
- :mod:`~engines.training.solver_supervised` (positions, targets and settings:
  :mod:`~engines.training.solver_data`): AlphaZero's network learning solved
  positions' exact results, the ceiling of its self-play.

TensorFlow loads only with the modules that train a network (supervised,
alphazero, rl, solver_supervised); the settings modules and the rest start without it.
"""
