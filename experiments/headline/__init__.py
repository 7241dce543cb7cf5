"""The training runs behind the suite's claims (README, "What the suite answers"),
each run as ``python experiments/headline/<script>.py`` with ``--help`` and ``--quick``:

- ``supervised_go9.py``: the book's chapter 6 on 9x9 Go, accuracy next to the book's, then play;
- ``supervised_connect4.py``: the same on Connect Four;
- ``alphazero_go5.py``: AlphaZero on 5x5 Go, Elo rising, then against MCTS;
- ``alphazero_go9.py``: AlphaGo Zero on 9x9 Go from a supervised start, against GNU Go.

The tic-tac-toe and Connect Four AlphaZero runs and the strength-per-compute
ladder are chapter scripts with ``--preset full``
(``experiments/chapters/ch14a_alphazero_tictactoe.py``, ``ch14b_alphazero_connect4.py``,
``ch15_strength_per_compute.py``).
"""
