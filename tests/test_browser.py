"""The page in a real browser: headless Chromium (Debian's ``chromium``, which
``make test`` installs) driven by Playwright, against a live ``dlgo serve``.

Skipped, with the reason, where Chromium or Playwright is missing.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
from dlgo.app.web.server import create_app  # noqa: E402
from dlgo.app.web.workers import START_SECONDS  # noqa: E402
from helpers import served  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium here (Debian package chromium)")
# as the probe of this machine found: without these, Chromium tries the network at every start
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with served(create_app(runs=tmp_path_factory.mktemp("runs"), reports=ROOT / "reports", time_limit=5.0)) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, server):
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.set_default_timeout(90_000)  # not Playwright's 30 s: CI shares its machine, and waits are not timings
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready=true]")
    yield page
    page.close()
    assert not errors, f"the page raised: {errors}"


def start(page, game: str, white: str, black: str = "human", options: dict | None = None) -> None:
    page.select_option("#game-select", game)
    for key, value in (options or {}).items():
        page.fill(f'#game-options [data-option="{key}"]', str(value))
        page.press(f'#game-options [data-option="{key}"]', "Tab")  # its change asks for the lists of this game
    # the players' boxes are rebuilt when the lists come: choose in them after that
    page.wait_for_function("!document.getElementById('setup-form').hasAttribute('aria-busy')")
    page.select_option("#black-engine", black.split(":")[0])
    page.select_option("#white-engine", white.split(":")[0])
    for side, spec in (("black", black), ("white", white)):  # a human side has no spec box to fill
        assert page.locator(f"#{side}-spec").is_visible() == (spec != "human"), side
    if white != "human":
        page.fill("#white-spec", white)
    page.click("#start")
    # the board, or the page's one line saying why not (generous: a loaded machine answers late)
    page.wait_for_function("document.querySelectorAll('#board .target').length > 0"
                           " || document.getElementById('message').textContent.length > 0",
                           timeout=START_SECONDS * 1000)
    message = page.locator("#message").inner_text()
    assert page.locator("#board .target").count() > 0, f"the game did not start: {message}"


def point(page, row: int, col: int):
    return page.locator(f'#board rect.target[data-row="{row}"][data-col="{col}"]')


def stones(page) -> int:
    return page.locator("#board .stone").count()


def moves(page) -> int:
    return page.locator("#moves li").count()


def wait_for_turn(page, moves_at_least: int = 0, seconds: float = 90) -> None:
    """Until the human is to move again (or the game is over) after at least ``moves_at_least`` moves."""
    page.wait_for_function(
        f"""document.querySelectorAll('#moves li').length >= {moves_at_least}
            && (document.getElementById('status').textContent.includes('your turn')
                || document.getElementById('status').textContent.startsWith('Game over'))""",
        timeout=seconds * 1000)


def over(page) -> bool:
    return page.locator("#status").inner_text().startswith("Game over")


def test_a_whole_tictactoe_game_by_clicks_against_alphabeta_is_a_draw(page):
    start(page, "tictactoe", "alphabeta")
    while not over(page):  # black follows alpha-beta's hints: a perfect game
        played = moves(page)
        page.click("#hint")
        page.wait_for_function("document.getElementById('message').textContent.startsWith('hint from')")
        mark = page.locator("#board .hint-mark")
        point(page, int(mark.get_attribute("data-row")), int(mark.get_attribute("data-col"))).click()
        wait_for_turn(page, min(played + 2, 9))
    status = page.locator("#status").inner_text()
    assert status == "Game over: draw", status
    assert stones(page) == 9 and moves(page) == 9


def test_clicking_an_occupied_point_says_why_and_keeps_the_turn(page):
    start(page, "tictactoe", "alphabeta")
    point(page, 2, 2).click()
    wait_for_turn(page, 2)
    assert stones(page) == 2
    point(page, 2, 2).click()
    page.wait_for_function("document.getElementById('message').textContent.includes('occupied')")
    assert "your turn" in page.locator("#status").inner_text() and stones(page) == 2
    empty = next((r, c) for r in (1, 2, 3) for c in (1, 2, 3)
                 if page.locator(f'#board .stone[data-row="{r}"][data-col="{c}"]').count() == 0)
    point(page, *empty).click()  # the turn was kept: this move counts
    page.wait_for_function("document.querySelectorAll('#board .stone').length >= 3")


def test_a_connect_four_move_gets_the_engines_reply(page):
    start(page, "connect4", "mcts:rounds=300")
    page.locator('#board rect.target[data-col="4"]').click()
    page.wait_for_function("document.querySelectorAll('#board .stone').length === 2")
    assert page.locator('#board .stone.black[data-row="1"][data-col="4"]').count() == 1  # the disc landed
    wait_for_turn(page, 2)
    assert page.locator("#analysis table tr").count() > 1  # the engine's search, move by move
    assert page.locator("#board .heat").count() > 0
    # plain MCTS has no priors: no column for them (an empty one before)
    assert page.locator("#analysis th").all_inner_texts() == ["move", "visits", "Q"]


def test_a_network_searchs_table_shows_its_priors(page):
    start(page, "tictactoe", "alphazero:checkpoint=tictactoe,simulations=30")
    point(page, 2, 2).click()
    wait_for_turn(page, 2, seconds=START_SECONDS + 60)  # a network's engine starts TensorFlow: slow on a busy machine
    assert page.locator("#analysis th").all_inner_texts() == ["move", "visits", "Q", "prior"]
    assert page.locator("#analysis td").nth(3).inner_text().endswith("%")


def test_nine_by_nine_go_two_passes_and_the_score(page):
    start(page, "go", "human", options={"size": 9})
    assert page.locator("#board .target").count() == 81
    point(page, 5, 5).click()
    page.wait_for_function("document.querySelectorAll('#board .stone').length === 1")
    page.click("#pass")  # white passes: black may end the game by passing back, so the page asks first
    page.wait_for_selector("#confirm:not([hidden])")
    assert page.locator("#confirm-text").inner_text() == \
        "If you pass, black can end the game by passing back: B+73.5 (black wins). Pass?"
    page.click("#confirm-yes")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('Black to move')")
    page.click("#pass")  # black's pass ends the game: asked too
    page.wait_for_selector("#confirm:not([hidden])")
    assert page.locator("#confirm-text").inner_text() == \
        "White passed: passing too ends the game, B+73.5 (black wins). Pass?"
    page.click("#confirm-yes")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('Game over')")
    assert "B+73.5 (black wins)" in page.locator("#status").inner_text()
    assert page.locator("#download").inner_text() == "Download SGF"


def test_a_pass_in_the_opening_asks_first_and_shows_the_score_it_would_give(page):
    start(page, "go", "random", options={"size": 9})
    page.click("#pass")
    page.wait_for_selector("#confirm:not([hidden])")
    assert page.locator("#confirm-text").inner_text() == \
        "If you pass, white can end the game by passing back: W+7.5 (white wins). Pass?"
    page.click("#confirm-no")  # nothing played
    assert moves(page) == 0 and page.locator("#confirm").is_hidden()


def test_the_reports_page_lists_reports_and_shows_one_with_its_plots(page):
    page.click("#nav-reports")
    page.locator("#report-links a", has_text="Monte Carlo tree search on connect4").first.click()
    page.wait_for_selector("#report h1")
    assert page.locator("#report table").count() >= 1
    page.wait_for_function("[...document.querySelectorAll('#report img')].every(i => i.complete && i.naturalWidth)")


def test_two_engines_play_each_other_and_pause_stops_them(page):
    page.eval_on_selector("#speed", "s => { s.value = s.max; }")  # no pause between moves
    start(page, "tictactoe", "random", black="random")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('Game over')")
    assert 5 <= moves(page) <= 9 and page.locator("#autoplay").is_hidden()
    page.eval_on_selector("#speed", "s => { s.value = s.min; }")  # now a pause of 3 s between moves
    start(page, "connect4", "random", black="random")
    page.wait_for_function("document.querySelectorAll('#moves li').length >= 1")
    page.click("#autoplay")  # pause
    assert page.locator("#autoplay").inner_text() == "Play"
    paused_at = moves(page)
    page.wait_for_timeout(4000)
    assert moves(page) <= paused_at + 1  # at most the move already asked for


# ------------------------------------------------------------ what the page shows of a game
def play_clicks(page, *points: tuple[int, int]) -> None:
    """Click ``points`` in turn (a game between two humans), each move listed before the next."""
    for (row, col) in points:
        played = moves(page)
        point(page, row, col).click()
        page.wait_for_function(f"document.querySelectorAll('#moves li').length === {played + 1}")


def start_go(page, size: int) -> None:
    start(page, "go", "human", options={"size": size})
    page.wait_for_function(f"document.querySelectorAll('#board .target').length === {size * size}")


def test_every_move_of_a_long_game_is_listed_numbered_and_the_latest_in_view(page):
    start_go(page, 19)
    black = [(3, c) for c in range(1, 20)] + [(5, c) for c in range(1, 12)]   # 30 stones each, never touching
    white = [(17, c) for c in range(1, 20)] + [(15, c) for c in range(1, 12)]
    play_clicks(page, *[p for pair in zip(black, white) for p in pair])
    assert moves(page) == 60 and page.locator("#moves").evaluate("ol => ol.tagName") == "OL"  # numbered

    def in_view(index: int) -> bool:
        return page.locator("#moves").evaluate("""(ol, i) => {
            const box = ol.getBoundingClientRect(), item = ol.children[i].getBoundingClientRect();
            return item.top >= box.top - 1 && item.bottom <= box.bottom + 1
                && item.left >= box.left - 1 && item.right <= box.right + 1; }""", index)

    assert in_view(59) and page.locator("#moves li").nth(59).inner_text().strip() == "L15"  # the latest
    page.locator("#moves li").nth(0).scroll_into_view_if_needed()
    assert in_view(0) and page.locator("#moves li").nth(0).inner_text().strip() == "A3"  # the list scrolls


def test_star_points_five_on_9x9_and_13x13_nine_on_19x19(page):
    for size, stars in ((9, 5), (13, 5), (19, 9)):
        start_go(page, size)
        assert page.locator("#board .star").count() == stars, size


@pytest.mark.parametrize("game, first, second", [("connect4", "Red", "Yellow"), ("tictactoe", "X", "O")])
def test_the_legend_names_the_sides_as_players_know_them(page, game, first, second):
    page.select_option("#game-select", game)
    assert page.locator("#player-black legend").inner_text() == f"{first} (moves first)"
    assert page.locator("#player-white legend").inner_text() == second
    start(page, game, "human")
    sides = page.locator("#sides .side")
    assert [sides.nth(i).inner_text() for i in range(2)] == [f"{first} (moves first): human", f"{second}: human"]
    assert page.locator("#sides .side-icon").count() == 2  # each with its stone
    assert page.locator("#status").inner_text() == f"{first} to move: your turn"


def test_the_winning_line_is_marked(page):
    start(page, "tictactoe", "human")
    play_clicks(page, (1, 1), (2, 1), (1, 2), (2, 2), (1, 3))  # X takes the bottom row
    assert page.locator("#status").inner_text() == "Game over: X wins"
    marked = page.locator("#board .win")
    assert sorted((int(m.get_attribute("data-row")), int(m.get_attribute("data-col"))) for m in marked.all()) == \
        [(1, 1), (1, 2), (1, 3)]
    start(page, "connect4", "human")
    for played, col in enumerate((4, 5, 4, 5, 4, 5, 4), start=1):  # red's column 4
        page.locator(f'#board rect.target[data-col="{col}"]').click()
        page.wait_for_function(f"document.querySelectorAll('#moves li').length === {played}")
    assert page.locator("#status").inner_text() == "Game over: red wins"
    assert page.locator("#board .win[data-col='4']").count() == 4 == page.locator("#board .win").count()


def test_a_finished_go_game_shows_its_territory_and_the_score(page):
    start_go(page, 5)
    play_clicks(page, (3, 3))
    last = page.locator("#board circle.last")  # the last stone's ring
    assert last.count() == 1 and (last.get_attribute("cx"), last.get_attribute("cy")) == \
        (page.locator("#board .stone").get_attribute("cx"), page.locator("#board .stone").get_attribute("cy"))
    page.click("#pass")
    page.click("#confirm-yes")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('Black to move')")
    assert page.locator("#board .territory").count() == 0 and page.locator("#score").is_hidden()
    page.click("#pass")
    page.click("#confirm-yes")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('Game over')")
    assert page.locator("#board .territory.black").count() == 24
    assert page.locator("#board .territory.white").count() == 0
    rows = page.locator("#score tr")
    assert [rows.nth(i).inner_text().split() for i in range(3)] == [
        ["stones", "territory", "komi", "total"], ["Black", "1", "24", "0", "25"], ["White", "0", "0", "7.5", "7.5"]]
    assert page.locator("#score p").inner_text().startswith("B+17.5")


# ------------------------------------------------------------ the setup form
def test_a_typed_spec_fills_the_parameter_fields(page):
    page.select_option("#white-engine", "alphazero")
    page.fill("#white-spec", "alphazero:checkpoint=tictactoe,simulations=50")
    fields = page.locator("#player-white .options")
    assert fields.locator("label", has_text="checkpoint").locator("select").input_value() == "tictactoe"
    assert fields.locator("label", has_text="simulations").locator("input").input_value() == "50"
    assert page.locator("#white-spec").input_value() == "alphazero:checkpoint=tictactoe,simulations=50"
    page.fill("#white-spec", "mcts:rounds=300,plain=true")  # another engine: the list follows
    assert page.locator("#white-engine").input_value() == "mcts"
    assert fields.locator("label", has_text="rounds").locator("input").input_value() == "300"
    assert fields.locator("label", has_text="plain").locator("input").is_checked()
    assert page.locator("#white-spec").input_value() == "mcts:rounds=300,plain=true"



def test_a_spec_typed_while_the_engine_lists_reload_is_kept(page):
    held = []  # the catalog's answer held back until the spec is typed: the order a busy machine gives
    page.route("**/catalog?*", lambda route: held.append(route))
    page.select_option("#game-select", "tictactoe")  # asks the server for the networks that play it
    page.select_option("#white-engine", "alphazero")
    page.fill("#white-spec", "alphazero:checkpoint=tictactoe,simulations=30")
    assert held, "the game's change did not reload the engine lists"
    for route in held:
        route.continue_()
    page.unroute("**/catalog?*")
    page.wait_for_load_state("networkidle")  # the answer came and the lists were rebuilt
    assert page.locator("#white-engine").input_value() == "alphazero"
    assert page.locator("#white-spec").input_value() == "alphazero:checkpoint=tictactoe,simulations=30"
    fields = page.locator("#player-white .options")
    assert fields.locator("label", has_text="simulations").locator("input").input_value() == "30"

def test_the_engine_fields_are_those_that_act_on_the_game_set_up(page):
    def fields() -> set[str]:  # each field's name: its label's own text (a list's options aside)
        return set(page.locator("#player-white .options label").evaluate_all(
            "labels => labels.map((label) => label.firstChild.textContent.trim())"))

    page.select_option("#white-engine", "mcts")
    go_only = {"rave", "rave_equiv", "priors", "expand", "manage", "patterns"}
    assert not go_only & fields() and {"rounds", "seconds", "c"} <= fields()  # tic-tac-toe: uct's alone
    page.select_option("#game-select", "go")
    page.wait_for_function("[...document.querySelectorAll('#player-white .options label')]"
                           ".some((label) => label.firstChild.textContent.trim() === 'rave')")
    assert go_only <= fields()


def test_an_engine_time_over_the_servers_limit_is_said_on_the_page(page):
    start(page, "tictactoe", "mcts:seconds=30")
    assert page.locator("#notes").inner_text() == "O (mcts:seconds=30): seconds cut to 5 (the server's limit)"
    start(page, "tictactoe", "mcts:seconds=2")
    page.wait_for_function("document.getElementById('sides').textContent.includes('mcts:seconds=2')")
    assert page.locator("#notes").is_hidden()


def test_the_first_paint_shows_the_board_before_the_catalogue_answers(browser, server):
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    held = []
    page.route("**/api/catalog*", lambda route: held.append(route))  # the catalogue held back: a slow server
    page.goto(server + "/")
    page.wait_for_function("document.querySelectorAll('#board line').length > 0")
    assert held and page.locator("body[data-ready=true]").count() == 0
    assert page.locator("#board rect").count() >= 1 and page.locator("#board .stone").count() == 0
    assert page.locator("#player-black legend").inner_text() == "X (moves first)"
    assert page.locator("#status").inner_text() == "Choose a game and the players, then start."
    for route in held:
        route.continue_()
    page.unroute("**/api/catalog*")
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#game-select", "go")  # the empty board follows the game set up
    page.wait_for_function("document.querySelectorAll('#board .star').length === 5")
    page.close()


# ------------------------------------------------------------ games kept, games from SGF
def test_a_game_opened_by_its_link_shows_its_setup_in_the_form(page, browser, server):
    start(page, "connect4", "random:seed=4")
    link = page.url
    other = browser.new_page(viewport={"width": 1300, "height": 900})
    other.goto(link)
    other.wait_for_selector("body[data-ready=true]")
    other.wait_for_function("document.getElementById('game-select').value === 'connect4'")
    assert other.locator("#player-black legend").inner_text() == "Red (moves first)"
    assert other.locator("#player-white legend").inner_text() == "Yellow"
    assert other.locator("#black-engine").input_value() == "human"
    assert other.locator("#white-engine").input_value() == "random"
    assert other.locator("#white-spec").input_value() == "random:seed=4"
    start_go(page, 13)
    other.goto(page.url)
    other.wait_for_function("document.getElementById('game-select').value === 'go'")
    assert other.locator('#game-options [data-option="size"]').input_value() == "13"
    assert other.locator("#player-black legend").inner_text() == "Black (moves first)"
    other.close()


def test_a_reloaded_page_shows_its_game_and_an_unknown_one_says_so(page, server):
    start(page, "tictactoe", "human")
    play_clicks(page, (2, 2))
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    page.wait_for_function("document.querySelectorAll('#moves li').length === 1")
    assert stones(page) == 1 and page.locator("#status").inner_text() == "O to move: your turn"
    page.goto("about:blank")  # a fresh load of a link to a game the server does not hold (a hash change
    page.goto(server + "/#/play/nosuchgame")  # alone opens it too, and its answer may reset the address)
    page.wait_for_function("document.getElementById('message').textContent.includes('start a new one')")
    assert page.locator("#message").inner_text() == \
        "no game with id 'nosuchgame': it was closed, or left idle too long; start a new one"
    assert stones(page) == 0 and page.locator("#pass").is_disabled()


def test_a_game_starts_from_a_pasted_sgf_record(page):
    page.click("#sgf-box summary")
    page.fill("#sgf-text", "(;FF[4]GM[1]SZ[9]KM[6.5]AB[cc][gc]AW[cg];W[ee];B[dd])")
    page.select_option("#white-engine", "human")
    page.click("#start")
    page.wait_for_function("document.querySelectorAll('#moves li').length === 2")
    assert stones(page) == 5 and page.locator("#status").inner_text().startswith("White to move: your turn")
    assert page.locator("#board .target").count() == 81


# ------------------------------------------------------------ the board
def test_go_coordinates_stay_clear_of_the_stones_on_the_edges(page):
    start_go(page, 19)
    play_clicks(page, (10, 1), (10, 19))  # A10 and T10, beside the row numbers
    boxes = page.locator("#board").evaluate("""svg => {
        const box = (node) => { const b = node.getBBox(); return [b.x, b.y, b.x + b.width, b.y + b.height]; };
        return { stones: [...svg.querySelectorAll('.stone')].map(box),
                 labels: [...svg.querySelectorAll('.coord')].filter((t) => t.textContent === '10').map(box) }; }""")
    assert len(boxes["stones"]) == 2 and len(boxes["labels"]) == 2
    for x0, y0, x1, y1 in boxes["labels"]:
        for a0, b0, a1, b1 in boxes["stones"]:
            assert x1 <= a0 or a1 <= x0 or y1 <= b0 or b1 <= y0, "a row number under a stone"
