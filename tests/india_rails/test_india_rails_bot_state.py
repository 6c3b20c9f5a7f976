"""The heuristic bot keeps no notes between moves, and the rules state carries nothing for it (issue 31).

A seat's move depends only on its view, its legal moves and the move's generator, so a fresh bot
object (another conductor worker, a restart) plays exactly what a long-lived one plays.  Snapshots
written before the engine stopped drawing a ``game_key`` for the bot still load and play on.
"""

from __future__ import annotations

import orjson
from india_rails_fixtures import ENGINE, new_match

from services.common.engine import RandomBot
from services.common.runner import Match, Snapshot
from services.india_rails.bots import HeuristicBot


def test_a_new_game_state_carries_no_key_for_the_bot() -> None:
    assert "game_key" not in new_match(3, seed=4).state


def test_a_fresh_bot_plays_every_move_as_the_bot_that_played_the_game_so_far() -> None:
    match = new_match(3, seed=5, fast_game=True)
    lasting = HeuristicBot()
    compared = 0
    for i in range(600):
        if ENGINE.is_over(match.state):
            break
        seat = match.to_act()[0]
        move = match.bot_move(lasting, seat, i)
        if len(match.legal_moves(seat)) > 1:
            assert match.bot_move(HeuristicBot(), seat, i) == move, f"move {i}"
            compared += 1
        match.play(seat, move)
    assert compared > 300


def test_a_snapshot_with_the_former_game_key_loads_and_plays_as_one_without_it() -> None:
    match = new_match(4, seed=6, mercy_borrowing=True)
    bot = RandomBot()
    for i in range(60):
        seat = match.to_act()[0]
        match.play(seat, match.bot_move(bot, seat, i))
    raw = orjson.loads(match.snapshot.to_json())
    raw["state"]["game_key"] = 123456789  # as engines before issue 31 stored it
    old = Match(engine=ENGINE, snapshot=Snapshot.from_json(orjson.dumps(raw)))
    for i in range(60, 200):
        seat = match.to_act()[0]
        assert old.to_act() == [seat]
        assert old.legal_moves(seat) == match.legal_moves(seat)
        assert ENGINE.view(old.state, seat) == ENGINE.view(match.state, seat)
        move = match.bot_move(HeuristicBot(), seat, i)
        assert old.bot_move(HeuristicBot(), seat, i) == move
        assert old.play(seat, move) == match.play(seat, move)
    assert old.snapshot.rng == match.snapshot.rng
    assert {k: v for k, v in old.state.items() if k != "game_key"} == match.state


def test_the_setup_still_makes_the_draw_the_key_took_so_seeds_replay_as_before() -> None:
    # The generator after setup as engines with the key left it (recorded before issue 31): a seed
    # and the same moves still replay a game begun then.
    assert new_match(2, seed=22, fast_game=True, fast_trains=True).snapshot.rng == "42a19550649a8a9b"
    assert new_match(5, seed=3).snapshot.rng == "31a5435f56ec1e72"
