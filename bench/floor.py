"""The floor of the move path's shape: what a REST move costs when every step does nothing.

Issue #35 puts a REST move against a trivial FastAPI + Redis request and a gRPC move against a
bare echo.  Part of each gap is the shape itself, which the project fixes: two HTTP requests
(``GET legal-moves``, ``POST moves``) through FastAPI on uvicorn, one gRPC hop from the gateway to
a ``grpc.aio`` rules service, and four Redis round trips (the GET's limits with its stored
answer, the POST's limits, the rules service's load and its atomic commit).  This module builds
that shape with nothing else in it, so a benchmark can say how much of a move's CPU the shape
costs before any of the project's own work:

* ``python -m bench.floor rules`` (port in ``BENCH_PORT``): a ``grpc.aio`` server whose one
  method ``/bench.Floor/Move`` takes the move's bytes, loads a game (one script: its metadata hash
  and snapshot), commits (one script: a version guard, the snapshot, the version, one log entry,
  the stored answer for the next GET) and answers a move answer's bytes.  No interceptor, no
  protobuf, no engine, no rendering.  Runs on the same event loop as the rules service.
* ``python -m bench.floor gateway`` (``BENCH_PORT``, ``BENCH_RULES_PORT``): a FastAPI app on
  uvicorn (``CHAIWALA_WORKERS`` workers, like the trivial endpoint) with the two routes: the GET
  answers the stored answer read in its limits script; the POST parses the JSON body, runs its
  limits script, calls the floor rules service with the body's bytes and answers its bytes.  No
  middleware, no credential check, no problem handling.
* The lean variant (``/bench.Floor/Commit``, the ``/lean/...`` routes) is the best any design of
  this shape could do: the GET's answer and the rules service's position kept in process memory
  and no limits round trip, so a move is two HTTP requests, one gRPC call and one Redis commit.

The payload sizes are a Darjeeling game's on average (the snapshot, the stored answer, the move
answer), so Redis and the sockets move about as many bytes as in the real path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import orjson
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response
from grpc import aio
from redis import asyncio as aioredis

from services.common.loops import run_loop

METHOD = "/bench.Floor/Move"
COMMIT_METHOD = "/bench.Floor/Commit"
# Sizes measured over four Darjeeling games through the REST stack (320 moves, 2026-12-06): the
# stored snapshot 1.05-1.15 KB, a GET legal-moves answer 0.15-5.1 KB (mean 1.1 KB), a move
# answer 5.2-6.6 KB (mean 5.9 KB).
SNAPSHOT = b"s" * 1100
ANSWER = b'{"moves":[' + b",".join([b'{"place":{"tile":"a1","space":12}}'] * 32) + b"]}"  # 1.1 KB
MOVE_ANSWER = b'{"state":"' + b"v" * 5850 + b'","events":[]}'  # 5.9 KB
ENTRY = b"e" * 300  # one compressed log entry

# The GET's limits and its stored answer in one round trip (as gateway.limits with its rider).
LIMIT_READ = """
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], 1000) end
return {hits, redis.call('GET', KEYS[2]) or false}
"""
# The POST's limits alone.
LIMIT = """
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], 1000) end
return hits
"""
# The rules service's load: metadata and snapshot in one command.
LOAD = "return {redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2]) or false}"
# The commit: guard on the version, then the snapshot, the version, the entry and the next answer.
COMMIT = """
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if version ~= tonumber(ARGV[1]) then return {'conflict', version} end
version = version + 1
redis.call('SET', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[1], 'version', version, 'status', 'active')
redis.call('XADD', KEYS[3], 'MAXLEN', '~', 1000, version .. '-1', 'z', ARGV[3])
redis.call('SET', KEYS[4], ARGV[4])
return {'ok', version}
"""


def _keys(game: str, variant: str = "floor") -> list[str]:
    """A floor game's keys, in one cluster slot as the real game's are (each variant its own)."""
    return [f"{variant}:{{{game}}}:{name}" for name in ("meta", "state", "events", "legal")]


def _committed(outcome: list[Any]) -> None:
    """A commit the guard refused is an error (the benchmark counts it), never a silent no-op."""
    if outcome[0] != b"ok":
        raise RuntimeError(f"floor commit refused: {outcome!r}")


class FloorRules:
    """The rules service's share of a move with no rules in it: load, commit, answer."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self.load = redis.register_script(LOAD)
        self.commit = redis.register_script(COMMIT)
        self.versions: dict[bytes, int] = {}  # the lean variant's positions, kept in the process

    async def commit_only(self, request: bytes, context: aio.ServicerContext) -> bytes:
        """The lean variant: the position is this process's own, so a move is one commit."""
        game = request[:16]
        version = self.versions.get(game, 0)
        keys = _keys(game.decode(), "lean")
        _committed(await self.commit(keys=keys, args=[version, SNAPSHOT, ENTRY, ANSWER]))
        self.versions[game] = version + 1
        return MOVE_ANSWER

    async def move(self, request: bytes, context: aio.ServicerContext) -> bytes:
        """One move of the game the request names (its first 16 bytes)."""
        meta_key, state_key, events_key, legal_key = _keys(request[:16].decode())
        meta, _snapshot = await self.load(keys=[meta_key, state_key])
        fields = dict(zip(meta[::2], meta[1::2], strict=True))
        version = int(fields.get(b"version", b"0"))
        keys = [meta_key, state_key, events_key, legal_key]
        _committed(await self.commit(keys=keys, args=[version, SNAPSHOT, ENTRY, ANSWER]))
        return MOVE_ANSWER


