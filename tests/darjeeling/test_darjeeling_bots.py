"""The heuristic's choice of starting space: it looks at the tea its first move can reach."""

from __future__ import annotations

from typing import Any

from services.common.engine import Seen
from services.common.rng import Rng
from services.darjeeling.bots import Board, HeuristicBot
from services.darjeeling.engine import DarjeelingEngine


def _space(row: int, col: int, kind: str = "TILE", halves: int = 1) -> dict[str, Any]:
    space: dict[str, Any] = {"row": row, "col": col, "kind": kind, "collector": -1}
    if kind == "TILE":
        space["tile"] = {"id": 0, "variety": "ASSAM", "halves": halves}
    return space


def _board(rows: list[str]) -> Board:
    """A board drawn as text: digits are tiles with that many halves, ``.`` empty, ``C`` a city."""
    spaces = []
    for row, line in enumerate(rows):
        for col, mark in enumerate(line):
            if mark == ".":
                spaces.append(_space(row, col, "EMPTY"))
            elif mark == "C":
                spaces.append(_space(row, col, "CITY"))
            else:
                spaces.append(_space(row, col, halves=int(mark)))
    return Board({"spaces": spaces})


def test_reach_counts_the_tea_on_the_three_first_rays_by_distance() -> None:
    board = _board(
        [
            "1212",
            "2..3",
            "C121",
        ]
    )
    # From (0, 0) facing south: straight (1,0)=2 then the city ends it; left turns east: 2, 1/2, 2/3;
    # right turns west: off the board at once.
    assert board.reach((0, 0), "SOUTH", 3) == 2 + 2 + 1 / 2 + 2 / 3
    # One step only: just the nearest tile of each ray.
    assert board.reach((0, 0), "SOUTH", 1) == 2 + 2


def test_of_two_equal_border_tiles_the_heuristic_starts_facing_more_tea_not_more_room() -> None:
    # Column 3 ends after row 1, so the start facing the tea has less room ahead (1 space against 2):
    # counting the spaces ahead, as the heuristic once did, would start at (0, 0).
    view = {
        "spaces": [
            _space(0, 0), _space(0, 1), _space(0, 2), _space(0, 3),
            _space(1, 0, "EMPTY"), _space(1, 1, "EMPTY"), _space(1, 2), _space(1, 3, halves=3),
            _space(2, 0, "EMPTY"), _space(2, 1, "EMPTY"), _space(2, 2),
        ]
    }  # fmt: skip
    towards_tea = {"choose_start": {"row": 0, "col": 3, "facing": "SOUTH"}}
    towards_nothing = {"choose_start": {"row": 0, "col": 0, "facing": "SOUTH"}}
    seen = Seen(seat=0, view=view, legal=[towards_nothing, towards_tea])
    assert HeuristicBot().choose(DarjeelingEngine(), seen, Rng(1)) == towards_tea
