"""The cached and one-pass India Rails searches change nothing: recorded games replay identically.

``data/recorded_games.json`` was recorded before the build listing and the bot's path searches
were made incremental (issue 12): every move, a digest of every legal-move list before it and of
the snapshot after some moves (``record_games.py`` makes it again, should the rules or the deck
change on purpose).  Replaying it now must give the same legal moves, the same states and, for
the heuristic games, the same bot decisions.  A property test holds the one-pass listing to the
refusal explainer (``build_problem``) on random positions.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from india_rails_fixtures import ENGINE, new_match

from services.bots.roster import bots_for
from services.common.engine import RandomBot
from services.common.rng import Rng
from services.india_rails import bots as india_bots
from services.india_rails import track as tracks
from services.india_rails.content import BOARD, MAJOR_MILEPOSTS

RECORDED = json.loads((Path(__file__).parent / "data" / "recorded_games.json").read_text())["games"]


def _digest(value: Any) -> str:
    return hashlib.sha256(orjson.dumps(value)).hexdigest()[:12]


@pytest.mark.parametrize("game", RECORDED, ids=lambda g: f"{g['players']}p-{g['bot']}-seed{g['seed']}")
def test_a_recorded_game_replays_with_the_same_legal_moves_states_and_bot_choices(game: dict[str, Any]) -> None:
    match = new_match(game["players"], seed=game["seed"], **game["options"])
    bot = bots_for(ENGINE)["heuristic"] if game["bot"] == "heuristic" else None
    for i, (seat, move) in enumerate(game["moves"]):
        assert match.to_act()[0] == seat
        assert _digest(ENGINE.legal_moves(match.state, seat)) == game["legal_digests"][i], f"legal moves at {i}"
        if bot is not None:
            assert match.bot_move(bot, seat, i) == move, f"bot decision at {i}"
        match.play(seat, move)
        expected = game["state_digests"].get(str(i))
        if expected is not None:
            assert hashlib.sha256(match.snapshot.to_json()).hexdigest()[:12] == expected, f"state after {i}"


def _every_problem_free_segment(ctx: tracks.BuildContext) -> list[tuple[int, int]]:
    """The listing's definition: every segment from own track or a major city that build_problem allows."""
    if ctx.money <= 0:
        return []
    return [(start, end) for start in sorted(ctx.mine | MAJOR_MILEPOSTS) for end, _ in BOARD.adjacency[start]
            if tracks.build_problem(ctx, start, end) is None]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), players=st.integers(2, 6), steps=st.integers(0, 400),
       cash=st.integers(0, 60), spent=st.integers(0, 20), majors=st.integers(0, 2))
def test_the_one_pass_listing_is_what_build_problem_allows(seed: int, players: int, steps: int, cash: int,
                                                           spent: int, majors: int) -> None:
    match = new_match(players, seed=seed)
    bot = RandomBot()
    for i in range(steps):
        if ENGINE.is_over(match.state):
            break
        seat = match.to_act()[0]
        match.play(seat, bot.choose(ENGINE, ENGINE.seen(match.state, seat), Rng(seed * 1000 + i)))
    state = orjson.loads(orjson.dumps(match.state))
    seat = seed % players
    state["players"][seat]["cash"] = cash
    state["turn"].update(spent=spent, major_segments=majors)
    tracks._LISTINGS.clear()  # the listing itself, not a remembered one
    ctx = tracks.BuildContext(state, seat)
    assert tracks.build_options(ctx) == _every_problem_free_segment(ctx)
    # Asked again (now remembered) it answers the same, and a caller's edits do not leak into the memo.
    again = tracks.build_options(tracks.BuildContext(state, seat))
    assert again == _every_problem_free_segment(ctx)
    again.clear()
    assert tracks.build_options(tracks.BuildContext(state, seat)) == _every_problem_free_segment(ctx)


def test_a_remembered_search_is_the_search() -> None:
    owner = {eid: eid % 3 for eid in range(0, 900, 5)}
    sources = set(BOARD.cities["Delhi"].mileposts)
    first = india_bots.dijkstra(sources, owner, 1)
    assert india_bots.dijkstra(sources, dict(owner), 1) is first
    india_bots._SEARCHES.clear()
    assert india_bots.dijkstra(sources, owner, 1) == first
    assert india_bots.dijkstra(sources, owner, 2) != first  # another seat's own track is free to it
