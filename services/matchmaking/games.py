"""A formed group's game, created through the lobby's own path: the rules service's ``CreateGame`` (the
same function ``POST /v1/games`` ends in, :func:`services.rules.creation.create_game`), called over gRPC
as an operator the way the tournament director creates its tables.

* **Seats.** Each player's seat carries their player id as ``external_id`` (so their player token acts
  on it, and the game is filed under ``GET /v1/me/games``); bots fill the rest.
* **Seat order** is drawn from the game's seed: the matchmaker draws a 256-bit seed, gives it as the
  game's operator seed (``seed_hex``; revealed with the game's replay once it is over) and orders the
  seats by ``HMAC-SHA256(seed, "chaiwala/matchmaking-seats/v1" || ticket id)``, so anyone holding the
  revealed seed can check that nobody chose their seat.
* **Tag.** The game's ``client_seed`` is ``mm:<group id>``: a matchmaker that takes over a group whose
  matchmaker died looks for a game with that tag before creating one (:func:`find_created`).
* **The fact.** Once the game exists and before its tickets are marked matched, ``match.found`` goes to
  the game's outbox shard (:func:`write_found`; the notification sender's ``match_found`` push).  The
  tickets live in another Redis Cluster slot than the outbox, so the two cannot share a script: the fact
  comes first, with an id derived from the game, and a matchmaker taking over a group whose matchmaker
  died between the two writes the same fact again, which consumers deduplicate.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

import orjson

from chaiwala.v1 import rules_pb2
from services.common import protojson
from services.common.rng import SEED_BITS
from services.filing.keys import game_keys
from services.lobby.mine import games_key
from services.matchmaking.model import Forming, Group, PoolSpec, Ticket, new_group_id
from services.outbox import seating
from services.outbox.stream import append
from services.rules.clients import RulesClients as RulesClients  # the matcher's, one owner for both processes

_SEATS_TAG = b"chaiwala/matchmaking-seats/v1\x00"
TAG_PREFIX = "mm:"


def seat_order(seed: int, entries: list[str]) -> list[str]:
    """``entries`` (ticket ids, and bot seats) in the order the seed draws."""
    key = seed.to_bytes(SEED_BITS // 8, "big")
    return sorted(entries, key=lambda entry: hmac.new(key, _SEATS_TAG + entry.encode(), hashlib.sha256).digest())


def plan(group: Group, pool_id: str, now_ms: int) -> Forming:
    """The record of a group about to be taken: its seats in drawn order and its game's seed."""
    seed = secrets.randbits(SEED_BITS)
    entries = [t.ticket_id for t in group.tickets] + [f"bot:{group.bot}:{n}" for n in range(group.bots)]
    return Forming(group_id=new_group_id(), pool_id=pool_id, game_type=group.tickets[0].pool.game_type,
                   ticket_ids=[t.ticket_id for t in group.tickets], seats=seat_order(seed, entries),
                   seed_hex=format(seed, "064x"), formed_ms=now_ms)  # fmt: skip


def create_request(forming: Forming, pool: PoolSpec, tickets: dict[str, Ticket]) -> rules_pb2.CreateGameRequest:
    """The CreateGame request of a group's game."""
    players = []
    for entry in forming.seats:
        if entry.startswith("bot:"):
            players.append(rules_pb2.PlayerSpec(name="", bot=entry.split(":")[1]))
            continue
        ticket = tickets[entry]
        players.append(rules_pb2.PlayerSpec(name=ticket.player_name, external_id=ticket.player_id))
    request = rules_pb2.CreateGameRequest(
        players=players, seed_hex=forming.seed_hex, rated=pool.rated, visibility="private",
        client_seed=TAG_PREFIX + forming.group_id,
    )  # fmt: skip
    if pool.options:
        request.options.CopyFrom(protojson.pack(pool.game_type, "Options", pool.options))
    if pool.clock:
        request.clock.CopyFrom(rules_pb2.ClockSpec(**pool.clock))
    return request


async def find_created(redis: object, forming: Forming, tickets: dict[str, Ticket]) -> str:
    """The game a dead matchmaker already created for this group ("" when none): the newest games of
    its first player carrying the group's tag."""
    first = tickets[forming.ticket_ids[0]].player_id
    client = redis  # a redis.asyncio client (typed loosely: cluster or not)
    ids = await client.zrangebyscore(games_key(first), forming.formed_ms - 1000, "+inf")  # type: ignore[attr-defined]
    for raw in ids:
        game_id = raw.decode() if isinstance(raw, bytes) else str(raw)
        tag = await client.hget(game_keys(game_id)[0], "client_seed")  # type: ignore[attr-defined]
        if tag is not None and (tag.decode() if isinstance(tag, bytes) else str(tag)) == TAG_PREFIX + forming.group_id:
            return game_id
    return ""


async def write_found(redis: object, forming: Forming, game_id: str, now_ms: int) -> None:
    """Write the ``match.found`` fact of a group's game (its seats as the game stores them)."""
    client: Any = redis  # a redis.asyncio client (typed loosely: cluster or not)
    raw = await client.hget(game_keys(game_id)[0], "players")
    players = orjson.loads(raw) if raw else []
    await append(client, seating.match_found(game_id, forming.game_type, forming.pool_id, players, now_ms), game_id)
