"""A matchmaker that dies between taking a group and seating it: another one finishes the group, creating
its game if the dead one had not, and finding it (not making a second) if it had; the game's
``match.found`` fact is in the outbox whenever the dead one got, once per game (written again with the
same id when the dead one had written it already).

The dead matchmaker is played by the test with the matchmaker's own code (its store, its plan, its
CreateGame request) against the real Redis and rules service; the live one is the real process."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from redis import Redis as SyncRedis
from redis.asyncio import Redis

from services.clock import clock as clocks
from services.matchmaking import games
from services.matchmaking.model import Group
from services.matchmaking.store import TicketStore
from services.outbox import outbox_key_for
from services.outbox.events import MATCH_FOUND
from tests.support.client import auth, guest
from tests.support.waiting import eventually

GAME = "darjeeling"


def _searching_pair(client: httpx.Client, clock: dict[str, int]) -> list[tuple[str, str, str]]:
    """Two players with a ticket each in a pool of four that nobody else joins (so nothing matches them)."""
    made = []
    for n in range(2):
        player_id, token = guest(client, f"Orphan {n}")
        body = {"game_type": GAME, "player_counts": [4], "time_control": clock}
        answer = client.post("/v1/matchmaking/tickets", json=body, headers=auth(token))
        assert answer.status_code == 201, answer.text
        made.append((player_id, token, str(answer.json()["ticket_id"])))
    return made


async def _die_after_taking(redis_url: str, ticket_ids: list[str], services: dict[str, str], stage: str) -> str:
    """Take the two tickets as a group of two, maybe create its game (and write its fact), and die; the group
    may be taken over two seconds after it was taken (a real matchmaker holds it ``forming_lease_ms``: 3 s in
    tests)."""
    redis = Redis.from_url(redis_url)
    store = TicketStore(redis)
    tickets = await store.many(ticket_ids)
    now = clocks.now_ms()
    forming = games.plan(Group(tuple(tickets), 2), tickets[0].pool_id, now)
    assert await store.take(forming, takeover_ms=now + 2000)
    game_id = ""
    if stage != "before-the-game":
        rules = games.RulesClients(services, "")
        request = games.create_request(forming, tickets[0].pool, {t.ticket_id: t for t in tickets})
        game_id = await rules.create(GAME, request)
        await rules.close()
    if stage == "after-the-fact":
        await games.write_found(redis, forming, game_id, now)
    await redis.aclose()
    return game_id


@pytest.mark.parametrize("stage", ["before-the-game", "after-the-game", "after-the-fact"])
def test_a_group_of_a_dead_matchmaker_is_finished_once(
    client: httpx.Client, clock: dict[str, int], mm_stack: dict[str, Any], stage: str
) -> None:
    made = _searching_pair(client, clock)
    game_id = asyncio.run(_die_after_taking(mm_stack["redis_url"], [t for _, _, t in made], mm_stack["services"],
                                            stage))  # fmt: skip
    seen: dict[str, dict[str, Any]] = {}

    def matched() -> bool:
        for player_id, token, ticket_id in made:
            seen[player_id] = client.get(f"/v1/matchmaking/tickets/{ticket_id}", headers=auth(token)).json()
        return all(t["status"] == "matched" for t in seen.values())

    eventually(matched, "both tickets matched by the live matchmaker", 30)
    (found,) = {t["game_id"] for t in seen.values()}
    if game_id:
        assert found == game_id  # the game the dead matchmaker made, not a second one
    for player_id, token, _ in made:
        mine = client.get("/v1/me/games", headers=auth(token)).json()["games"]
        assert [g["game_id"] for g in mine] == [found]
        seats = client.get(f"/v1/games/{found}").json()["seats"]
        assert seats[seen[player_id]["seat"]]["external_id"] == player_id
    redis = SyncRedis.from_url(mm_stack["redis_url"])
    entries = [fields for _, fields in redis.xrange(outbox_key_for(found)) if fields[b"type"] == MATCH_FOUND.encode()]
    facts = [fields for fields in entries if json.loads(fields[b"data"])["game_id"] == found]
    redis.close()
    assert facts and len({fields[b"id"] for fields in facts}) == 1  # never lost; written twice, one fact
    assert len(facts) == (2 if stage == "after-the-fact" else 1)
