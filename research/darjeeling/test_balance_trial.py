"""The balance trial (``balance_trial.py``) changes the strip or the heuristic's start choice for its block only."""

from __future__ import annotations

import json

import pytest
from balance_trial import FORMER, former_start_bot, random_starts, strip_for

from services.arena.schedule import plan
from services.bots.roster import bots_for
from services.common.runner import Match
from services.darjeeling.bots import HeuristicBot
from tests.darjeeling.darjeeling_helpers import ENGINE, new_state


def _multipliers(players: int) -> list[int]:
    return [ship["multiplier"] for ship in ENGINE.view(new_state(players=players), None)["ships"]]


def test_a_candidate_strip_holds_inside_the_block_and_the_designed_one_after() -> None:
    designed = _multipliers(4)
    with strip_for(4, (1, 2, 2, 2, 3, 3)):
        assert _multipliers(4) == [1, 2, 2, 2, 3, 3]
        assert _multipliers(5) == [1, 1, 2, 2, 2, 3, 3]  # other counts keep theirs
    assert _multipliers(4) == designed == [1, 1, 2, 2, 3, 3]


@pytest.mark.parametrize(
    ("strip", "problem"),
    [((1, 2, 3), "does not fit"), ((1, 1, 1, 2, 2, 2, 3, 3), "does not fit"), ((3, 2, 2, 1, 1, 1), "rise")],
)
def test_a_strip_that_does_not_fit_the_wharf_or_falls_is_refused(strip: tuple[int, ...], problem: str) -> None:
    with pytest.raises(ValueError, match=problem), strip_for(4, strip):
        pass
    assert _multipliers(4) == [1, 1, 2, 2, 3, 3]


def _starts_chosen(draws: int) -> set[str]:
    match = Match.start(ENGINE, 4, 3, {"start_player": 0})  # a deal with one best-valued start
    heuristic = HeuristicBot()
    return {json.dumps(match.bot_move(heuristic, 0, salt)) for salt in range(draws)}


def test_random_starts_spread_the_heuristic_over_starting_spaces_for_the_block_only() -> None:
    assert len(_starts_chosen(12)) == 1  # the heuristic's own pick: the best-valued space
    with random_starts():
        assert len(_starts_chosen(12)) > 3
    assert len(_starts_chosen(12)) == 1


def test_the_former_start_choice_is_a_bot_of_the_block_only_and_starts_elsewhere_on_this_deal() -> None:
    with former_start_bot():
        former = bots_for(ENGINE)[FORMER]
        assert len(plan("darjeeling", 4, ["heuristic", FORMER], 2)) == 2
    assert FORMER not in bots_for(ENGINE)
    match = Match.start(ENGINE, 4, 3, {"start_player": 0})
    assert match.bot_move(former, 0, 0) != match.bot_move(HeuristicBot(), 0, 0)  # the two choices differ here
    with pytest.raises(ValueError, match="no bot"):
        plan("darjeeling", 4, ["heuristic", FORMER], 2)
