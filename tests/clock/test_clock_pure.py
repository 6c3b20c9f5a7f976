"""The platform's pure parts of the lifecycle: clocks, ranking with resignations, queue shards."""

from __future__ import annotations

import pytest
from redis.crc import key_slot

from services.clock import clock as clocks
from services.common import attention
from services.common.engine import Result
from services.games.lifecycle import Lifecycle, attention_due, idle_too_long, last_seat_standing, rank_with_resignations


def test_a_fischer_bank_charges_the_move_and_adds_the_increment() -> None:
    clock = clocks.new_clock(0, 60, 5, 2)
    assert clock is not None
    clocks.advance(clock, (), [0], {0, 1}, now=1_000)
    assert clocks.deadlines(clock) == {0: 61_000}
    clocks.advance(clock, [0], [1], {0, 1}, now=11_000)  # seat 0 took 10 s
    assert clock["remaining_ms"] == [55_000, 60_000]
    assert clocks.deadlines(clock) == {1: 71_000}
    assert clocks.remaining_s(clock, 21_000) == {"0": 55.0, "1": 50.0}


def test_a_bank_never_goes_below_zero_and_timeouts_are_reported_per_seat() -> None:
    clock = clocks.new_clock(0, 1, 0, 3)
    assert clock is not None
    clocks.advance(clock, (), [0, 2], {0, 1, 2}, now=0)  # two seats to act at once: two clocks
    assert clocks.overdue(clock, 999) == []
    assert clocks.overdue(clock, 1_000) == [0, 2]
    clocks.advance(clock, [0], [2], {0, 1, 2}, now=5_000)
    assert clock["remaining_ms"][0] == 0


def test_a_per_turn_limit_restarts_every_turn_and_skips_unclocked_seats() -> None:
    clock = clocks.new_clock(30, 0, 0, 2)
    assert clock is not None
    clocks.advance(clock, (), [0, 1], {0}, now=0)  # seat 1 is a bot: no clock
    assert clocks.deadlines(clock) == {0: 30_000}
    clocks.advance(clock, [0], [0], {0}, now=10_000)
    assert clocks.deadlines(clock) == {0: 40_000}


def test_bad_clocks_are_refused() -> None:
    for args in [(10, 10, 0), (0, 0, 5), (clocks.MAX_CLOCK_SECONDS + 1, 0, 0)]:
        try:
            clocks.new_clock(*args, seats=2)
        except clocks.BadClock:
            continue
        raise AssertionError(f"{args} accepted")
    assert clocks.new_clock(0, 0, 0, 2) is None


def test_resigned_seats_rank_below_every_seat_still_playing() -> None:
    engine = Result(scores=[50, 40, 30, 20], ranking=[1, 2, 3, 4], winners=[0])
    ranked = rank_with_resignations(engine, [0, 2])
    assert ranked.ranking == [3, 1, 4, 2] and ranked.winners == [1] and ranked.scores == engine.scores
    assert rank_with_resignations(engine, []) == engine


def test_the_last_seat_standing_wins_and_a_solo_game_is_not_over() -> None:
    assert last_seat_standing(1, Lifecycle()) is None
    assert last_seat_standing(3, Lifecycle(resigned=[1])) is None
    won = last_seat_standing(2, Lifecycle(resigned=[1]))
    assert won is not None and won.winners == [0] and won.ranking == [1, 2]


def test_attention_is_due_now_for_a_bot_or_resigned_seat_else_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAIWALA_IDLE_ABORT_SECONDS", "0")  # no idle limit: only bots and clocks
    players = [{"name": "a", "bot": ""}, {"name": "b", "bot": "random"}]
    assert attention_due(players, Lifecycle(), [1], now=7) == 7
    assert attention_due(players, Lifecycle(resigned=[0]), [0], now=7) == 7
    assert attention_due(players, Lifecycle(), [0], now=7) is None
    clock = clocks.new_clock(5, 0, 0, 2)
    clocks.advance(clock, (), [0], {0}, now=100)
    assert attention_due(players, Lifecycle(clock=clock), [0], now=100) == 5_100


def test_an_idle_limit_makes_every_active_game_due_when_it_runs_out(monkeypatch: pytest.MonkeyPatch) -> None:
    players = [{"name": "a", "bot": ""}, {"name": "b", "bot": "random"}]
    monkeypatch.setenv("CHAIWALA_IDLE_ABORT_SECONDS", "60")
    # Counted from the last log entry (or from now, for a game with none since it started).
    assert attention_due(players, Lifecycle(touched_ms=1_000), [0], now=5_000) == 61_000
    assert attention_due(players, Lifecycle(), [0], now=5_000) == 65_000
    assert attention_due(players, Lifecycle(touched_ms=1_000), [1], now=5_000) == 5_000  # a bot first
    clock = clocks.new_clock(5, 0, 0, 2)
    clocks.advance(clock, (), [0], {0}, now=100)
    assert attention_due(players, Lifecycle(clock=clock, touched_ms=100), [0], now=100) == 5_100  # the earlier
    assert idle_too_long(Lifecycle(touched_ms=1_000), 0, now=61_000)
    assert not idle_too_long(Lifecycle(touched_ms=1_000), 0, now=60_999)
    assert idle_too_long(Lifecycle(), 500, now=60_500)  # never moved: counted from the start
    monkeypatch.setenv("CHAIWALA_IDLE_ABORT_SECONDS", "0")
    assert not idle_too_long(Lifecycle(touched_ms=1), 0, now=10**12)


def test_queue_shards_share_the_hash_slots_of_their_games() -> None:
    slots = [key_slot(tag.encode()) for tag in attention.SHARD_TAGS]
    assert slots == [k * 16384 // attention.SHARD_COUNT + 16384 // (2 * attention.SHARD_COUNT) for k in range(16)]
    for _ in range(50):
        game_id = attention.new_game_id("darjeeling")
        queue, claims = attention.keys_for_game(game_id)
        assert key_slot(f"game:{{{game_id}}}:meta".encode()) == key_slot(queue.encode()) == key_slot(claims.encode())
