"""Property tests: hidden information never reaches a seat, replays are exact, nothing goes negative."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tea_rum_helpers import ENGINE

from services.common.engine import RandomBot
from services.common.rng import Rng
from services.common.runner import Match

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _play(players: int, seed: int, steps: int) -> tuple[Match, list[tuple[int, dict[str, Any]]]]:
    match = Match.start(ENGINE, players, seed)
    log = []
    for step in range(steps):
        if ENGINE.is_over(match.state):
            break
        seat = match.to_act()[0]
        move = match.bot_move(RandomBot(), seat, step)
        match.play(seat, move)
        log.append((seat, move))
    return match, log


def _perturb_hidden(state: dict[str, Any], viewer: int | None, rng: Rng) -> dict[str, Any]:
    """Change everything ``viewer`` may not see."""
    other = copy.deepcopy(state)
    for key in ("captain_deck", "contract_deck", "victory_hidden"):
        rng.shuffle(other[key])
    rng.shuffle(other["automa"]["bag"])
    over = other["phase"] == "over"
    for p in other["players"]:
        if p["seat"] == viewer or over:
            continue
        if p["chest"]:
            p["blue"] += 3
            p["red"] += 1
        if other["phase"] == "exchange" and p["money"] >= 10:
            p["money"] -= 10
            p["red"] += 1
            p["exchanged"]["red"] += 1
    return other


@SETTINGS
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), steps=st.integers(0, 450))
def test_a_view_does_not_depend_on_what_the_viewer_may_not_see(players: int, seed: int, steps: int) -> None:
    match, _ = _play(players, seed, steps)
    state = match.state
    rng = Rng(seed + 1)
    for viewer in [None, *range(players)]:
        twin = _perturb_hidden(state, viewer, rng)
        assert ENGINE.view(twin, viewer) == ENGINE.view(state, viewer)
        if viewer is not None:
            assert ENGINE.legal_moves(twin, viewer) == ENGINE.legal_moves(state, viewer)


@SETTINGS
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), steps=st.integers(0, 400))
def test_seed_and_moves_replay_the_same_state(players: int, seed: int, steps: int) -> None:
    match, log = _play(players, seed, steps)
    again = Match.start(ENGINE, players, seed)
    for seat, move in log:
        again.play(seat, move)
    assert again.snapshot.to_json() == match.snapshot.to_json()


@settings(max_examples=6, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000))
def test_chest_gains_are_secret_in_events_for_other_seats(players: int, seed: int) -> None:
    match = Match.start(ENGINE, players, seed)
    step = 0
    while not ENGINE.is_over(match.state):
        seat = match.to_act()[0]
        events = match.play(seat, match.bot_move(RandomBot(), seat, step))
        step += 1
        for event in events:
            body = event.get("vp_gained")
            if body and body["secret"]:
                for viewer in [None, *range(players)]:
                    shown = ENGINE.event_view(event, viewer)
                    assert shown is not None
                    if viewer != body["seat"]:
                        assert shown["vp_gained"]["amount"] == 0 and shown["vp_gained"]["colour"] == ""
            if "vp_exchanged" in event:
                owner = event["vp_exchanged"]["seat"]
                assert all(ENGINE.event_view(event, v) is None for v in [None, *range(players)] if v != owner)


@SETTINGS
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), steps=st.integers(0, 450))
def test_the_heuristic_bot_decides_from_its_own_view(players: int, seed: int, steps: int) -> None:
    match, _ = _play(players, seed, steps)
    if ENGINE.is_over(match.state):
        return
    seat = match.to_act()[0]
    twin = _perturb_hidden(match.state, seat, Rng(seed))
    bot = ENGINE.bots()["heuristic"]
    assert bot.choose(ENGINE, twin, seat, Rng(5)) == bot.choose(ENGINE, match.state, seat, Rng(5))


@settings(max_examples=5, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000))
def test_components_are_conserved_and_never_negative(players: int, seed: int) -> None:
    match = Match.start(ENGINE, players, seed)
    limits = {"wheat": 22, "wood": 22, "ore": 22, "barrel": 12, "tobacco": 12, "cannon": 12}
    workers = [*range(players), *([-1] if players == 2 else [])]
    step = 0
    while not ENGINE.is_over(match.state):
        seat = match.to_act()[0]
        match.play(seat, match.bot_move(RandomBot(), seat, step))
        step += 1
        state = match.state
        for resource, total in limits.items():
            held = [p["res"][resource] for p in state["players"]]
            assert min(held) >= 0 and state["supply"][resource] >= 0
            assert sum(held) + state["supply"][resource] == total
        for p in state["players"]:
            assert p["money"] >= 0 and p["blue"] >= 0 and p["red"] >= 0
        on_boards = [w for b in state["boards"] for w in b["workers"]]
        assert all(0 <= on_boards.count(w) <= 4 for w in workers)
        assert len(on_boards) <= 4 * len(workers)
