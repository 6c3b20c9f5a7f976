"""Whole games by bots at every player count, and the proto shape of everything the engine emits."""

from __future__ import annotations

import orjson
import pytest

from services.common import protojson
from services.common.engine import RandomBot
from services.common.runner import Match, play_out
from services.tea_rum.content import RESOURCES
from services.tea_rum.engine import TeaRumEngine

ENGINE = TeaRumEngine()


def _key(data: dict) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def _check_invariants(match: Match) -> None:
    state = match.state
    n = state["n"]
    for p in state["players"]:
        assert p["money"] >= 0 and p["blue"] >= 0 and p["red"] >= 0
        assert all(v >= 0 for v in p["res"].values())
    for r in RESOURCES:
        held = sum(p["res"][r] for p in state["players"])
        assert state["supply"][r] >= 0
        assert held + state["supply"][r] == {"wheat": 22, "wood": 22, "ore": 22}.get(r, 12)
    colours = [*range(n), *([-1] if n == 2 else [])]
    on_boards = [w for b in state["boards"] for w in b["workers"]]
    for colour in colours:
        count = on_boards.count(colour)
        assert count <= 4
        if state["phase"] == "ships" or state["phase"] == "income":
            assert count == (4 if state["round"] % 2 == 1 else 0)
    cap = 4 if n == 4 else 3
    assert all(len(b["workers"]) <= cap for b in state["boards"])


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_bots_finish_games(players: int, bot: str) -> None:
    for seed in range(3):
        match = Match.start(ENGINE, players, seed)
        bots = {s: ENGINE.bots()[bot] for s in range(players)}
        play_out(match, bots, max_moves=5000, after_move=lambda m, *_: _check_invariants(m))
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
        assert match.state["round"] == 5


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
