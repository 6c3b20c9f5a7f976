"""The search bot on the four real games: legal moves at every player count, reproducible moves,
its levels in every game's bot list, and a small head-to-head slice against the random bot."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.bots.levels import LEVELS, SearchBot
from services.bots.roster import bots_for
from services.bots.search import Budget
from services.common.engine import Engine
from services.common.registry import engine_for, game_types
from services.common.rng import Rng
from services.common.runner import Match

TINY = Budget(candidates=2, samples=2, depth=3)
# Heuristic moves played before the search is asked, so positions are not all openings.
OPENINGS = (0, 23)


# Every engine determinizes a seat's view (``Engine.determinize`` is abstract), so every game searches.
SEARCHED = game_types()


def _cases() -> list[tuple[str, int]]:
    return [
        (game, players)
        for game in SEARCHED
        for players in range(engine_for(game).min_players, engine_for(game).max_players + 1)
    ]


def _tiny(engine: Engine) -> SearchBot:
    bot = bots_for(engine)["mcts-easy"]
    assert isinstance(bot, SearchBot)
    return replace(
        bot,
        budget=replace(TINY, margin_scale=bot.budget.margin_scale, depth=min(TINY.depth, bot.budget.depth)),
        plans=replace(TINY, margin_scale=bot.plans.margin_scale) if bot.plans else None,
    )


def _advance(match: Match, moves: int) -> None:
    heuristic = bots_for(match.engine)["heuristic"]
    for step in range(moves):
        if match.engine.is_over(match.state):
            return
        seat = match.to_act()[0]
        match.play(seat, match.bot_move(heuristic, seat, step))


@pytest.mark.parametrize(("game", "players"), _cases())
def test_the_search_bot_plays_a_legal_move(game: str, players: int) -> None:
    engine = engine_for(game)
    bot = _tiny(engine)
    for opening in OPENINGS:
        match = Match.start(engine, players, seed=40 + opening)
        _advance(match, opening)
        if engine.is_over(match.state):
            continue
        seat = match.to_act()[0]
        move = match.bot_move(bot, seat, salt=opening)
        assert move in match.legal_moves(seat)
        match.play(seat, move)


@pytest.mark.parametrize("game", SEARCHED)
def test_the_same_generator_gives_the_same_move(game: str) -> None:
    engine = engine_for(game)
    bot = _tiny(engine)
    match = Match.start(engine, 2, seed=5)
    _advance(match, 9)
    seat = match.to_act()[0]
    seen = match.seen(seat)
    first = [_forgetting(bot).choose(engine, seen, Rng(salt)) for salt in range(3)]
    again = [_forgetting(bot).choose(engine, seen, Rng(salt)) for salt in range(3)]
    assert first == again


def _forgetting(bot: SearchBot) -> SearchBot:
    """``bot`` asked without memory (``choose``): each move searches its plan again."""
    return bot


@pytest.mark.parametrize("game", game_types())
def test_every_game_lists_the_levels(game: str) -> None:
    bots = bots_for(engine_for(game))
    assert set(LEVELS) <= set(bots)
    budgets = [bots[level].budget for level in ("mcts-easy", "mcts", "mcts-hard")]  # type: ignore[attr-defined]
    playouts = [budget.candidates * budget.samples for budget in budgets]
    assert playouts == sorted(playouts) and len(set(playouts)) == 3


def test_a_small_search_beats_the_random_bot_at_darjeeling() -> None:
    engine = engine_for("darjeeling")
    search = replace(_tiny(engine), budget=replace(TINY, samples=2, depth=6, margin_scale=10.0))
    random_bot = bots_for(engine)["random"]
    wins = 0
    for table in range(2):
        match = Match.start(engine, 2, seed=900 + table)
        bots = {table % 2: search, 1 - table % 2: random_bot}
        step = 0
        while not engine.is_over(match.state):
            seat = match.to_act()[0]
            match.play(seat, match.bot_move(bots[seat], seat, step))
            step += 1
        result = engine.result(match.state)
        assert result is not None
        wins += result.winners == [table % 2]
    assert wins == 2
