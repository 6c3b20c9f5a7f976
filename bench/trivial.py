"""The REST baseline: a trivial FastAPI endpoint doing one Redis GET and one SET, nothing else.

Served by uvicorn like the gateway (same HTTP implementation and event loop, ``CHAIWALA_WORKERS``
workers), so the REST move path's ratio to it is the cost of the platform, not of HTTP or Redis.
Run by :mod:`bench.procs` as ``python -m bench.trivial`` (port in ``BENCH_PORT``).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import orjson
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response
from redis import asyncio as aioredis

PAYLOAD = b"x" * 2048  # about one small game snapshot


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    # The in-process quick slice (bench.inprocess) sets the URL on the app; a process reads REDIS_URL.
    app.state.redis = aioredis.Redis.from_url(getattr(app.state, "redis_url", "") or os.environ["REDIS_URL"])
    yield
    await app.state.redis.aclose()


app = FastAPI(lifespan=_lifespan)


@app.get("/trivial")
async def trivial(request: Request) -> Response:
    """Read a key and write it back: one GET and one SET."""
    redis: aioredis.Redis = request.app.state.redis
    value = await redis.get("bench:trivial") or PAYLOAD
    await redis.set("bench:trivial", value)
    return Response(orjson.dumps({"size": len(value)}), media_type="application/json")


def main() -> None:
    """Serve :data:`app` on ``BENCH_PORT`` with ``CHAIWALA_WORKERS`` uvicorn workers."""
    workers = int(os.environ.get("CHAIWALA_WORKERS", "1"))
    port = int(os.environ["BENCH_PORT"])
    uvicorn.run("bench.trivial:app", host="127.0.0.1", port=port, workers=workers, log_level="warning",
                access_log=False)  # fmt: skip


if __name__ == "__main__":
    main()
