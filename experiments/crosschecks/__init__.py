"""The suite measured against others, and the rating scale its reports share;
each run as ``python experiments/crosschecks/<script>.py`` with ``--help`` and ``--quick``:

- ``calibration.py``: the course's rating scale, a long round-robin whose ratings every report holds;
- ``vs_gnugo.py``: our engines against GNU Go's levels on 9x9, and the handicap they need;
- ``vs_openspiel.py``: our engines and OpenSpiel's MCTS in one Connect Four round-robin;
- ``dead_stones.py``: finished 9x9 games counted with dead stones estimated, against GNU Go's count;
- ``kaggle_connectx.py``: the shipped Connect Four network exported for Kaggle and played there.
"""
