"""``dlgo solve`` (a position's exact move scores), ``dlgo solve-book`` (the
solver's opening book), ``dlgo positions`` (the solved position sets), ``dlgo
openings`` (balanced openings for matches) and ``dlgo mistakes`` (how often engines change a solved position's
result)."""
from __future__ import annotations

import argparse
import logging
import time
from typing import Callable

import engines
from dlgo.app.cli.shared import add_bot_limit_options, engine_factory
from dlgo.arena.workers import StoppableWorker, WorkerDied
from dlgo.core.arguments import count, seconds, span, whole
from dlgo.core.errors import DlgoError, SpecError
from dlgo.core.game import State
from dlgo.data.solved import PLAYS, bitboard_solver, board_name, generate_book, generate_openings, generate_positions
from dlgo.formats.positions import SETS, load_sets
from dlgo.display.progress import progress_bar
from dlgo.games import new_game
from dlgo.games.solvers.bitboard import TABLE_BITS
from dlgo.games.solvers.brute_force import move_score


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("solve", help="a solvable position's exact result and every move's score (Connect Four, "
                                     "tic-tac-toe, small boards)")
    p.add_argument("--game", default="connect4", help="game spec (default connect4)")
    p.add_argument("--moves", default="",
                   help='moves from the start, e.g. "3 5 4 3 3 4 1 2 2 7" (Connect Four: columns from 1; positions '
                        'of 2 to 7 stones take minutes, from about 10 stones a second or two)')
    p.add_argument("--time-limit", type=seconds(), default=None, metavar="SECONDS",
                   help="stop if the position is not solved within this many seconds (default: no limit)")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("solve-book", help="solve the Connect-N solver's opening book (hours); resumable")
    p.add_argument("--game", default="connect4", help="game spec (default connect4)")
    p.add_argument("--plies", type=count("plies", 0), default=1, help="the book's last ply (default 1)")
    p.add_argument("--out", default="runs/solve-book", help="run folder (default runs/solve-book); rerun to resume")
    p.add_argument("--ship", action="store_true", help="when complete, install it where the solver finds it")
    p.add_argument("--table-bits", type=whole(10, 30), metavar="BITS", default=TABLE_BITS,
                   help=f"the transposition table's size, 2**bits entries of 9 bytes (default {TABLE_BITS})")
    p.set_defaults(func=cmd_solve_book)


    register_positions(sub)
    register_openings(sub)

    p = sub.add_parser("mistakes", help="engines on the solved position sets: how often each changes the result "
                                        "(over all and critical positions), and its seconds a move")
    p.add_argument("engines", nargs="+", help="engine specs, e.g. mcts:rounds=1000 alphazero:checkpoint=connect4")
    p.add_argument("--game", default="connect4", help="game spec (default connect4)")
    p.add_argument("--positions", default=None, help="a position-set file (default: the suite's for the game)")
    p.add_argument("--sets", nargs="+", choices=SETS, default=None, metavar="SET",
                   help=f"only these sets ({', '.join(SETS)})")
    p.add_argument("--per-set", type=count("positions"), default=None, help="only the first N positions of each set")
    p.add_argument("--out", required=True,
                   help="report folder; rerun to resume (mistakes.csv keeps every verdict; the report covers this "
                        "run's engines and positions)")
    p.add_argument("--seed", type=int, default=0, help="seed of the engines' choices (default 0)")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    add_bot_limit_options(p)
    p.set_defaults(func=cmd_mistakes)


def register_positions(sub: argparse._SubParsersAction) -> None:
    """``dlgo positions``: solved position sets, Pons' six or of every depth."""
    p = sub.add_parser("positions", help="solved position sets (Pons' six: begin/middle/end x easy/medium/hard), "
                                         "every move scored; seeded, resumable")
    p.add_argument("--game", default="connect4", help="a Connect-N game spec (default connect4)")
    p.add_argument("--per-set", type=count("positions"), default=170,
                   help="positions in each of the six sets (default 170)")
    p.add_argument("--seed", type=int, default=0, help="seed of the games the positions come from (default 0)")
    p.add_argument("--max-candidates", type=count("positions"), default=None,
                   help="positions tried before a set that seeded play cannot fill is given up (default 200 per "
                        "position of a set; small boards reach some sets rarely or never)")
    p.add_argument("--begin-from", type=count("plies"), default=None,
                   help="the fewest stones of a beginning position (default: a third of the board less 4)")
    p.add_argument("--play", default="random", choices=PLAYS,
                   help="how the games the positions come from are played: random (each move random among those "
                        "that do not lose at once, as Pons' sets; the default), strong (a best-scoring move, one "
                        "move in ten random) or uniform (every legal move as likely, blunders too)")
    p.add_argument("--stones", type=span("plies"), default=None, metavar="LOW-HIGH",
                   help="instead of Pons' six sets, 6 x --per-set positions of every depth: each one's stone "
                        "count drawn uniformly from LOW to HIGH (e.g. 4-20 on 6x4: 4 plies from the start to 4 "
                        "from the end)")
    p.add_argument("--out", default="runs/positions", help="run folder (default runs/positions); rerun to resume")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    p.add_argument("--ship", action="store_true", help="also install the sets where the suite finds them")
    p.set_defaults(func=cmd_positions)


