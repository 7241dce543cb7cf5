"""The game API's checks, public: what every game of the suite must do, runnable on yours.

A new game is checked in one line (as pgx's ``api_test(env)`` checks an environment)::

    from dlgo.games.api_checks import check_game
    check_game(new_game("hex"))      # raises GameAPIError naming the first rule broken

Each check takes a game's starting state and plays random games from it (seeded:
the same checks every time). ``tests/test_game_api.py`` runs each of :data:`CHECKS`
on every registered game and on Hex, the small game written to the narrow contract
(``tests/test_new_game.py``). The rules, in order:

* the start: black to move, no history, not over, some legal move;
* legal moves, their mask and their action indices agree, and each is valid;
* ``apply_move`` returns a new state and never changes the one it was called on;
* random games end, with a winner or a draw, and nothing is legal after the end;
* a resignation hands the win to the opponent;
* illegal moves (off the board, a pass where there is none, a taken point) raise ``ValueError``;
* every legal move's text parses back to it;
* ``render`` marks the last move;
* two move orders reaching one position share its Zobrist hash and its diagram;
* ``random_playout`` reports the winner its moves reach;
* the generic hash (from the board) equals the game's own, resignations included;
* ``history`` and ``move_history`` list the states and moves played.
"""
from __future__ import annotations

import random
from typing import Callable

import numpy as np

from dlgo.core.game import State
from dlgo.core.types import Move, Player, Point


class GameAPIError(AssertionError):
    """A game breaks a rule of the shared API (the message says which, and where)."""


def expect(condition: bool, message: str) -> None:
    """Raise :class:`GameAPIError` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise GameAPIError(message)


def expect_value_error(action: Callable[[], object], what: str, words: str = "") -> None:
    """``action`` must raise ``ValueError`` (whose message holds ``words``)."""
    try:
        action()
    except ValueError as error:
        expect(words in str(error), f"{what}: ValueError {str(error)!r} does not say {words!r}")
        return
    raise GameAPIError(f"{what}: no ValueError")


def random_states(start: State, seed: int, limit: int = 60) -> list[State]:
    """The states of one random game from ``start``, at most ``limit`` of them."""
    rng = random.Random(seed)
    states = [start]
    while not states[-1].is_over() and len(states) < limit:
        states.append(states[-1].apply_move(states[-1].random_move(rng)))
    return states


def check_start(start: State) -> None:
    """Black moves first, from a state with no history, not over, with a legal move."""
    expect(start.next_player is Player.black, "the start: black must move first")
    expect(start.previous_state is None and start.last_move is None, "the start has a history")
    expect(not start.is_over() and start.winner() is None, "the start is over")
    expect(bool(start.legal_moves()), "the start has no legal move")


def check_legal_moves(start: State) -> None:
    """Legal moves, the action mask and the action indices agree; each legal move is valid."""
    for state in random_states(start, 1)[::3]:
        moves = state.legal_moves()
        where = f"after {[state.format_move(m) for m in state.move_history()]}"
        expect(Move.resign() not in moves, f"legal_moves lists resign {where}")
        expect(len(set(moves)) == len(moves), f"legal_moves repeats a move {where}")
        mask = state.legal_action_mask()
        expect(mask.dtype == np.bool_ and mask.shape == (state.num_actions,),
               f"legal_action_mask is not {state.num_actions} booleans {where}")
        expect(sorted(state.move_to_index(m) for m in moves) == list(np.flatnonzero(mask)),
               f"legal_action_mask disagrees with legal_moves {where}")
        for m in moves:
            expect(state.index_to_move(state.move_to_index(m)) == m, f"index_to_move(move_to_index({m})) {where}")
            expect(state.is_valid_move(m), f"is_valid_move({m}) is False for a legal move {where}")
        if not state.is_over():
            expect(state.is_valid_move(Move.resign()), f"resigning is not valid {where}")


def check_apply_move(start: State) -> None:
    """``apply_move`` returns a new child state and leaves its parent as it was."""
    for state in random_states(start, 2)[::4]:
        if state.is_over():
            continue
        before = (state.zobrist_hash(), state.legal_moves(), state.render(), state.next_player)
        move = state.legal_moves()[0]
        child = state.apply_move(move)
        expect(child is not state and child.previous_state is state and child.last_move == move,
               f"apply_move({move}) must return a new state whose parent is the old one")
        expect(child.next_player is state.next_player.other, f"after {move} the same player moves again")
        expect(child.zobrist_hash() != state.zobrist_hash(), f"{move} leaves the Zobrist hash unchanged")
        expect((state.zobrist_hash(), state.legal_moves(), state.render(), state.next_player) == before,
               f"apply_move({move}) changed the state it was called on")


def check_endings(start: State) -> None:
    """Random games end, with a winner or a draw, and after the end nothing is legal."""
    for seed in range(3):
        end = random_states(start, seed, limit=2000)[-1]
        expect(end.is_over(), "a random game of 2,000 states has not ended")
        expect(end.winner() in (Player.black, Player.white, None), f"winner() is {end.winner()!r}")
        expect(end.legal_moves() == [] and not end.legal_action_mask().any(), "moves are legal after the end")
        expect_value_error(lambda: end.apply_move(Move.resign()), "resigning after the end")


def check_resignation(start: State) -> None:
    """White resigning after black's first move hands black the win."""
    resigned = start.apply_move(start.legal_moves()[0]).apply_move(Move.resign())
    expect(resigned.is_over() and resigned.winner() is Player.black, "a resignation must hand the win to the other")


