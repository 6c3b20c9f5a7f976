"""A burst of player streams opening at once on a rules service, with no gateway (an experiment, not a suite).

``python -m bench.stream_burst 10000 [NAME=VALUE ...]``: a rules service as deployed (its processes:
``WORKERS=2``, other ``NAME=VALUE`` pairs are its settings), ``N`` guest players, then ``N``
``WatchMyEvents`` calls opened at once over four channels; prints how many opened and how the
others ended (status and details, with the second they ended at), then the rules service's
warnings (``store_unavailable`` names the error).  ``BENCH_SERVER_ROOT`` runs another checkout's
servers (:mod:`bench.procs`).  Written for issue 47, item 3 (docs/lab/many-listeners.md).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import grpc

from bench.procs import Stack
from chaiwala.identity.v1 import identity_pb2, identity_pb2_grpc
from services.common.sealing import key_file_unless_set

CHANNELS = 4
OPEN_SECONDS = 60.0  # a call not open by then counts as "timeout"


async def guests(port: int, count: int) -> list[str]:
    """Tokens of ``count`` new guest players of the rules service on ``port`` (64 made at a time)."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = identity_pb2_grpc.IdentityServiceStub(channel)
        gate = asyncio.Semaphore(64)

        async def guest(n: int) -> str:
            async with gate:
                return str((await stub.CreateSession(identity_pb2.CreateSessionRequest(name=f"P{n}"))).token)

        return list(await asyncio.gather(*(guest(n) for n in range(count))))


async def open_at_once(port: int, tokens: list[str]) -> Counter[str]:
    """One ``WatchMyEvents`` per token (a token may come again) opened at once over :data:`CHANNELS`
    channels to the rules service on ``port``: how many opened (``open``: their first message came),
    and how the others ended (status, details and the second they ended at, or ``timeout`` after
    :data:`OPEN_SECONDS`).  Every stream is cancelled before it returns."""
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}") for _ in range(CHANNELS)]
    stubs = [identity_pb2_grpc.IdentityServiceStub(channel) for channel in channels]
    outcomes: Counter[str] = Counter()
    calls = []
    start = time.monotonic()

    async def watch(n: int, token: str) -> None:
        call = stubs[n % CHANNELS].WatchMyEvents(
            identity_pb2.WatchMyEventsRequest(), metadata=[("authorization", f"Bearer {token}")]
        )
        calls.append(call)
        try:
            async with asyncio.timeout(OPEN_SECONDS):
                await call.read()
            outcomes["open"] += 1
        except grpc.aio.AioRpcError as error:
            outcomes[f"{error.code().name} {error.details()[:60]} at {int(time.monotonic() - start)}s"] += 1
        except TimeoutError:
            outcomes["timeout"] += 1

    try:
        await asyncio.gather(*(watch(n, token) for n, token in enumerate(tokens)))
    finally:
        for call in calls:
            call.cancel()
        for channel in channels:
            await channel.close()
    return outcomes


async def _burst(port: int, count: int) -> Counter[str]:
    tokens = await guests(port, count)
    start = time.monotonic()
    outcomes = await open_at_once(port, tokens)
    outcomes[f"seconds {time.monotonic() - start:.1f}"] = 1
    return outcomes


def main(argv: list[str]) -> None:
    """Run one burst (see the module docstring)."""
    count, settings = int(argv[0]), dict(arg.split("=", 1) for arg in argv[1:])
    key_file_unless_set(Path(tempfile.mkdtemp(prefix="chaiwala-burst-keys-")) / "secret.keys")
    stack = Stack(workers=int(settings.pop("WORKERS", "2")))
    try:
        rules = stack.rules("darjeeling", {"CHAIWALA_SESSION_LIMIT": "1000000/second", **settings})
        print(f"{count} player streams opened at once:", dict(asyncio.run(_burst(rules.port, count))))
        time.sleep(1)
        warnings = [line for line in rules.log_path.read_text().splitlines() if '"warning"' in line]
        print("rules warnings:", Counter(line.split('"timestamp"')[0] for line in warnings).most_common(5))
    finally:
        stack.close()


if __name__ == "__main__":
    main(sys.argv[1:])
