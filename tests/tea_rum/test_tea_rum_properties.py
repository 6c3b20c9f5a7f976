"""Property tests: hidden information never reaches a seat, replays are exact, nothing goes negative."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tea_rum_helpers import ENGINE, check_invariants

from services.bots.roster import bots_for
from services.common.engine import RandomBot
from services.common.rng import Rng
from services.common.runner import Match, play_out
from services.tea_rum import reach
from services.tea_rum.players import standing
from tests.support.walks import random_walk

REQUIREMENTS = tuple(reach.ICON)
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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
    match, _ = random_walk(ENGINE, players, seed, steps)
    state = match.state
    rng = Rng(seed + 1)
    for viewer in [None, *range(players)]:
        twin = _perturb_hidden(state, viewer, rng)
        assert ENGINE.view(twin, viewer) == ENGINE.view(state, viewer)
        if viewer is not None:
            assert ENGINE.legal_moves(twin, viewer) == ENGINE.legal_moves(state, viewer)


@settings(max_examples=6, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000))
def test_chest_gains_are_secret_in_events_for_other_seats(players: int, seed: int) -> None:
    viewers = [None, *range(players)]

    def check(match: Match, seat: int, move: dict[str, Any], events: list[dict[str, Any]]) -> None:
        for event in events:
            body = event.get("vp_gained")
            if body and body["secret"]:
                for viewer in viewers:
                    shown = ENGINE.event_view(event, viewer)
                    assert shown is not None
                    if viewer != body["seat"]:
                        assert shown["vp_gained"]["amount"] == 0 and shown["vp_gained"]["colour"] == ""
            if "vp_exchanged" in event:
                owner = event["vp_exchanged"]["seat"]
                assert all(ENGINE.event_view(event, v) is None for v in viewers if v != owner)

    play_out(Match.start(ENGINE, players, seed), dict.fromkeys(range(players), RandomBot()), after_move=check)


@SETTINGS
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), steps=st.integers(0, 450))
def test_the_heuristic_bot_decides_from_its_own_view(players: int, seed: int, steps: int) -> None:
    match, _ = random_walk(ENGINE, players, seed, steps)
    if ENGINE.is_over(match.state):
        return
    seat = match.to_act()[0]
    twin = _perturb_hidden(match.state, seat, Rng(seed))
    bot = bots_for(ENGINE)["heuristic"]
    assert bot.choose(ENGINE, ENGINE.seen(twin, seat), Rng(5)) == bot.choose(
        ENGINE, ENGINE.seen(match.state, seat), Rng(5)
    )


@settings(max_examples=5, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000))
def test_components_are_conserved_and_never_negative(players: int, seed: int) -> None:
    bots = dict.fromkeys(range(players), RandomBot())
    play_out(Match.start(ENGINE, players, seed), bots, after_move=check_invariants)


@settings(max_examples=6, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), bot=st.sampled_from(["random", "heuristic"]))
def test_what_a_player_can_still_reach_is_never_exceeded(players: int, seed: int, bot: str) -> None:
    # The early decision rests on these bounds: at every step they must cover where each player ends.
    bounds: list[dict[str, int]] = [dict.fromkeys(REQUIREMENTS, 10**6) for _ in range(players)]

    def record(match: Match, *_: Any) -> None:
        for p in match.state["players"]:
            for req in REQUIREMENTS:
                bounds[p["seat"]][req] = min(bounds[p["seat"]][req], reach.most(match.state, p, req))

    match = Match.start(ENGINE, players, seed)
    play_out(match, dict.fromkeys(range(players), bots_for(ENGINE)[bot]), after_move=record)
    for p in match.state["players"]:
        now = standing(p)
        assert all(now[req] <= bounds[p["seat"]][req] for req in REQUIREMENTS), (now, bounds[p["seat"]])
