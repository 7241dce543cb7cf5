"""Chapter 8: the trained move predictor as a bot. How strong is imitation without search?

    python experiments/chapters/ch08_play_predictor.py          # after ch06_07_train_predictor.py; a few minutes
    python experiments/chapters/ch08_play_predictor.py --model data/supervised-connect4/runs/small-planes/model.keras
    python experiments/chapters/ch08_play_predictor.py --quick --model PATH

The network from chapters 6-7 plays as ``predictor:model=PATH`` (its most
likely sensible move, no search) in a round-robin with the random engine and
MCTS at 10 to 300 rounds (the teacher had 300): every pair plays
--games-per-pair games, colours alternating after two seeded random opening
plies. Writes the tournament (``tournament/``), ``game.png`` and ``game.gif``
(the predictor against the strongest MCTS), ``policy.png`` (its probabilities
at one move of that game) and ``summary.md`` to --out. Then play it yourself:

    dlgo play --game connect4 --black human --white predictor:model=PATH
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys
import textwrap
from pathlib import Path
from typing import Any

from dlgo.core.arguments import count
from dlgo.formats.records import GameRecord, read_games, replay
from dlgo.storage.facts import update_facts
from experiments.shared import chapters, supervised
from experiments.shared.supervised import CHAPTER_PREDICTOR as PRESET

OPPONENTS = ["random", "mcts:rounds=10", "mcts:rounds=32", "mcts:rounds=100", "mcts:rounds=300"]


@chapters.script
def main(argv: list[str] | None = None) -> int:
    p = chapters.parser(__file__, __doc__)
    p.add_argument("--game", default=PRESET.game, help=f"the game (default {PRESET.game}; e.g. go:size=5, after "
                                                          "chapters 6-7 ran on it)")
    default, quick = supervised.predictor_model_path(), supervised.predictor_model_path(quick=True)
    p.add_argument("--model", default=None,
                   help=f"the predictor's .keras file (default {default}; with --quick {quick})")
    p.add_argument("--games-per-pair", type=count("games"), default=10, help="games per pair (default 10)")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    args = p.parse_args(argv)
    args.model = args.model or str(supervised.predictor_model_path(args.quick, game=args.game))
    if not Path(args.model).exists():
        p.error(f"no model at {args.model}: run `python experiments/chapters/ch06_07_train_predictor.py` first, "
                "or pass --model")
    chapters.take_folders(args)
    opponents = OPPONENTS[:2] if args.quick else OPPONENTS
    games_per_pair, workers = (2, 1) if args.quick else (args.games_per_pair, args.workers)
    out = Path(args.out)

    predictor, records = supervised.play_predictor(args.game, args.model, opponents, out / "tournament",
                                                   games_per_pair=games_per_pair, seed=args.seed,
                                                   opening_plies=PRESET.opening_plies, workers=workers)
    body = [f"`{predictor}` (no search) against {len(opponents)} engines, {games_per_pair} games each, "
            "colours alternating after two random opening plies.", "",
            "| opponent | the predictor's score | games |", "|---|---:|---:|"]
    for opponent in opponents:
        score, games = chapters.score_against(records, predictor, opponent)
        body.append(f"| `{opponent}` | {score:.0%} | {games} |")
    strongest = opponents[-1]
    game = next(r for r in records if strongest in (r.black, r.white))
    body += ["", "![ratings](tournament/strength_vs_compute.png)", "",
             "Ratings, cross-table and every game: [tournament/summary.md](tournament/summary.md).", "",
             f"One game against `{strongest}`:", "",
             *chapters.draw_game(game, out, "game", f"predictor vs {strongest}: {game.result}"),
             *policy_lines(args.model, game, out / "policy.png"),
             "Play it yourself:", "", f"    dlgo play --game {args.game} --black human --white {predictor}"]
    look_for = what_to_look_for(predictor, opponents, records)
    summary = chapters.write_summary(out, "Chapter 8: the move predictor plays", chapters.command(__file__, argv),
                                     body, look_for)
    update_facts(out, facts(out))
    print(f"report: {summary}")
    return 0


def facts(out: Path) -> dict[str, Any]:
    """The run's headline facts (:mod:`dlgo.storage.facts`): ``scores``, the predictor's score and
    games against each opponent it met, in the ladder's order (from ``tournament/games.csv``)."""
    records = read_games(out / "tournament" / "games.csv")
    predictor = next(r.black for r in records if r.black.startswith("predictor:"))
    met = {r.white if r.black == predictor else r.black for r in records if predictor in (r.black, r.white)}
    opponents = [o for o in OPPONENTS if o in met] + sorted(met - set(OPPONENTS))
    return {"scores": [[o, *chapters.score_against(records, predictor, o)] for o in opponents]}


def what_to_look_for(predictor: str, opponents: list[str], records: list[GameRecord]) -> str:
    """The closing paragraph, with this run's scores in it."""
    scores = {opponent: chapters.score_against(records, predictor, opponent)[0] for opponent in opponents}
    seconds = [r.black_seconds if r.black == predictor else r.white_seconds for r in records
               if predictor in (r.black, r.white)]
    beaten = [f"`{o}` ({s:.0%})" for o, s in scores.items() if s > 0.5]
    lost = [f"`{o}` ({s:.0%})" for o, s in scores.items() if s < 0.5]
    text = f"The predictor moves in {sum(seconds) / max(1, len(seconds)) * 1000:.1f} ms and plays on reflex: "
    text += (f"it beats {', '.join(beaten)}" if beaten else "it beats none of its opponents")
    text += (f", and loses to {', '.join(lost)}" if lost else ", and loses to none") + ". "
    text += ("A position unlike any it was trained on gets a plausible-looking but unchecked move: there is no "
             "search to catch a blunder. In the policy picture, is it confident, and is it right? That gap, a fast "
             "intuition with no checking, is what chapter 14 closes: AlphaZero uses a network like this one to "
             "guide a search instead of replacing it. Predict, then measure: how does a predictor trained on twice "
             "the games (chapter 6-7, `--games 600`) do against `mcts:rounds=100`?")
    return "\n".join(textwrap.wrap(text, 78, break_on_hyphens=False))


def policy_lines(model: str, record: GameRecord, path: Path) -> list[str]:
    """The predictor's probabilities at its own move in the middle of ``record``, drawn to ``path``."""
    states = replay(record.game, record.moves)
    own = 0 if record.black.startswith("predictor") else 1
    ply = next((k for k in range(len(states) // 2, len(states) - 1) if k % 2 == own), 0)
    chapters.predictor_picture(model, states[ply], path, title=f"the predictor at move {ply + 1}")
    played = record.moves.split()[ply]
    return [f"Its probabilities at move {ply + 1} of that game (it played {played}):", "", "![policy](policy.png)", ""]


if __name__ == "__main__":
    sys.exit(main())
