"""Client CPU of one Lua script call shaped like the move's commit: redis-py's ``Script`` on redis-py's
blocking pool (the store before issue #47's cut), the same on the store's pool
(:class:`services.common.store.QuickPool`), and :class:`services.common.scriptcall.LeanScript`,
alternated in one process.

The script does nothing but answer (``{'ok', ARGV[1]}``), so the figures are the client's work per
call: packing 14 keys and 31 arguments (a snapshot, hashes, a log body, small values), taking a
connection, sending, reading the reply.  Process CPU only (Redis is another process); medians and
minima of ``--repeats`` runs of ``--calls`` calls each.

    python -m bench.script_call [--repeats 7] [--calls 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from redis import asyncio as aioredis

from services.common.embedded_redis import start_redis
from services.common.scriptcall import LeanScript
from services.common.store import DEFAULT_MAX_CONNECTIONS, DEFAULT_POOL_TIMEOUT_SECONDS, redis_client

SOURCE = "return {'ok', ARGV[1]}"
KEYS = [f"game:{{bench}}:key{index}" for index in range(14)]
ARGS: list[Any] = [
    "1", 5, "ab" * 32, 1, os.urandom(32), os.urandom(32), os.urandom(60), os.urandom(2000), b"",
    b'{"to_act":[1]}', "ab" * 32, b"answer" * 50, 86400, *(f"value{index}" for index in range(18)),
]  # fmt: skip


async def _measure(url: str, repeats: int, calls: int) -> dict[str, list[float]]:
    client: Any = redis_client(url, False, DEFAULT_MAX_CONNECTIONS, DEFAULT_POOL_TIMEOUT_SECONDS)
    pool = client.connection_pool  # the same options on redis-py's own blocking pool
    library = aioredis.Redis(connection_pool=aioredis.BlockingConnectionPool(
        connection_class=pool.connection_class, max_connections=pool.max_connections, timeout=pool.timeout,
        **pool.connection_kwargs))  # fmt: skip
    try:
        before, plain = library.register_script(SOURCE), client.register_script(SOURCE)
        lean = LeanScript(client, SOURCE)
        answers = [await before(keys=KEYS, args=ARGS), await plain(keys=KEYS, args=ARGS), await lean(KEYS, ARGS)]
        if answers.count(answers[0]) != len(answers):
            raise RuntimeError(f"the paths answer differently: {answers}")
        ways = {
            "Script, redis-py's pool": lambda: before(keys=KEYS, args=ARGS),
            "Script, QuickPool": lambda: plain(keys=KEYS, args=ARGS),
            "LeanScript": lambda: lean(KEYS, ARGS),
        }
        spent: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(repeats):
            for name, call in ways.items():
                start = time.process_time()
                for _ in range(calls):
                    await call()
                spent[name].append((time.process_time() - start) / calls * 1e6)
        return spent
    finally:
        await client.aclose()
        await library.aclose()


def main() -> None:
    """Print µs of client CPU per call, each way."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = start_redis(Path(folder), appendonly=False)
        try:
            spent = asyncio.run(_measure(server.url, options.repeats, options.calls))
        finally:
            server.stop()
    for name, figures in spent.items():
        print(f"{name:24} µs CPU per call: median {statistics.median(figures):.1f}, min {min(figures):.1f}")


if __name__ == "__main__":
    main()
