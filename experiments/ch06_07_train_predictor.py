"""Chapters 6-7: generate games, then train a network to predict the next move.

    python experiments/ch06_07_train_predictor.py                    # Connect Four, a few minutes
    python experiments/ch06_07_train_predictor.py --games 1000 --epochs 20
    python experiments/ch06_07_train_predictor.py --quick

A teacher (``mcts:rounds=300``) plays itself (chapter 6: the data); the games
are split whole into train, validation and test sets, encoded as planes (the
mover's discs, the opponent's) with the left-right mirror as augmentation, and
the chapter 7 "small" network learns to predict the teacher's move (chapter 7:
the training). Every step resumes where it stopped. Writes ``accuracy.csv``,
``learning_curve.png``, ``policy.png`` (the trained network's probabilities
in one test position) and ``summary.md`` to --out; the games and the model go
to --work, where ``ch08_play_predictor.py`` finds the model.
"""
from __future__ import annotations

import sys
from pathlib import Path

from dlgo.formats.records import read_games, replay
from experiments import common
from experiments.common import CHAPTER_PREDICTOR as PRESET


def policy_picture(model: Path, games_csv: Path, ply: int, path: Path) -> str:
    """The network's move probabilities after ``ply`` moves of the first recorded
    game, drawn on the board; returns the teacher's move there."""
    record = read_games(games_csv)[0]
    states = replay(record.game, record.moves)
    ply = min(ply, len(states) - 2)
    common.predictor_picture(model, states[ply], path, title=f"the predictor after {ply} moves")
    return record.moves.split()[ply]


@common.script
def main(argv: list[str] | None = None) -> int:
    args = common.supervised_args(PRESET, argv, __doc__, script=__file__)
    preset = common.quick_preset(PRESET, args) if args.quick else PRESET
    out, work = Path(args.out), Path(args.work)
    table, teacher = common.generate_and_train(preset, args, out, work)
    row = table.iloc[0]
    model = Path(row["path"])
    teacher_move = policy_picture(model, work / "games" / "games.csv", 8, out / "policy.png")
    pct = "{:.1%}".format
    body = [f"The teacher `{args.teacher}` played {args.games} games against itself (chapter 6). The "
            f"`{row['model']}` network on the `{row['encoder']}` encoder trained for {row['epochs']} epochs "
            f"(best: {row['best_epoch']}) on {row['train_positions']:,} positions (chapter 7).", "",
            "| on held-out test games | top-1 accuracy |", "|---|---:|",
            f"| the network | {pct(row['top1'])} (top-5: {pct(row['top5'])}) |",
            f"| guessing uniformly among the legal moves | {pct(row['uniform_legal'])} |"]
    if teacher:
        body.append(f"| the teacher again, with a new seed | {pct(teacher['teacher'])} |")
    body += ["", "![learning curve](learning_curve.png)", "",
             f"What the network expects in the first game after 8 moves (the teacher played {teacher_move}):", "",
             "![policy](policy.png)", "",
             f"The model: `{model}`. Play it in chapter 8: "
             f"`python experiments/ch08_play_predictor.py --model {model}`."]
    look_for = """\
The network beats uniform guessing by a wide margin, but compare it with the
teacher asked again: MCTS does not always choose the same move in the same
position, so even a perfect imitator cannot score 100%, and the teacher's
self-agreement is the ceiling. In the learning curve, training accuracy keeps
rising while validation accuracy levels off: the gap is over-fitting, and
training stops at the best validation epoch. The policy picture shows what the
network has learnt: most of its probability on a few columns, the centre first.
Predict, then measure: twice the games (`--games 600`) or a stronger teacher
(`--teacher mcts:rounds=1000`): which helps accuracy more?"""
    summary = common.write_summary(out, "Chapters 6-7: games from a teacher, and a network that imitates it",
                                    common.command(__file__, argv), body, look_for)
    print(f"report: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
