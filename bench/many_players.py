"""The ``players`` suite: 10,000 connected players' streams while their games are played (issue 47, item 3).

``python -m bench players --players 10000``: as many guest players (``POST /v1/sessions``), each
seated in two two-seat games (game ``j`` seats players ``j`` and ``j + 1``), every player holding
``GET /v1/me/events`` open on one gateway worker with their bearer.  Movers play the games as in
the ``listeners`` suite (:mod:`bench.many_streams`); a move that makes a seat due sends its player a
``your_turn`` notice, whose ``"seat"`` and ``"version"`` the player's listener stamps.  Rows: moves/s
with the players connected against none (goal ≥ 0.8), ``your_turn`` delivery p99 against the bare server
(goal ≤ 2×), memory per connection, and **Redis reads per connected player**: Redis's own command
counts (``INFO commandstats``) over a quiet window with every player connected, per player and
second (the feeds are read by the rules services' stream mux: no read per player), beside the
same window with no player connected.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
from redis import asyncio as aioredis

from bench import many_streams as many
from bench.config import Config
from bench.rest_path import Players, Seat
from bench.results import Row
from bench.sse_listeners import SPAN, Target
from tests.support.seeds import seed_hex

SUITE = "players"
NOUNS = many.Nouns(SUITE, "player", "notice", "notice")
# A your_turn notice's data carries the seat told and the version that made it due: stamped as
# seat * SPAN + version (bench.sse_listeners.numbered), since a player's two games reach the same versions.
NOTICE = rb'"seat":(\d+),"version":(\d+)'


async def _guests(client: httpx.AsyncClient, count: int) -> list[tuple[str, str]]:
    """``count`` guest players: (id, token)."""
    gate = asyncio.Semaphore(32)

    async def one(n: int) -> tuple[str, str]:
        async with gate:
            answer = await client.post("/v1/sessions", json={"name": f"P{n}"})
            body = answer.json()
            return str(body["player_id"]), str(body["token"])

    return list(await asyncio.gather(*(one(n) for n in range(count))))


async def _games(client: httpx.AsyncClient, players: Players, game: str, guests: list[tuple[str, str]]) -> None:
    """Game ``j`` seats guests ``j`` and ``j + 1`` (an operator's creation: the stack is open)."""
    gate = asyncio.Semaphore(32)
    count = len(guests)

    async def one(j: int) -> None:
        seated = [{"name": f"P{n}", "external_id": guests[n][0]} for n in (j, (j + 1) % count)]
        body = {"game_type": game, "players": seated, "seed_hex": seed_hex(j + 1)}
        async with gate:
            created = (await client.post("/v1/games", json=body)).json()
            tokens = [seat["token"] for seat in created["seats"]]
            state = (await client.get(f"/v1/games/{created['game_id']}")).json()
        players.games[j] = Seat(created["game_id"], tokens, state["version"], state["to_act"])

    await asyncio.gather(*(one(j) for j in range(count)))


async def _play(players: Players, config: Config, sent: many.Sent | None, rate: float = 0.0) -> dict[str, Any]:
    """The movers over the players' games; each notice a move causes is expected at its player."""
    count = len(players.games)

    async def move(index: int) -> None:
        choice = await players.choose(index)
        before = list(choice.game.to_act)
        at = time.perf_counter()
        await players.submit(index, choice)
        answered = time.perf_counter()
        game = players.games[index]
        if sent is None:
            return
        for seat in game.to_act:
            if seat not in before:  # became due: its player is told (services.lobby.feed.becoming_due)
                player, number = (index + seat) % count, seat * SPAN + game.version
                sent.expected[(player, number)] = at
                sent.answered[(player, number)] = answered
                sent.order.append((at, f"/events/{player}", number))

    tally = await many.drive(move, count, config.seconds, config.warmup, rate)
    return {"rate": tally.rate, **tally.summary()}


async def _redis_commands(redis_url: str, seconds: float) -> dict[str, Any]:
    """Redis's commands a second over ``seconds``: all of them, the stream reads (XREAD), the script
    calls (EVALSHA: a script's own commands are counted apart, by name) and the most called."""
    redis = aioredis.Redis.from_url(redis_url)

    async def counts() -> dict[str, int]:
        stats: dict[str, Any] = await redis.info("commandstats")
        return {name.removeprefix("cmdstat_"): int(value["calls"]) for name, value in stats.items()}

    try:
        before = await counts()
        await asyncio.sleep(seconds)
        after = await counts()
    finally:
        await redis.aclose()
    calls = {name: after[name] - before.get(name, 0) for name in after if after[name] > before.get(name, 0)}
    top = dict(sorted(calls.items(), key=lambda item: -item[1])[:6])
    return {"seconds": seconds, "commands_per_s": sum(calls.values()) / seconds,
            "xread_per_s": calls.get("xread", 0) / seconds, "evalsha_per_s": calls.get("evalsha", 0) / seconds,
            "most_called": top}  # fmt: skip


def _frame(number: int) -> bytes:
    data = b'{"game_id":"darjeeling-0123456789abcdef01234567","game_type":"darjeeling","seat":%d,"version":%d}'
    return b"id: 1796640000000-0\nevent: your_turn\ndata: " + data % divmod(number, SPAN) + b"\n\n"


async def _measure(config: Config) -> list[Row]:
    count = max(config.many_players, 4)
    limits = many.raise_open_files(count * 2 + 4096)
    async with many.one_gateway(config) as (running, gateway, client):
        players = Players(client, config.game, seed=13)
        guests = await _guests(client, count)
        await _games(client, players, config.game, guests)
        quiet = await _play(players, config, None)
        idle_none = await _redis_commands(running.redis_url, config.redis_window)
        target = Target(gateway.port, paths=("/v1/me/events",) * count, pattern=NOTICE,
                        headers=tuple(f"Authorization: Bearer {token}" for _, token in guests))  # fmt: skip
        listeners, opened = await many.connect(target, count, gateway, config.idle_seconds)
        try:
            idle = await _redis_commands(running.redis_url, config.redis_window)
            loaded = await _play(players, config, None)
            sent = many.Sent()
            paced = await _play(players, config, sent, many.probe_rate(quiet["rate"]))
            await listeners.settle()  # the last notices reach every player (late ones too)
        finally:
            await asyncio.to_thread(listeners.stop)
    case = {**many.deliveries(sent, listeners.first), **opened, **many.stream_errors(listeners),
            "paced_moves_per_s": round(paced["rate"], 2), "paced_move_p99_ms": paced["p99_ms"]}  # fmt: skip
    bare = await many.floor(tuple(f"/events/{n}" for n in range(count)), sent, _frame, NOTICE)
    details = {"players": count, "games": len(players.games), "games_per_player": 2, "gateway_workers": 1,
               "rules_workers": config.workers, **limits}  # fmt: skip
    return _rows(case, bare, quiet, loaded, {**details, "idle_window_s": config.redis_window}, idle, idle_none)


def _rows(case: dict[str, Any], bare: dict[str, Any], quiet: dict[str, Any], loaded: dict[str, Any],
          details: dict[str, Any], idle: dict[str, Any], idle_none: dict[str, Any]) -> list[Row]:  # fmt: skip
    count = details["players"]
    extra = idle["commands_per_s"] - idle_none["commands_per_s"]
    return [
        *many.rows(NOUNS, case, bare, quiet, loaded, details),
        Row(SUITE, f"redis_commands_per_player_per_minute_{count}_players", "commands", round(extra * 60 / count, 4),
            "none", 0.0, better="lower",
            details={"idle_window_s": idle["seconds"], "connected": idle, "none_connected": idle_none,
                     "xread_per_s_connected": round(idle["xread_per_s"], 2)}),
    ]  # fmt: skip


def run(config: Config) -> list[Row]:
    """10,000 connected players (or ``--players``), each in two games being played."""
    return asyncio.run(_measure(config))
