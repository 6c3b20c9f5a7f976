"""What every game promises, checked once over every game type and every player count it takes.

Each engine has its own tests of its rules; these are the contracts the service builds on, so
they are written once here rather than once per game (the bots' fairness contract — a seat's view
and legal moves do not depend on what it cannot see — is the same kind, in tests/bots/test_bots_fair.py):

* ``seed + log`` reproduces a game exactly (the fairness tooling and replays rest on it);
* a refused move gets a stable code and changes nothing;
* a view is plain JSON and depends only on the state (asking twice, or after a JSON round trip
  of the state, gives the same view);
* a finished game has a result for every seat and nobody left to act.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.common.engine import IllegalMove, RandomBot
from services.common.registry import available_game_types, engine_for
from services.common.runner import Match, play_out
from tests.support.walks import random_walk

SETTINGS = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CASES = [
    (game_type, players)
    for game_type in available_game_types()
    for players in range(engine_for(game_type).min_players, engine_for(game_type).max_players + 1)
]
IDS = [f"{game_type}-{players}p" for game_type, players in CASES]
EVERY_GAME = pytest.mark.parametrize(("game_type", "players"), CASES, ids=IDS)


@EVERY_GAME
@SETTINGS
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 250))
def test_seed_and_log_reproduce_the_game(game_type: str, players: int, seed: int, steps: int) -> None:
    match, log = random_walk(engine_for(game_type), players, seed, steps)
    again = Match.start(match.engine, players, seed)
    for seat, move in log:
        again.play(seat, move)
    assert again.snapshot.to_json() == match.snapshot.to_json()


@EVERY_GAME
@SETTINGS
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 150), junk=st.sampled_from([{}, {"no_such_move": {}}, []]))
def test_a_refused_move_has_a_stable_code_and_changes_nothing(
    game_type: str, players: int, seed: int, steps: int, junk: Any
) -> None:
    match, _ = random_walk(engine_for(game_type), players, seed, steps)
    if match.engine.is_over(match.state):
        return
    before = match.snapshot.to_json()
    acting = match.to_act()
    waiting = [seat for seat in range(players) if seat not in acting]
    attempts: list[tuple[int, Any]] = [(acting[0], junk)]
    if waiting:  # a legal-looking move from a seat whose turn it is not
        attempts.append((waiting[0], match.legal_moves(acting[0])[0]))
    for seat, move in attempts:
        with pytest.raises(IllegalMove) as refused:
            match.play(seat, move)
        assert refused.value.code and refused.value.code.replace("_", "").isalnum(), refused.value.code
        assert match.snapshot.to_json() == before


@EVERY_GAME
@SETTINGS
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 200))
def test_a_view_is_plain_json_and_a_function_of_the_state(game_type: str, players: int, seed: int, steps: int) -> None:
    match, _ = random_walk(engine_for(game_type), players, seed, steps)
    engine = match.engine
    copied = orjson.loads(orjson.dumps(match.state))
    for viewer in [None, *range(players)]:
        view = engine.view(match.state, viewer)
        assert orjson.loads(orjson.dumps(view)) == view
        assert engine.view(copied, viewer) == view
        assert engine.view(match.state, viewer) == view


@EVERY_GAME
def test_random_play_ends_with_a_result_for_every_seat(game_type: str, players: int) -> None:
    engine = engine_for(game_type)
    match = Match.start(engine, players, seed=players * 101)
    play_out(match, {seat: RandomBot() for seat in range(players)}, max_moves=60_000)
    result = engine.result(match.state)
    assert result is not None
    assert len(result.scores) == players
    assert engine.to_act(match.state) == []
