"""The exact solvers: perfect play, the yardstick engines are measured against.

* :mod:`~dlgo.games.solvers.brute_force`: every line searched to the end, for games of a
  dozen cells at most (tic-tac-toe, tiny m,n,k boards): the tests' oracle.
* :mod:`~dlgo.games.solvers.bitboard`: Connect Four and the Connect-N boards of up to 64 bits,
  after Pons and Allis (negamax with alpha-beta, move ordering, a transposition table), in
  readable Python: the reference its compiled twin is tested against.
* :mod:`~dlgo.games.solvers.bitboard_kernels`: the same search compiled with numba, the one
  that runs.
* :mod:`~dlgo.games.solvers.opening_book`: the exact scores of the first plies, shipped in
  ``books/``, where the search would take hours.

A game offers its solver through :meth:`dlgo.core.game.Game.solver`.
"""
