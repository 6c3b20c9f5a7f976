"""Property tests: hidden tiles never leak, components are conserved, seed + moves replays exactly."""

from __future__ import annotations

import copy

from darjeeling_helpers import ENGINE, check_conservation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.common.engine import RandomBot
from services.common.rng import Rng
from services.common.runner import Match
from services.darjeeling.board import REGIONS, TURNS
from services.darjeeling.movement import collector_steps

REGION = st.sampled_from(["india", "china", "sri_lanka"])
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def advance(players: int, region: str, seed: int, steps: int) -> tuple[Match, list[tuple[int, dict, list]]]:
    """A random game played for up to ``steps`` moves; returns the match and its log."""
    match = Match.start(ENGINE, players, seed, options={"region": region})
    log: list[tuple[int, dict, list]] = []
    bot = RandomBot()
    for step in range(steps):
        if ENGINE.is_over(match.state):
            break
        seat = match.to_act()[0]
        move = match.bot_move(bot, seat, step)
        log.append((seat, move, match.play(seat, move)))
    return match, log


def scramble_hidden(state: dict, viewer: int | None, rng: Rng) -> dict:
    """The same public situation with other screens' tiles and the bag's contents exchanged at random."""
    other = copy.deepcopy(state)
    pool = list(other["bag"])
    owners = [s for s in range(other["players"]) if s != viewer]
    for seat in owners:
        pool += other["seats"][seat]["tiles"]
    rng.shuffle(pool)
    for seat in owners:
        count = len(other["seats"][seat]["tiles"])
        other["seats"][seat]["tiles"], pool = pool[:count], pool[count:]
    other["bag"] = pool
    return other


@FAST
@given(
    players=st.integers(2, 5),
    region=REGION,
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 250),
    viewer=st.integers(-1, 4),
)
def test_views_do_not_depend_on_hidden_tiles(players: int, region: str, seed: int, steps: int, viewer: int) -> None:
    match, _ = advance(players, region, seed, steps)
    state = match.state
    if ENGINE.is_over(state):
        return  # the screens are lifted at the end
    seat = None if viewer < 0 or viewer >= players else viewer
    twin = scramble_hidden(state, seat, Rng(seed))
    assert ENGINE.view(twin, seat) == ENGINE.view(state, seat)
    if seat is not None:
        assert ENGINE.legal_moves(twin, seat) == ENGINE.legal_moves(state, seat)


@FAST
@given(players=st.integers(2, 5), region=REGION, seed=st.integers(0, 10_000), steps=st.integers(1, 200))
def test_events_hide_tiles_taken_by_others(players: int, region: str, seed: int, steps: int) -> None:
    _, log = advance(players, region, seed, steps)
    for mover, _, events in log:
        for event in events:
            for viewer in [None, *range(players)]:
                seen = ENGINE.event_view(event, viewer)
                assert seen is not None
                if "tile_taken" in seen:
                    assert ("tile" in seen["tile_taken"]) == (viewer == mover)


@FAST
@given(players=st.integers(2, 5), region=REGION, seed=st.integers(0, 10_000), steps=st.integers(1, 200))
def test_every_move_is_public(players: int, region: str, seed: int, steps: int) -> None:
    """No move only its seat knows about: each one shows every viewer an event of its own kind.

    So the public version, one per move, counts only acts the whole table sees.
    """
    _, log = advance(players, region, seed, steps)
    for _, move, events in log:
        assert events, move
        for viewer in [None, *range(players)]:
            seen = [ENGINE.event_view(event, viewer) for event in events]
            assert all(event is not None for event in seen)
            assert [next(iter(e)) for e in seen if e] == [next(iter(e)) for e in events]


@FAST
@given(players=st.integers(2, 5), region=REGION, seed=st.integers(0, 10_000), steps=st.integers(1, 300))
def test_components_conserved_and_replay_is_exact(players: int, region: str, seed: int, steps: int) -> None:
    match, log = advance(players, region, seed, steps)
    check_conservation(match.state)
    again = Match.start(ENGINE, players, seed, options={"region": region})
    for seat, move, events in log:
        assert again.play(seat, move) == events
        check_conservation(again.state)
    assert again.snapshot.to_json() == match.snapshot.to_json()


@FAST
@given(players=st.integers(2, 5), seed=st.integers(0, 10_000), steps=st.integers(0, 250))
def test_every_legal_move_applies_cleanly(players: int, seed: int, steps: int) -> None:
    match, _ = advance(players, "india", seed, steps)
    for seat in match.to_act():
        moves = ENGINE.legal_moves(match.state, seat)
        assert moves, "a seat to act always has a move"
        assert len({str(m) for m in moves}) == len(moves), "no duplicates"
        for move in moves[:40]:
            state = copy.deepcopy(match.state)
            ENGINE.apply(state, seat, move, Rng(seed))
            check_conservation(state)


@FAST
@given(players=st.integers(2, 5), region=REGION, seed=st.integers(0, 10_000), steps=st.integers(1, 200))
def test_a_collector_moves_price_is_its_steps_cost(players: int, region: str, seed: int, steps: int) -> None:
    """``move_costs`` (walking one ray up to the move) prices every collector move, legal or not, as
    the legal steps of its turn do (``collector_steps``), and a distance no step has costs nothing."""
    match, _ = advance(players, region, seed, steps)
    state, board = match.state, REGIONS[region]
    for seat in range(players):
        if state["seats"][seat]["pos"] < 0:
            continue
        for turn in TURNS:
            costs = {step.distance: step.cost for step in collector_steps(state, board, seat, (turn,))}
            for distance in range(0, 12):
                move = {"move_collector": {"turn": turn, "distance": distance}}
                priced = ENGINE.move_costs(state, seat, move)
                expected = costs.get(distance, 0)
                assert priced == ([{"what": "points", "amount": expected}] if expected else []), (turn, distance)
            assert len(costs) <= 11  # no step beyond the distances tried
