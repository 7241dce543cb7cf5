from dlgo.gotypes import Player, Point


def test_player_other_and_str():
    assert Player.black.other is Player.white
    assert Player.white.other is Player.black
    assert str(Player.black) == "B" and str(Player.white) == "W"
    assert int(Player.black) == 1 and int(Player.white) == 2


def test_point_neighbors():
    assert sorted(Point(3, 3).neighbors()) == [Point(2, 3), Point(3, 2), Point(3, 4), Point(4, 3)]
    assert Point(1, 1).neighbors()[0] == Point(0, 1)  # off the board: the board filters


def test_point_is_a_value():
    assert Point(2, 5) == Point(row=2, col=5)
    assert {Point(1, 1): "a"}[Point(1, 1)] == "a"
