"""Every view, legal move and redacted event of sampled random games fits the Darjeeling proto."""

from __future__ import annotations

import pytest
from darjeeling_helpers import ENGINE

from services.common.engine import RandomBot
from services.common.protojson import canonical, to_message
from services.common.runner import Match, play_out

GAME = "darjeeling"


def check_views_and_moves(match: Match) -> None:
    state = match.state
    players = state["players"]
    for viewer in [None, *range(players)]:
        view = ENGINE.view(state, viewer)
        assert canonical(GAME, "State", view) == view
    for seat in ENGINE.to_act(state):
        for move in ENGINE.legal_moves(state, seat):
            assert canonical(GAME, "Move", move) == move


@pytest.mark.parametrize(("players", "region"), [(2, "sri_lanka"), (3, "india"), (5, "china")])
def test_views_moves_events_parse(players: int, region: str) -> None:
    match = Match.start(ENGINE, players, seed=5, options={"region": region})
    check_views_and_moves(match)
    steps = 0

    def after(m: Match, seat: int, move: dict, events: list) -> None:
        nonlocal steps
        steps += 1
        for event in events:
            for viewer in [None, *range(players)]:
                seen = ENGINE.event_view(event, viewer)
                if seen is not None:
                    to_message(GAME, "Event", seen)
        if steps % 5 == 0 or ENGINE.is_over(m.state):
            check_views_and_moves(m)

    play_out(match, {s: RandomBot() for s in range(players)}, after_move=after)
    assert ENGINE.view(match.state, None)["phase"] == "GAME_OVER"


def test_options_parse() -> None:
    assert canonical(GAME, "Options", ENGINE.default_options()) == {"region": "", "start_player": -1}
    assert canonical(GAME, "Options", {"start_player": 0}) == {"region": "", "start_player": 0}
