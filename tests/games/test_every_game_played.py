"""Every game, every player count, played to its end by bots through the real REST stack.

Bots play in the conductor (a real subprocess), off the request path: creating an
all-bot game returns at once and the game must then finish in the background with a
sound result within a move budget; the replay must list every move, and one seat
played by hand over REST must also reach the end.
"""

from __future__ import annotations

import os
import random
from typing import Any

import httpx
import pytest

from services.common.registry import engine_for, game_types
from tests.support.client import auth, create_game, play_humans_to_end, wait_over

# Games whose random play would take long to reach the end name the bot to use.  Every game runs
# with its default options: India Rails ends a stalled table (no progress for `stall_rounds`) and
# caps a game at `round_limit` rounds by default (issue #16), so every game ends.
# India Rails tables are long (a 6-player table is ~10,000 moves): `make test` plays one count over
# REST and every count in-process (tests/india_rails/test_india_rails_games.py); `make scale`
# (CHAIWALA_PLATFORM_COUNTS=all) plays every count over REST too.
ALL_COUNTS = os.environ.get("CHAIWALA_PLATFORM_COUNTS") == "all"
PLANS: dict[str, dict[str, Any]] = {
    "india_rails": {"bot": "heuristic", "players": [2, 3, 4, 5, 6] if ALL_COUNTS else [3]},
}
# No all-bot game may need more moves than this (a game that loops forever fails here).
MOVE_BUDGET = 20_000


def _cases() -> list[tuple[str, int]]:
    cases = []
    for game in game_types():
        try:
            engine = engine_for(game)
        except ImportError:
            continue
        counts = PLANS.get(game, {}).get("players") or range(engine.min_players, engine.max_players + 1)
        cases += [(game, n) for n in counts]
    return cases


@pytest.mark.parametrize(("game", "players"), _cases())
def test_bots_finish_the_game_over_rest(client: httpx.Client, stack: dict[str, Any], game: str, players: int) -> None:
    if game not in stack["services"]:
        pytest.skip(f"{game} has no generated protos in this checkout")
    plan = PLANS.get(game, {})
    bot = plan.get("bot", "random")
    created = create_game(
        client,
        game,
        [{"name": f"bot{i}", "bot": bot} for i in range(players)],
        seed=1000 + players,
        options=plan.get("options"),
    )
    assert created["version"] == 0, "bots do not play inside the create request"
    final = wait_over(client, created["game_id"])
    assert final["status"] == "finished", f"{game} with {players} bots did not finish"
    assert final["version"] <= MOVE_BUDGET
    result = final["result"]
    assert len(result["scores"]) == players == len(result["ranking"])
    assert all(1 <= place <= players for place in result["ranking"])
    assert all(result["ranking"][w] == 1 for w in result["winners"])
    replay = client.get(f"/v1/games/{created['game_id']}/replay").json()
    assert len(replay["moves"]) == final["version"]


@pytest.mark.parametrize("game", [g for g in game_types() if g not in PLANS])
def test_a_human_seat_plays_to_the_end_with_legal_moves_only(
    client: httpx.Client, stack: dict[str, Any], game: str
) -> None:
    if game not in stack["services"]:
        pytest.skip(f"{game} has no generated protos in this checkout")
    engine = engine_for(game)
    count = max(engine.min_players, 2)  # solo games are covered by the all-bot test above
    # Heuristic opponents end the game in a few hundred moves (random ones drag Alubari to ~900,
    # each human move waiting for the conductor's reply); the human still plays random legal moves.
    players = [{"name": "human"}] + [{"name": f"bot{i}", "bot": "heuristic"} for i in range(1, count)]
    created = create_game(client, game, players, seed=5)
    tokens = {s["seat"]: s["token"] for s in created["seats"] if not s["bot"]}
    rng = random.Random(3)
    play_humans_to_end(client, created["game_id"], tokens, rng.choice)
    game_state = client.get(f"/v1/games/{created['game_id']}", headers=auth(tokens[0])).json()
    assert game_state["status"] == "finished" and game_state["result"]["winners"] is not None
