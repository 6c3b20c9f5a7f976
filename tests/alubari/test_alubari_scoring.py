"""Final scoring: every category, and the contract allocation that scores the most."""

from __future__ import annotations

import dataclasses
import itertools

from alubari_helpers import new_state
from hypothesis import given, settings
from hypothesis import strategies as st

from services.alubari import rounds, scoring
from services.alubari.content import CHAI_POINTS
from services.alubari.scoring import Holdings, Need, best_allocation, contract_need, fits


def _brute_force(needs: list[Need], have: Holdings) -> float:
    best = 0.0
    for size in range(len(needs) + 1):
        for subset in itertools.combinations(needs, size):
            total = Need(card=0)
            for need in subset:
                total = scoring.combine(total, need)
            if fits(total, have):
                best = max(best, total.points - 0.5 * total.tea)
    return best


def test_each_marker_serves_one_contract_and_the_best_set_is_found() -> None:
    # Greedy would spend the two rubble stations on the "any station" card and lose the 6 points.
    needs = [Need(card=1, station=2, points=5), Need(card=2, rubble_station=2, points=6)]
    have = Holdings(track=0, estate=0, rubble_stations=2, stone_stations=0, other_stations=2, leaves=0)
    value, chosen = best_allocation(needs, have)
    assert (value, chosen) == (11.0, [1, 2])
    short = Holdings(track=0, estate=0, rubble_stations=2, stone_stations=0, other_stations=1, leaves=0)
    assert best_allocation(needs, short) == (6.0, [2])


def test_leaves_cost_their_half_point_when_moved_onto_a_contract() -> None:
    needs = [Need(card=33, tea=2, points=2), Need(card=17, tea=6, points=9)]
    have = Holdings(track=0, estate=0, rubble_stations=0, stone_stations=0, other_stations=0, leaves=7)
    # 17 alone: 9 - 3 = 6; both need 8 leaves; 33 alone: 2 - 1 = 1.
    assert best_allocation(needs, have) == (6.0, [17])


def test_cubes_held_at_the_end_serve_one_contract_each() -> None:
    needs = [contract_need(33, warehouse=False), Need(card=99, iron_ore=2, points=4)]
    assert needs[0].iron_ore == 3
    have = Holdings(track=0, estate=0, rubble_stations=0, stone_stations=0, other_stations=0, leaves=0, iron_ore=4)
    assert best_allocation(needs, have) == (4.0, [99])
    richer = Holdings(track=0, estate=0, rubble_stations=0, stone_stations=0, other_stations=0, leaves=0, iron_ore=5)
    assert best_allocation(needs, richer) == (7.0, [33, 99])


def test_mixed_requirements_must_all_be_met() -> None:
    need = contract_need(34, warehouse=False)
    assert (need.estate, need.station, need.track, need.points) == (1, 1, 1, 6)
    assert not fits(need, Holdings(track=1, estate=1, rubble_stations=0, stone_stations=0, other_stations=0, leaves=0))


def test_east_india_company_warehouse_needs_one_leaf_fewer() -> None:
    assert contract_need(19, warehouse=True).tea == 3
    assert contract_need(19, warehouse=False).tea == 4


needs_strategy = st.lists(
    st.builds(
        Need,
        card=st.integers(1, 36),
        track=st.integers(0, 3),
        estate=st.integers(0, 2),
        station=st.integers(0, 2),
        rubble_station=st.integers(0, 2),
        stone_station=st.integers(0, 1),
        tea=st.integers(0, 4),
        points=st.integers(0, 12),
        iron_ore=st.integers(0, 2),
        stone=st.integers(0, 1),
        steel=st.integers(0, 1),
    ),
    max_size=7,
).map(lambda needs: [dataclasses.replace(need, card=i + 1) for i, need in enumerate(needs)])
holdings_strategy = st.builds(
    Holdings, st.integers(0, 6), st.integers(0, 4), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3),
    st.integers(0, 8), st.integers(0, 3), st.integers(0, 2), st.integers(0, 2),
)


@settings(max_examples=150, deadline=None)
@given(needs_strategy, holdings_strategy)
def test_allocation_matches_brute_force(needs: list[Need], have: Holdings) -> None:
    value, chosen = best_allocation(needs, have)
    assert value == _brute_force(needs, have)
    picked = [n for n in needs if n.card in chosen]
    total = Need(card=0)
    for need in picked:
        total = scoring.combine(total, need)
    assert fits(total, have)


def test_score_sheet_categories() -> None:
    state = new_state(3)
    player = state["players"][0]
    state["estates"][0]["spaces"][0].update({"rubble": 0, "owner": 0})  # Alubari 1 vp
    state["supply"]["rubble"] += 1
    state["track"][0] = state["track"][1] = 0  # 1 vp each
    state["stations"][0][3] = 0  # Siliguri steel space, 3 vp
    player.update({"markers": 15, "chai": 5, "tea_leaves": 5, "equipment": [6, 7]})
    player["contracts"] = [{"id": 1, "used": True}, {"id": 27, "used": False}, {"id": 21, "used": False}]
    rounds.finish_game(state, [], "TEST")
    sheet = state["final"][0]
    assert sheet["estates"] == 1 and sheet["track"] == 2 and sheet["stations"] == 3
    assert sheet["contracts"] == 4 + 2 * 5  # card 1 (2 track) and card 27 (2 per chai); 21 unmet
    assert sheet["completed_contracts"] == [1, 27]
    assert sheet["chai"] == CHAI_POINTS[5] and sheet["tea_leaves"] == 2.5
    assert sheet["equipment"] == 9 * 2 + 7
    assert sheet["total"] == 1 + 2 + 3 + 14 + CHAI_POINTS[5] + 2.5 + 25


def test_no_equipment_points_in_the_solo_game_but_the_very_fine_train_bonus_stays() -> None:
    state = new_state(1)
    state["players"][0]["equipment"] = [6, 1]
    rounds.finish_game(state, [], "TEST")
    assert state["final"][0]["equipment"] == 7


def test_ties_share_the_victory() -> None:
    from alubari_helpers import ENGINE

    state = new_state(3)
    rounds.finish_game(state, [], "TEST")
    result = ENGINE.result(state)
    assert result is not None and result.winners == [0, 1, 2] and result.ranking == [1, 1, 1]
