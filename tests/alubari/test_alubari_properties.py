"""Invariants under random play: components conserved, hidden information never shown, replays exact."""

from __future__ import annotations

import copy
import os

from alubari_helpers import ENGINE, check_conservation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.alubari import tracks
from services.alubari.content import BOARD, per_players
from services.common.rng import Rng
from services.common.runner import Match

# ALUBARI_EXAMPLES=200 runs a deeper search locally; the default keeps the suite quick.
EXAMPLES = int(os.environ.get("ALUBARI_EXAMPLES", "12"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _random_walk(players: int, seed: int, steps: int) -> tuple[Match, list[tuple[int, dict]]]:
    match = Match.start(ENGINE, players, seed)
    chooser = Rng(seed + 17)
    log: list[tuple[int, dict]] = []
    for _ in range(steps):
        if ENGINE.is_over(match.state):
            break
        seat = match.to_act()[0]
        move = chooser.choice(ENGINE.legal_moves(match.state, seat))
        match.play(seat, move)
        log.append((seat, move))
    return match, log


@SETTINGS
@given(players=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_components_are_conserved_at_every_step(players: int, seed: int) -> None:
    match = Match.start(ENGINE, players, seed)
    chooser = Rng(seed)
    check_conservation(match.state)
    for _ in range(400):
        if ENGINE.is_over(match.state):
            break
        seat = match.to_act()[0]
        match.play(seat, chooser.choice(ENGINE.legal_moves(match.state, seat)))
        check_conservation(match.state)


def _shuffle_hidden(state: dict, seed: int) -> dict:
    """Another state a seat cannot tell apart: the deck order below the top card changed."""
    other = copy.deepcopy(state)
    deck = other["deck"]
    if len(deck) > 1:
        below = deck[:-1]
        Rng(seed).shuffle(below)
        other["deck"] = [*below, deck[-1]]
    return other


def _bag_from_the_table(view: dict) -> dict:
    """The bag's contents as anyone at the table can count them: the setup's cubes less those in view elsewhere.

    So showing them leaks nothing (seeds/alubari/README.md, item 19).
    """
    table = per_players(BOARD["supply_table"], view["players"])
    players = view["player_states"]
    return {
        "iron_ore": table["iron_ore"] - view["stockyard"]["iron_ore"] - sum(p["iron_ore"] for p in players),
        "stone": table["stone"] - view["stockyard"]["stone"] - sum(p["stone"] for p in players),
        "chai": table["chai"] - view["stockyard"]["chai"],
        "event": table["event"] - sum(space["has_cube"] for space in view["rondel"]) - view["event_cubes_pending"],
    }


@SETTINGS
@given(players=st.integers(1, 5), seed=st.integers(0, 10_000), steps=st.integers(0, 250))
def test_views_do_not_depend_on_the_hidden_deck_order(players: int, seed: int, steps: int) -> None:
    match, _ = _random_walk(players, seed, steps)
    state = match.state
    other = _shuffle_hidden(state, seed + 1)
    for viewer in [None, *range(players)]:
        assert ENGINE.view(state, viewer) == ENGINE.view(other, viewer)
    view = ENGINE.view(state, None)
    assert "deck" not in view
    assert view["bag"] == state["bag"] and view["bag_count"] == sum(state["bag"].values())
    assert view["bag"] == _bag_from_the_table(view)
    assert view["discard"] == state["discard"]
    assert view["deck_top_weather"] == (tracks.deck_top_weather(state) or "NO_WEATHER")


@SETTINGS
@given(players=st.integers(1, 5), seed=st.integers(0, 10_000), steps=st.integers(0, 250))
def test_legal_moves_do_not_depend_on_the_deck_order(players: int, seed: int, steps: int) -> None:
    match, _ = _random_walk(players, seed, steps)
    state = match.state
    other = copy.deepcopy(state)
    if len(other["deck"]) > 1:
        below = other["deck"][:-1]
        Rng(seed).shuffle(below)
        other["deck"] = [*below, other["deck"][-1]]
    for seat in range(players):
        assert ENGINE.legal_moves(state, seat) == ENGINE.legal_moves(other, seat)


def test_illegal_moves_are_refused_and_change_nothing() -> None:
    from services.common.runner import check_move_is_illegal

    match = Match.start(ENGINE, 3, seed=5)
    seat = match.to_act()[0]
    assert check_move_is_illegal(match, (seat + 1) % 3, {"place_worker": {"area": "A", "space": 1}}).code == (
        "not_your_turn"
    )
    assert check_move_is_illegal(match, seat, {"take_cube": {"cube": "CHAI"}}).code == "wrong_step"
    assert check_move_is_illegal(match, seat, {"place_worker": {"area": "Z", "space": 1}}).code == "no_such_space"
    assert check_move_is_illegal(match, seat, {"fly": {}}).code == "unknown_move"
    match.play(seat, {"place_worker": {"area": "A", "space": 1}})
    nxt = match.to_act()[0]
    assert check_move_is_illegal(match, nxt, {"place_worker": {"area": "A", "space": 1}}).code == "space_taken"


JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 40) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3),
    max_leaves=6,
)
KINDS = st.sampled_from(
    ["temp_worker", "decline_temp_worker", "place_worker", "play_contract", "finish_contracts", "chai_boost",
     "take_cube", "foundry", "build_station", "buy_equipment", "take_contract", "chaiwala_take_leaves",
     "chaiwala_convert", "end_action", "maintain_equipment", "nonsense"]
)


@SETTINGS
@given(players=st.integers(1, 5), seed=st.integers(0, 1000), steps=st.integers(0, 150),
       kind=KINDS, body=JUNK | st.dictionaries(st.sampled_from(["area", "space", "town", "contract_id",
                                                                "equipment_id", "slot", "cube", "leaves", "pay"]),
                                                JUNK, max_size=3))
def test_any_refused_move_gets_a_stable_code(players: int, seed: int, steps: int, kind: str, body: object) -> None:
    from services.common.engine import IllegalMove
    from services.common.runner import check_move_is_illegal

    match, _ = _random_walk(players, seed, steps)
    move = {kind: body}
    for seat in range(players):
        if move in ENGINE.legal_moves(match.state, seat):
            continue
        refusal = check_move_is_illegal(match, seat, move)
        assert isinstance(refusal, IllegalMove) and refusal.code and refusal.message


@SETTINGS
@given(players=st.integers(2, 5), seed=st.integers(0, 10_000), steps=st.integers(0, 300))
def test_no_view_or_event_depends_on_who_looks(players: int, seed: int, steps: int) -> None:
    """No seat holds a secret, so no move is hidden and versions count only public acts."""
    match = Match.start(ENGINE, players, seed)
    chooser = Rng(seed + 5)
    for _ in range(steps):
        if ENGINE.is_over(match.state):
            break
        seat = match.to_act()[0]
        events = match.play(seat, chooser.choice(ENGINE.legal_moves(match.state, seat)))
        assert all(ENGINE.event_view(event, viewer) == event for event in events for viewer in (None, *range(players)))
    public = {**ENGINE.view(match.state, None), "viewer": 0}
    for viewer in range(players):
        assert {**ENGINE.view(match.state, viewer), "viewer": 0} == public
