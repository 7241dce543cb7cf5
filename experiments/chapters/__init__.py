"""The course's chapter scripts (``docs/course.md``), one a step, each run as
``python experiments/chapters/<script>.py`` with ``--help`` and ``--quick``:

- ``ch03_random_go.py``: random players on the Go board (chapter 3);
- ``ch04a_minimax_alphabeta.py``: minimax and alpha-beta, and what pruning saves (chapter 4);
- ``ch04b_mcts.py``: Monte Carlo tree search, and what each round buys (chapter 4);
- ``ch05_numpy_network.py``: a neural network from scratch in numpy (chapter 5);
- ``ch06_07_train_predictor.py``: a teacher's games and a network that imitates it (chapters 6-7);
- ``ch08_play_predictor.py``: that network as a bot (chapter 8);
- ``ch09_experience.py``: experience from self-play (chapter 9);
- ``ch10_policy_gradient.py``, ``ch11_q_learning.py``, ``ch12_actor_critic.py``: learning by
  playing (chapters 10-12);
- ``ch13_alphago.py``: AlphaGo on 9x9 Go, learnt from GNU Go (chapter 13);
- ``ch14a_alphazero_tictactoe.py``, ``ch14b_alphazero_connect4.py``: AlphaZero (chapter 14);
  ``--preset full`` runs the suite's own tic-tac-toe run and the full Connect Four run
  (reports/alphazero-tictactoe, reports/alphazero-connect4);
- ``ch15_strength_per_compute.py``: every engine of the course in one round-robin;
  ``--preset full`` is the suite's strength-per-compute ladder (``make demo``).
"""