def check_illegal_moves(start: State) -> None:
    """Off the board, a pass where the game has none, a taken point: ``ValueError``."""
    first = next(m for m in start.legal_moves() if m.is_play)
    state = start.apply_move(first)
    expect_value_error(lambda: state.apply_move(Move.play(Point(26, 1))), "a move off the board", "off the")
    if not state.game.has_pass:
        expect_value_error(lambda: state.apply_move(Move.pass_turn()), "a pass", "no passing")
    if not state.swap_available():  # the first stone's point is taken (the swap aside)
        expect_value_error(lambda: state.apply_move(first), f"{first} again, on a taken point")
        expect(not state.is_valid_move(first), f"is_valid_move({first}) on a taken point")


def check_text(start: State) -> None:
    """Every legal move's text parses back to it; ``resign`` is a move; nonsense is a ``ValueError``."""
    for state in random_states(start, 4)[::5]:
        for m in state.legal_moves():
            text = state.format_move(m)
            try:
                parsed: Move | None = state.parse_move(text)
            except ValueError:
                parsed = None
            expect(parsed == m, f"parse_move({text!r}) is not {m}, whose text it is")
        expect(state.parse_move("resign") == Move.resign(), "parse_move('resign')")
        expect_value_error(lambda: state.parse_move("no such move"), "parse_move('no such move')")


def check_render(start: State) -> None:
    """The diagram marks the last move as ``(X)``, and ``str`` is the diagram."""
    state = start.apply_move(start.legal_moves()[0])
    expect("(X)" in state.render() and str(state) == state.render(), "render() must mark the last move (X)")
    expect("(" not in start.render(), "render() marks a last move at the start")


def check_transpositions(start: State) -> None:
    """Two orders of the same three moves reach one hash and one diagram."""
    actions = np.flatnonzero(start.legal_action_mask())
    i, j, k = actions[[0, len(actions) // 2, -2]]

    def line(*chosen: int) -> State:
        state = start
        for a in chosen:
            state = state.apply_move(state.index_to_move(int(a)))
        return state

    def stones(state: State) -> list[str]:  # the diagram without the last-move mark
        return [row.replace("(", " ").replace(")", " ").rstrip() for row in state.render().splitlines()]

    a, b = line(i, j, k), line(k, j, i)
    expect(a.zobrist_hash() == b.zobrist_hash(), f"actions {i}, {j}, {k} and {k}, {j}, {i}: different hashes")
    expect(stones(a) == stones(b), f"actions {i}, {j}, {k} and {k}, {j}, {i}: different diagrams")


def check_random_playout(start: State) -> None:
    """``random_playout`` reports the winner that replaying its moves reaches."""
    for seed in range(4):
        moves: list[Move] = []
        winner = start.random_playout(random.Random(seed), moves)
        state = start
        for m in moves:
            state = state.apply_move(m)
        expect(state.is_over() and state.winner() == winner, f"random_playout (seed {seed}) reports {winner!r}")


def check_generic_hash(start: State) -> None:
    """The default :meth:`State.zobrist_hash` (from the board) equals the game's own, after
    resignations too (but for one while the pie rule's swap is on offer)."""
    for state in random_states(start, 6):
        expect(State.zobrist_hash(state) == state.zobrist_hash(),
               f"the game's hash differs from the generic one after {state.move_history()}")
        if not state.is_over() and not state.swap_available():
            resigned = state.after_resignation()
            expect(State.zobrist_hash(resigned) == resigned.zobrist_hash(), "the hash after a resignation")


def check_history(start: State) -> None:
    """``history`` lists the states from the start, ``move_history`` the moves between them."""
    states = random_states(start, 5, limit=8)
    expect(list(states[-1].history()) == states, "history() must list every state from the start")
    expect(states[-1].move_history() == [s.last_move for s in states[1:]], "move_history() must list the moves")


#: every check, in the order :func:`check_game` runs them
CHECKS: tuple[Callable[[State], None], ...] = (
    check_start, check_legal_moves, check_apply_move, check_endings, check_resignation, check_illegal_moves,
    check_text, check_render, check_transpositions, check_random_playout, check_generic_hash, check_history)


def check_game(start: State) -> None:
    """Run every check of :data:`CHECKS` on the game whose starting state is ``start``;
    :class:`GameAPIError` names the first rule it breaks."""
    for check in CHECKS:
        check(start)
