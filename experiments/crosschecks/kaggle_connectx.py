"""The shipped Connect Four network as a Kaggle ConnectX agent, played in Kaggle's own environment.

    python experiments/crosschecks/kaggle_connectx.py            # about two minutes
    python experiments/crosschecks/kaggle_connectx.py --quick

``dlgo export-kaggle`` writes the AlphaZero engine (``--engine``) as one file
that imports numpy alone; Kaggle's ``kaggle-environments`` then plays it
against its built-in ``negamax`` and ``random`` agents, first and second in
turn (``--games`` each). Writes ``submission.py`` (the file to upload),
``results.csv``, one game against negamax as a picture and an animated GIF
(our renderer, from the moves Kaggle's environment recorded) and
``summary.md``. Needs ``kaggle-environments`` (``make test`` installs it).
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys
from pathlib import Path
from typing import Any

import pandas as pd

from dlgo.app.kaggle_export import export_kaggle, play_in_kaggle
from dlgo.arena.ratings import wilson_interval
from dlgo.core.arguments import count
from dlgo.storage.atomic import atomic_write
from dlgo.storage.facts import update_facts
from dlgo.formats.records import GameRecord
from dlgo.games import new_game
from experiments.shared import chapters

ENGINE = "alphazero:checkpoint=connect4,simulations=200"
OPPONENTS = ["negamax", "random"]

LOOK_FOR = """
- **Nothing but numpy at run time.** The submission carries the network's
  weights (batch norm folded into the convolutions) and computes the ResNet
  with numpy's matrix products; TensorFlow is not imported. `tests/test_kaggle.py`
  checks its outputs against Keras's.
- **First and second player.** Connect Four is a first-player win with perfect
  play; negamax searches a few plies and plays the first player's side well
  enough to punish a careless second player. The table splits the games by side.
- **Time.** ConnectX gives an agent about 2 s a move; the search stops at its
  simulation budget or at half that time, whichever comes first, so a slower
  machine plays fewer simulations rather than timing out.
"""


def record_of(columns: list[int], first: bool, opponent: str, engine: str, seed: int) -> GameRecord:
    """Kaggle's game as one of our records (for the pictures): the moves replayed in our Connect Four."""
    states = [new_game("connect4")]
    for column in columns:
        states.append(states[-1].apply_move(states[-1].parse_move(str(column + 1))))
    final = states[-1]
    outcome = final.outcome()
    black, white = (engine, opponent) if first else (opponent, engine)
    return GameRecord(experiment="kaggle-connectx", game_id=f"vs {opponent}", game="connect4", black=black,
                      white=white, result=outcome.text if outcome else "", winner=outcome.winner_name if outcome
                      else "", plies=len(columns), black_seconds=0.0, white_seconds=0.0, black_compute=0.0,
                      white_compute=0.0, black_unit="", white_unit="", seed=seed, opening_plies=0,
                      moves=final.moves_text(), note="played in kaggle-environments")


def facts(out: Path) -> dict[str, Any]:
    """The check's headline facts (:mod:`dlgo.storage.facts`): ``kaggle``, the games won against each
    of Kaggle's agents as the first and as the second player, from ``results.csv``."""
    table = pd.read_csv(out / "results.csv")
    return {"kaggle": [{"opponent": row.opponent, "side": row.side, "games": int(row.games), "won": int(row.won)}
                       for row in table.itertuples()]}


@chapters.script
def main(argv: list[str] | None = None) -> int:
    parser = chapters.parser(__file__, __doc__, name="kaggle-connectx")
    parser.add_argument("--engine", default=ENGINE, help=f"the alphazero spec to export (default {ENGINE})")
    parser.add_argument("--games", type=count("games"), default=40, help="games against each opponent (default 40)")
    args = parser.parse_args(argv)
    if args.quick:
        args.engine, args.games = "alphazero:checkpoint=connect4,simulations=20", 2
    chapters.check_engines([args.engine], "connect4")
    chapters.take_folders(args)
    out = Path(args.out)
    submission = out / "submission.py"
    export_kaggle(args.engine, submission)
    rows, example = [], None
    for opponent in OPPONENTS:
        print(f"{args.games} games against {opponent} in kaggle-environments", flush=True)
        games = play_in_kaggle(submission, opponent, args.games, seed=args.seed)
        for first in (True, False):
            side = [g for g in games if g.first == first]
            won = sum(g.reward == 1 for g in side)
            low, high = wilson_interval(won / max(1, len(side)), len(side))
            rows.append({"opponent": opponent, "side": "first" if first else "second", "games": len(side),
                         "won": won, "drawn": sum(g.reward == 0 for g in side),
                         "lost": sum(g.reward == -1 for g in side), "errors": sum(g.status != "DONE" for g in side),
                         "low": low, "high": high})
        if opponent == "negamax" and games:
            example = max(games, key=lambda g: (g.reward or 0, not g.first, -len(g.columns)))  # a short win, second
    table = pd.DataFrame(rows)
    with atomic_write(out / "results.csv") as handle:
        table.to_csv(handle, index=False)
    body = [f"`{args.engine}`, exported by `dlgo export-kaggle` to `submission.py` "
            f"({submission.stat().st_size / 1e6:.1f} MB, numpy only), against the agents of Kaggle's "
            "`kaggle-environments` (`make(\"connectx\")`), first and second in turn:", "",
            "| opponent | side | games | won | drawn | lost | errors | won, 95% interval |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in table.itertuples():
        body.append(f"| {r.opponent} | {r.side} | {r.games} | {r.won} | {r.drawn} | {r.lost} | {r.errors} | "
                    f"{r.low:.0%} to {r.high:.0%} |")
    for opponent in OPPONENTS:
        mine = table[table.opponent == opponent]
        body.append("")
        body.append(f"Against `{opponent}`: {mine.won.sum()} of {mine.games.sum()} won "
                    f"({mine.won.sum() / max(1, mine.games.sum()):.0%}).")
    if example is not None:
        record = record_of(example.columns, example.first, "negamax", "submission.py", args.seed)
        body += ["", "One game against negamax, from the moves Kaggle's environment recorded:", "",
                 *chapters.draw_game(record, out, "game", f"submission vs negamax: {record.result}")]
    body += ["To enter the competition, upload `submission.py`: `kaggle competitions submit -c connectx -f "
             "submission.py -m \"dlgo\"`."]
    summary = chapters.write_summary(out, "The Connect Four network as a Kaggle ConnectX agent",
                                     chapters.command(__file__, argv), body, LOOK_FOR)
    update_facts(out, facts(out))
    print(table.to_string(index=False))
    print(f"report: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
