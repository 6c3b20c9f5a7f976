"""Whole games by bots at every player count in every region, with invariants checked after every move."""

from __future__ import annotations

import pytest
from darjeeling_helpers import ENGINE, check_conservation

from services.bots.roster import bots_for
from services.common.engine import RandomBot
from services.common.runner import Match, play_out

REGION_NAMES = ["india", "china", "sri_lanka"]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("region", REGION_NAMES)
def test_random_bots_finish(players: int, region: str) -> None:
    match = Match.start(ENGINE, players, seed=players * 31 + len(region), options={"region": region})
    check_conservation(match.state)

    def after(m: Match, seat: int, move: dict, events: list) -> None:
        check_conservation(m.state)

    moves = play_out(match, {s: RandomBot() for s in range(players)}, max_moves=20_000, after_move=after)
    result = ENGINE.result(match.state)
    assert result is not None and moves > players
    assert match.state["ended_by"] >= 0
    assert max(p["score"] for p in match.state["seats"]) >= 100
    assert result.winners and all(result.ranking[w] == 1 for w in result.winners)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_heuristic_bots_finish(players: int) -> None:
    match = Match.start(ENGINE, players, seed=7 + players)
    bots = bots_for(ENGINE)
    seats = {s: bots["heuristic"] if s % 2 == 0 else bots["random"] for s in range(players)}
    play_out(match, seats, max_moves=20_000, after_move=lambda m, *_: check_conservation(m.state))
    assert ENGINE.result(match.state) is not None


@pytest.mark.parametrize("region", REGION_NAMES)
def test_heuristic_only_games_finish_and_beat_random(region: str) -> None:
    bots = bots_for(ENGINE)
    match = Match.start(ENGINE, 4, seed=3, options={"region": region})
    play_out(match, {s: bots["heuristic"] for s in range(4)}, max_moves=20_000)
    assert ENGINE.result(match.state) is not None
    mixed = Match.start(ENGINE, 2, seed=11, options={"region": region})
    play_out(mixed, {0: bots["heuristic"], 1: bots["random"]})
    result = ENGINE.result(mixed.state)
    assert result is not None and result.winners == [0]
