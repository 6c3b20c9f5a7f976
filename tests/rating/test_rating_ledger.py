"""Ratings over random finished games on the real Redis (hypothesis): each game moves ratings once.

Every game is delivered several times — concurrently, as two directors reading an at-least-once
outbox would, and again later — in a shuffled order.  The ledger must end exactly where applying
each game once, in the order it first arrived, ends; and each player's games-played count must be
the number of finished rated games they sat in.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis import asyncio as aioredis

from services.rating import model
from services.rating.identity import rated_id
from services.rating.ledger import FinishedGame, Ledger, marker_key
from services.rating.settings import RatingSettings
from tests.support.stack import LoopThread

PLAYERS = ["p0", "p1", "p2", "p3", "p4", "bot:heuristic"]


@pytest.fixture(scope="module")
def loop() -> Iterator[LoopThread]:
    thread = LoopThread()
    try:
        yield thread
    finally:
        thread.close()


@st.composite
def finished_games(draw: Any) -> list[FinishedGame]:
    """Random finished games of 2-5 seats (a player may sit twice, as two heuristic bots do), ties allowed."""
    game_type = f"prop-{secrets.token_hex(6)}"  # a fresh leaderboard per example
    games = []
    for number in range(draw(st.integers(1, 7))):
        seated = draw(st.lists(st.sampled_from(PLAYERS), min_size=2, max_size=5))
        scores = draw(st.lists(st.integers(0, 3), min_size=len(seated), max_size=len(seated)))
        ranking = [1 + sum(1 for other in scores if other > mine) for mine in scores]
        players = [{"name": p, "bot": "heuristic"} if p.startswith("bot:") else {"name": p, "external_id": p}
                   for p in seated]  # fmt: skip
        games.append(FinishedGame(f"{game_type}-g{number}", game_type, players, ranking, number))
    return games


def _expected(games: list[FinishedGame]) -> dict[str, model.Rating]:
    """Each game applied once, in order, with the pure model."""
    ratings: dict[str, model.Rating] = {}
    for game in games:
        places = model.placements([rated_id(p) for p in game.players], game.ranking)
        ids = sorted(places)
        before = [ratings.get(i) or model.initial(i, i) for i in ids]
        for rating in model.rate(before, [places[i] for i in ids]):
            ratings[rating.external_id] = rating
    return ratings


async def _deliver(
    url: str, games: list[FinishedGame], copies: list[int], seed: int
) -> tuple[list[str], dict[str, Any]]:
    redis = aioredis.Redis.from_url(url)
    ledger = Ledger(redis, RatingSettings(rated_pair_games_per_day=0))  # no pair cap: every game counts
    try:
        order = list(games)
        random.Random(seed).shuffle(order)
        applied: list[str] = []
        for game, count in zip(order, copies, strict=False):
            answers = await asyncio.gather(*(ledger.record(game) for _ in range(count)))
            assert sum(answer is not None for answer in answers) == 1  # concurrent copies: one applies
            applied.append(game.game_id)
        for game in order:  # late redeliveries change nothing
            assert await ledger.record(game) is None
        game_type = games[0].game_type
        stored = {p: await ledger.rating(game_type, p) for p in PLAYERS}
        markers = [bool(await redis.exists(marker_key(game_type, g.game_id))) for g in games]
        board, _ = await ledger.leaderboard(game_type, 100, "")
        return applied, {"stored": stored, "markers": markers, "board": board, "order": order}
    finally:
        await redis.aclose()


SLOW_OK = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]


@settings(max_examples=25, deadline=None, suppress_health_check=SLOW_OK)
@given(finished_games(), st.lists(st.integers(1, 3), min_size=7, max_size=7), st.integers(0, 2**16))
def test_each_finished_game_moves_ratings_exactly_once(
    redis_url: str, loop: LoopThread, games: list[FinishedGame], copies: list[int], seed: int
) -> None:
    applied, found = loop.run(_deliver(redis_url, games, copies, seed))
    assert sorted(applied) == sorted(g.game_id for g in games) and all(found["markers"])
    expected = _expected(found["order"])
    for player in PLAYERS:
        rating = found["stored"][player]
        played = sum(1 for g in games if player in {rated_id(p) for p in g.players})
        if played == 0:
            assert rating is None
            continue
        assert rating is not None and rating.games == played  # games played = finished rated games
        assert rating.mu == pytest.approx(expected[player].mu, abs=1e-9)
        assert rating.sigma == pytest.approx(expected[player].sigma, abs=1e-9)
    ordinals = [r.ordinal for r in found["board"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert {r.external_id for r in found["board"]} == set(expected)


def test_ties_share_and_resigned_last_rank_lowest() -> None:
    a, b, c = (model.initial(x, x) for x in "abc")
    tied = model.rate([a, b, c], [1, 1, 3])  # a shared victory: both winners gain alike
    assert tied[0].mu == pytest.approx(tied[1].mu) and tied[0].mu > a.mu > tied[2].mu
    assert model.placements(["x", "bot:h", "bot:h", ""], [3, 2, 1, 1]) == {"x": 3, "bot:h": 1}


async def _pair_games(url: str, cap: int, count: int, day_ms: int) -> tuple[list[bool], dict[str, Any]]:
    """``count`` rated games of one pair (the first always wins) on one day, under a pair cap."""
    redis = aioredis.Redis.from_url(url)
    ledger = Ledger(redis, RatingSettings(rated_pair_games_per_day=cap))
    game_type = f"pair-{secrets.token_hex(6)}"
    players = [{"name": "Farmer", "external_id": "acme:farmer"}, {"name": "Mule", "external_id": "acme:mule"}]
    try:
        counted = []
        for number in range(count):
            game = FinishedGame(f"{game_type}-g{number}", game_type, players, [1, 2], day_ms + number)
            counted.append(await ledger.record(game) is not None)
            assert await ledger.record(game) is None  # a capped game is marked too: never counted later
        next_day = FinishedGame(f"{game_type}-next", game_type, players, [1, 2], day_ms + 86_400_000)
        counted.append(await ledger.record(next_day) is not None)
        return counted, {"farmer": await ledger.rating(game_type, "acme:farmer")}
    finally:
        await redis.aclose()


def test_one_pair_counts_at_most_the_cap_per_day(redis_url: str, loop: LoopThread) -> None:
    counted, found = loop.run(_pair_games(redis_url, cap=3, count=8, day_ms=20_000 * 86_400_000))
    assert counted == [True] * 3 + [False] * 5 + [True]  # three count today, one more the next day
    assert found["farmer"].games == 4
    uncapped, _ = loop.run(_pair_games(redis_url, cap=0, count=8, day_ms=20_000 * 86_400_000))
    assert uncapped == [True] * 9
