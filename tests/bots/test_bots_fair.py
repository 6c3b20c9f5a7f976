"""Bots play fair: they decide from what their seat may know, and ``determinize`` samples only the unseen.

For every game and player count, from positions of seeded random games:

* a second state that differs only in what the seat cannot see (a test-side perturbation) gives
  the same view and, for every bot of the game (same rng), the same move;
* ``determinize`` keeps the seat's view and legal moves, differs from the real state only where
  the seat cannot see, really samples (two draws of a position with hidden parts may differ), and
  yields a state the engine plays on;
* no bot ever produces an illegal move (checked at the same positions, every bot of the game).

``make bots-fair`` runs the same checks over many more positions (``CHAIWALA_BOTS_SWEEP``).
"""

from __future__ import annotations

import pytest
from bots_helpers import GAMES, SWEEP, Game, json_copy, legal_keys, positions, seen_of, unexplained
from search_helpers import quick_bots

from services.bots.roster import bots_for
from services.common.engine import RandomBot
from services.common.rng import Rng
from services.common.runner import Match, Snapshot, json_key

CASES = [(game, players) for game in GAMES.values() for players in game.counts]
IDS = [f"{game.game_type}-{players}p" for game, players in CASES]
SAMPLING = [(game, players) for game, players in CASES if game.determinizes]
SAMPLING_IDS = [f"{game.game_type}-{players}p" for game, players in SAMPLING]
STOPS = 3 * SWEEP
# Moves played on from a determinized state: enough to cross phases, few enough for ``make test``.
PLAY_ON = 20 * SWEEP


def _seeds(players: int) -> range:
    return range(players, players + SWEEP)


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_a_bot_does_not_see_what_its_seat_cannot_and_never_plays_an_illegal_move(game: Game, players: int) -> None:
    engine = game.engine
    for seed in _seeds(players):
        for match, seat in positions(game, players, seed, STOPS):
            twin = game.perturb(match.state, seat, Rng(seed))
            assert engine.view(twin, seat) == engine.view(match.state, seat)
            legal = legal_keys(match.legal_moves(seat))
            assert legal_keys(engine.legal_moves(twin, seat)) == legal
            for name in bots_for(engine):
                # Fresh bots on both sides: a bot's memory of earlier moves must not tell them apart.
                real = quick_bots(engine)[name].choose(engine, seen_of(engine, match.state, seat), Rng(seed))
                other = quick_bots(engine)[name].choose(engine, seen_of(engine, twin, seat), Rng(seed))
                assert real == other, (name, seed)
                assert json_key(real) in legal, (name, seed, real)


@pytest.mark.parametrize(("game", "players"), SAMPLING, ids=SAMPLING_IDS)
def test_determinize_samples_only_what_the_seat_cannot_see(game: Game, players: int) -> None:
    engine = game.engine
    for seed in _seeds(players):
        for match, seat in positions(game, players, seed, STOPS):
            seen = seen_of(engine, match.state, seat)
            sampled = engine.determinize(seen, Rng(seed))
            assert engine.view(sampled, seat) == seen.view
            assert legal_keys(engine.legal_moves(sampled, seat)) == legal_keys(seen.legal)
            assert engine.to_act(sampled) == engine.to_act(match.state)
            assert unexplained(game, match.state, sampled, seat) == []
            _play_on(game, json_copy(sampled), seed)


@pytest.mark.parametrize("game", [g for g in GAMES.values() if g.determinizes], ids=lambda g: g.game_type)
def test_determinize_draws_the_hidden_parts_at_random(game: Game) -> None:
    engine = game.engine
    players = max(game.counts)
    draws = set()
    for match, seat in positions(game, players, seed=3, stops=3):
        seen = seen_of(engine, match.state, seat)
        draws |= {repr(engine.determinize(seen, Rng(k))) for k in range(4)}
    assert len(draws) > 3, "determinize gave the same hidden parts every time"


def _play_on(game: Game, state: dict, seed: int) -> None:
    """The determinized state is one the engine plays on (random moves for a while)."""
    engine = game.engine
    match = Match(engine=engine, snapshot=Snapshot(state=state, rng=Rng(seed).state))
    bot = RandomBot()
    for step in range(PLAY_ON):
        if engine.is_over(match.state):
            assert engine.result(match.state) is not None
            return
        seat = match.to_act()[0]
        match.play(seat, match.bot_move(bot, seat, step))