def register_openings(sub: argparse._SubParsersAction) -> None:
    """``dlgo openings``."""
    p = sub.add_parser("openings", help="balanced openings for matches: seeded positions a few plies in, solved, "
                                        "kept where neither side wins before the last stones; resumable")
    p.add_argument("--game", default="connect4", help="a Connect-N game spec (default connect4)")
    p.add_argument("--count", type=count("positions"), default=200, help="openings to keep (default 200)")
    p.add_argument("--plies", type=count("plies"), default=8, help="stones of each opening (default 8)")
    p.add_argument("--balance", type=whole(0, 64), default=2, metavar="SCORE",
                   help="the largest exact score kept, either side (default 2: a draw, or a win with one of the "
                        "winner's last two stones)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random play the openings come from (default 0)")
    p.add_argument("--out", default="runs/openings", help="run folder (default runs/openings); rerun to resume")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    p.add_argument("--ship", action="store_true", help="also install them where matches find them")
    p.set_defaults(func=cmd_openings)


def cmd_solve(args: argparse.Namespace) -> int:
    state = new_game(args.game)
    for text in args.moves.replace(",", " ").split():
        state = state.apply_move(state.parse_move(text))
    solver = state.game.solver()
    if solver is None:
        raise SpecError(f"the suite has no exact solver for {state.game.name} (it solves tic-tac-toe and m,n,k boards "
                        "of up to 12 cells, and Connect-N boards of columns x (rows + 1) <= 64 bits, without the "
                        "pie rule)")
    print(state.render(), flush=True)
    outcome = state.outcome()
    if outcome is not None:
        print(f"\nthe game is over: {outcome.describe(state.game.side_names)}")
        return 0
    started = time.perf_counter()
    scores = solve_moves(args.game, state, args.time_limit)
    seconds = time.perf_counter() - started
    best = max(scores.values())
    words = {1: "wins", 0: "draws", -1: "loses"}
    print(f"\n{state.game.side_label(state.next_player)} to move {words[(best > 0) - (best < 0)]} with perfect play "
          f"(score {best:+d}; {seconds:.2f} s)")
    print("scores: 0 a draw, n > 0 a win with the mover's n-th last stone, n < 0 a loss likewise")
    for action, score in sorted(scores.items(), key=lambda item: -item[1]):
        move = state.format_move(state.index_to_move(action))
        print(f"  {move:>6} {score:+4d}  {words[(score > 0) - (score < 0)]}{'  (best)' if score == best else ''}")
    return 0


def solve_moves(game: str, state: State, time_limit: float | None) -> dict[int, int]:
    """Each legal action's exact score in ``state`` (of ``game``), solved one move
    at a time in a worker process, with a progress bar; a :class:`DlgoError` once
    ``time_limit`` seconds have passed (the worker stopped)."""
    actions = state.legal_actions()
    deadline = None if time_limit is None else time.monotonic() + time_limit
    scores: dict[int, int] = {}
    with StoppableWorker(_send_move_scores, game, state.moves_text()) as worker, \
            progress_bar(total=len(actions), unit="move", desc="solving", leave=False) as bar:
        while len(scores) < len(actions):
            try:
                action, score = worker.receive(None if deadline is None else max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                raise DlgoError(f"not solved within the time limit of {time_limit:g} s ({len(scores)} of "
                                f"{len(actions)} moves scored); positions of 2 to 7 stones take minutes: give "
                                "more --time-limit, or play a few more moves first") from None
            except WorkerDied as died:  # killed from outside, or out of memory
                raise DlgoError(f"the solver stopped before it finished: {died}") from None
            scores[action] = score
            bar.update()
    return scores


def _send_move_scores(send: Callable[[tuple[int, int]], None], game: str, moves: str) -> None:
    """In :func:`solve_moves`' worker: ``(action, exact score)`` of each legal action, one at a time."""
    state = new_game(game)
    for text in moves.split():
        state = state.apply_move(state.parse_move(text))
    solver = state.game.solver()
    assert solver is not None  # checked before the worker started
    for action in state.legal_actions():
        send((action, move_score(solver, state, action)))


def cmd_openings(args: argparse.Namespace) -> int:
    bitboard_solver(args.game)  # a game without the solver: said before the folder is taken
    path = generate_openings(args.game, args.out, count=args.count, plies=args.plies, balance=args.balance,
                             seed=args.seed, workers=args.workers, ship=args.ship)
    print(f"openings: {path}")
    return 0


def cmd_solve_book(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    path = generate_book(args.game, args.plies, args.out, ship=args.ship, table_bits=args.table_bits)
    print(f"book: {path}")
    return 0


def cmd_positions(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    path = generate_positions(args.game, args.out, per_set=args.per_set, seed=args.seed, begin_from=args.begin_from,
                              workers=args.workers, ship=args.ship, max_candidates=args.max_candidates,
                              play=args.play, stones=args.stones)
    print(f"positions: {path}")
    return 0


def cmd_mistakes(args: argparse.Namespace) -> int:
    from dlgo.arena.mistakes import measure_mistakes, write_mistakes_summary  # pandas, matplotlib

    for spec in args.engines:
        engines.check_engine(spec)
    solver = bitboard_solver(args.game)
    positions = load_sets(args.positions, board_name(solver), args.sets, args.per_set)
    if any(p.game != solver.game.spec for p in positions):
        raise SpecError(f"the positions are of {positions[0].game}, not {solver.game.spec}: name their game with "
                        "--game")
    verdicts = measure_mistakes(engine_factory(args), args.engines, positions, args.out, seed=args.seed,
                                workers=args.workers)
    rows = write_mistakes_summary(args.out, verdicts, f"Mistakes on solved positions: {solver.game.name}")
    for r in rows:
        print(f"{r.engine:<36} mistakes {r.rate:6.1%} of {r.positions}, {r.critical_rate:6.1%} of {r.critical} "
              f"critical  {r.seconds_per_move:.4f} s/move")
    print(f"\nreport: {args.out}/summary.md")
    return 0
