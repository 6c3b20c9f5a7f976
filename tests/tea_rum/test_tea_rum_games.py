"""Whole games by bots at every player count, and the proto shape of everything the engine emits."""

from __future__ import annotations

import orjson
import pytest
from tea_rum_helpers import ENGINE, check_invariants

from services.bots.roster import bots_for
from services.common import protojson
from services.common.engine import RandomBot
from services.common.runner import Match, play_out


def _key(data: dict) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_bots_finish_games(players: int, bot: str) -> None:
    for seed in range(3):
        match = Match.start(ENGINE, players, seed)
        bots = {s: bots_for(ENGINE)[bot] for s in range(players)}
        play_out(match, bots, max_moves=5000, after_move=check_invariants)
        result = ENGINE.result(match.state)
        assert result is not None
        final = match.state["final"]
        if players == 2:
            expected = final["governors"] if final["victory_colour"] == "blue" else final["pirate_kings"]
        else:
            assert final["pirate_kings"], "someone always has the most red VP"
            expected = sorted(set(final["governors"]) | set(final["pirate_kings"]))
        assert result.winners == expected
        assert all(abs(b - r) <= 10 for b, r in zip(final["blue"], final["red"], strict=True))
        assert match.state["round"] == 5 or final["decided_early"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_views_moves_and_events_fit_the_proto(players: int) -> None:
    match = Match.start(ENGINE, players, 11)
    seats = [None, *range(players)]
    step = 0
    while not ENGINE.is_over(match.state):
        seat = match.to_act()[0]
        # Sampled steps keep the test quick; over a game every kind of move and view still shows up.
        if step % 5 == 0:
            for viewer in seats:
                protojson.to_message("tea_rum", "State", ENGINE.view(match.state, viewer))
        if step % 2 == 0:
            for move in ENGINE.legal_moves(match.state, seat):
                assert _key(protojson.canonical("tea_rum", "Move", move)) == _key(move)
        events = match.play(seat, match.bot_move(RandomBot(), seat, step))
        for event in events:
            for viewer in seats:
                shown = ENGINE.event_view(event, viewer)
                if shown is not None:
                    protojson.to_message("tea_rum", "Event", shown)
        step += 1
    for viewer in seats:
        protojson.to_message("tea_rum", "State", ENGINE.view(match.state, viewer))
