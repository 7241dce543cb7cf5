"""The experiment scripts, by purpose. Each runs as ``python experiments/<folder>/<script>.py``
(from any folder, with the suite installed), offers ``--help`` and ``--quick``, and writes
its report to ``runs/<name>/`` (its committed sample: ``reports/<name>/``).

- ``chapters/``: the course's chapter scripts, ch03 to ch15 (``docs/course.md``);
  chapters 14 and 15 also hold the suite's full tic-tac-toe and Connect Four AlphaZero
  runs and its strength-per-compute ladder (``--preset full``);
- ``headline/``: the other training runs behind the suite's claims (supervised move
  prediction on Connect Four and 9x9 Go, AlphaZero on 5x5 and 9x9 Go);
- ``crosschecks/``: the suite measured against others (GNU Go, OpenSpiel, Kaggle's
  ConnectX) and its rating scale (the calibration);
- ``shared/``: what the scripts share; a script imports the library and
  ``experiments.shared``, never another script.
"""
