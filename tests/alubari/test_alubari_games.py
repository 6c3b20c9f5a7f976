"""Whole games by bots at every player count, with every view, move and event checked against the proto."""

from __future__ import annotations

import pytest

from services.alubari.engine import AlubariEngine
from services.bots.roster import bots_for
from services.common import protojson
from services.common.rng import Rng
from services.common.runner import Match, play_out

ENGINE = AlubariEngine()


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_random_bots_finish(players: int) -> None:
    match = Match.start(ENGINE, players, seed=100 + players)
    bots = {seat: bots_for(ENGINE)["random"] for seat in range(players)}
    moves = play_out(match, bots, max_moves=30_000)
    result = ENGINE.result(match.state)
    assert result is not None and moves > 0
    assert len(result.scores) == players
    assert result.winners and all(result.ranking[w] == 1 for w in result.winners)
    assert match.state["ending"]["reason"] in {"RAILWAY_COMPLETE", "LAST_MARKER", "EXTRA_ROUND_PLAYED"}
    for viewer in [None, *range(players)]:
        final = protojson.to_dict(protojson.to_message("alubari", "State", ENGINE.view(match.state, viewer)))
        assert [row["total"] for row in final["final_scores"]] == result.scores


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_heuristic_bots_finish(players: int) -> None:
    match = Match.start(ENGINE, players, seed=200 + players)
    bots = {seat: bots_for(ENGINE)["heuristic"] for seat in range(players)}
    play_out(match, bots, max_moves=30_000)
    assert ENGINE.result(match.state) is not None


def test_heuristic_beats_random_more_often_than_not() -> None:
    wins = 0
    for seed in range(4):
        match = Match.start(ENGINE, 2, seed=300 + seed)
        bots = {0: bots_for(ENGINE)["heuristic"], 1: bots_for(ENGINE)["random"]}
        play_out(match, bots, max_moves=30_000)
        result = ENGINE.result(match.state)
        assert result is not None
        wins += 0 in result.winners
    assert wins >= 3


@pytest.mark.parametrize("players", [1, 2, 5])
def test_views_moves_and_events_fit_the_proto(players: int) -> None:
    """The first 500 steps of a random game: every event, moves every 3rd step, views every 30th."""
    match = Match.start(ENGINE, players, seed=400 + players)
    chooser = Rng(players)
    viewers: list[int | None] = [None, *range(players)]
    for step in range(500):
        if ENGINE.is_over(match.state):
            break
        seat = match.to_act()[0]
        legal = ENGINE.legal_moves(match.state, seat)
        if step % 3 == 0:
            assert all(protojson.canonical("alubari", "Move", move) == move for move in legal)
        if step % 30 == 0:
            for viewer in viewers:
                protojson.to_message("alubari", "State", ENGINE.view(match.state, viewer))
        for event in match.play(seat, chooser.choice(legal)):
            shown = [ENGINE.event_view(event, viewer) for viewer in viewers]
            assert all(other == shown[0] for other in shown)  # every Alubari event is public
            protojson.to_message("alubari", "Event", event)