async def serve_rules(port: int, redis_url: str) -> None:
    """Serve :meth:`FloorRules.move` on ``port`` until killed."""
    rules = FloorRules(aioredis.Redis.from_url(redis_url))
    server = aio.server()
    handlers = {  # bytes in, bytes out
        "Move": grpc.unary_unary_rpc_method_handler(rules.move),
        "Commit": grpc.unary_unary_rpc_method_handler(rules.commit_only),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Floor", handlers),))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    redis = aioredis.Redis.from_url(os.environ["REDIS_URL"])
    app.state.limit_read = redis.register_script(LIMIT_READ)
    app.state.limit = redis.register_script(LIMIT)
    async with aio.insecure_channel(f"127.0.0.1:{os.environ['BENCH_RULES_PORT']}") as channel:
        app.state.move = channel.unary_unary(METHOD)
        app.state.commit = channel.unary_unary(COMMIT_METHOD)
        yield
    await redis.aclose()


app = FastAPI(lifespan=_lifespan)


@app.get("/floor/{game}/legal-moves")
async def legal_moves(game: str, request: Request) -> Response:
    """The stored answer, read with the limits."""
    token = request.headers.get("authorization", "")
    _hits, answer = await request.app.state.limit_read(keys=[f"floor:limit:{token}", _keys(game)[3]])
    return Response(answer or ANSWER, media_type="application/json")


@app.post("/floor/{game}/moves")
async def moves(game: str, request: Request) -> Response:
    """The move: its body parsed, the limits, the rules service's answer."""
    body = orjson.loads(await request.body())
    if not isinstance(body, dict):
        return Response(status_code=400)
    token = request.headers.get("authorization", "")
    await request.app.state.limit(keys=[f"floor:limit:{token}"])
    answer: bytes = await request.app.state.move(game.encode().ljust(16) + orjson.dumps(body))
    return Response(answer, media_type="application/json")


@app.get("/lean/{game}/legal-moves")
async def lean_legal_moves(game: str, request: Request) -> Response:
    """The lean variant's GET: the answer from the process's memory, no Redis."""
    return Response(ANSWER, media_type="application/json")


@app.post("/lean/{game}/moves")
async def lean_moves(game: str, request: Request) -> Response:
    """The lean variant's POST: no limits round trip, a rules call that only commits."""
    body = orjson.loads(await request.body())
    if not isinstance(body, dict):
        return Response(status_code=400)
    answer: bytes = await request.app.state.commit(game.encode().ljust(16) + orjson.dumps(body))
    return Response(answer, media_type="application/json")


def game_name(index: int) -> str:
    """The floor game of client ``index`` (16 bytes: the rules side reads them as the game's name)."""
    return f"g{index:015d}"


async def floor_move(client: Any, index: int, variant: str = "floor") -> None:
    """One floor move of client ``index`` with the bench's HTTP client: GET, then POST
    (``variant`` "lean": the routes that keep the answer and position in memory)."""
    headers = {"authorization": f"Bearer floor-{index}"}
    game = game_name(index)
    listing = await client.get(f"/{variant}/{game}/legal-moves", headers=headers)
    listing.raise_for_status()
    body = {"move": {"place": {"tile": "a1", "space": 12}}, "expected_version": 1}  # a real move's shape
    answer = await client.post(f"/{variant}/{game}/moves", json=body, headers=headers)
    answer.raise_for_status()
    orjson.loads(answer.content)


def main(argv: list[str]) -> None:
    """``rules`` or ``gateway``: serve that half of the floor on ``BENCH_PORT``."""
    port = int(os.environ["BENCH_PORT"])
    if argv == ["rules"]:
        run_loop(serve_rules(port, os.environ["REDIS_URL"]))
        return
    if argv != ["gateway"]:
        raise SystemExit("usage: python -m bench.floor rules|gateway")
    workers = int(os.environ.get("CHAIWALA_WORKERS", "1"))
    uvicorn.run("bench.floor:app", host="127.0.0.1", port=port, workers=workers, log_level="warning",
                access_log=False)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
