"""The strip trial (``strip_trial.py``) swaps one count's multiplier strip for its block only."""

from __future__ import annotations

import pytest
from darjeeling_helpers import ENGINE, new_state
from strip_trial import strip_for


def _multipliers(players: int) -> list[int]:
    return [ship["multiplier"] for ship in ENGINE.view(new_state(players=players), None)["ships"]]


def test_a_candidate_strip_holds_inside_the_block_and_the_designed_one_after() -> None:
    designed = _multipliers(4)
    with strip_for(4, (1, 2, 2, 2, 3, 3)):
        assert _multipliers(4) == [1, 2, 2, 2, 3, 3]
        assert _multipliers(5) == [1, 1, 2, 2, 2, 3, 3]  # other counts keep theirs
    assert _multipliers(4) == designed == [1, 1, 2, 2, 3, 3]


@pytest.mark.parametrize("strip", [(1, 2, 3), (3, 2, 2, 1, 1, 1)])
def test_a_strip_without_a_ship_per_player_or_falling_is_refused(strip: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="a ship for every player"), strip_for(4, strip):
        pass
    assert _multipliers(4) == [1, 1, 2, 2, 3, 3]
