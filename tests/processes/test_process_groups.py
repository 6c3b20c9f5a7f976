"""Process groups under ``make run``'s real supervisor: no orphans, nothing left after "stopped",
and a Redis restart that does not strand a game behind a claim's lease.

One supervisor runs Darjeeling's rules service and the gateway as groups of two worker
processes each (a parent and its workers).  The test ``kill -9``-s only a group's parent and
sees its workers end by themselves and the restarted group alone on the port; ``kill -9``-s
Redis while a claim is held and sees the game move again within seconds, not after the lease;
then stops the supervisor and finds nothing left: no process, no listener, no metrics folder.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import psutil
import redis.asyncio as aioredis

from gateway.app import create_app
from gateway.settings import GatewaySettings
from services.common.attention import AttentionQueue, shard_of
from tests.support.stack import grpc_serving
from tests.support.supervised import Supervised, alive, listeners, wait_until
from tests.support.uvicorn_thread import UvicornThread
from tests.support.worker_groups import metrics_dirs

GAME = "darjeeling"
# Behaviour bounds, far above what each takes on a quiet machine and far below the 30 s lease.
WORKERS_GONE_SECONDS = 10
BACK_SECONDS = 60
MOVED_SECONDS = 12
# Redis writes a held-back AOF buffer after 2 s at most; with MOVED_SECONDS this stays below the
# lease, so a move within the bound can only be the take-over, never the lease running out.
AOF_SECONDS = 10


def _grpc_serving(port: int) -> Callable[[], bool]:
    return lambda: grpc_serving(f"127.0.0.1:{port}")


def _kill_parent_and_see_the_group_replaced(
    stack: Supervised, marker: str, port: int, serving: Callable[[], bool]
) -> list[int]:
    """kill -9 a group's parent: its workers end by themselves, the restarted group alone listens."""
    parent = stack.child(marker)
    workers = [w for w in parent.children() if alive(w)]
    assert len(workers) == 2, marker
    # A worker may still be binding its socket when the group is first seen: wait for both.
    wait_until(lambda: listeners(port) == {w.pid for w in workers}, BACK_SECONDS, f"{marker}: the workers listen")
    assert metrics_dirs(parent.pid), f"{marker}: a multiprocess metrics folder per group"
    parent.kill()
    wait_until(lambda: not any(alive(w) for w in workers), WORKERS_GONE_SECONDS, f"{marker}'s orphaned workers end")

    def replaced() -> bool:
        try:
            fresh = stack.child(marker)
        except LookupError:
            return False
        new_workers = {w.pid for w in fresh.children() if alive(w)}
        return fresh.pid != parent.pid and len(new_workers) == 2 and serving() and listeners(port) == new_workers

    # Only the new group's workers listen: none of the old group is left serving beside them.
    wait_until(replaced, BACK_SECONDS, f"the supervisor restarts {marker}, its two new workers alone on the port")
    assert not metrics_dirs(parent.pid), f"{marker}: the killed parent's metrics folder is removed"
    return [parent.pid, *(w.pid for w in workers)]


async def _hold_claim(redis_url: str, game_id: str, due_ms: int) -> None:
    """Claim the game as a conductor does at its deadline (30 s lease), as if that conductor then lost Redis."""
    client = aioredis.Redis.from_url(redis_url)
    try:
        queue = AttentionQueue(client, "conductor-that-lost-redis", lease_ms=30_000)
        claims = await queue.claim(shard_of(game_id), due_ms, 1000)
        assert game_id in [claim.game_id for claim in claims]
    finally:
        await client.aclose()


def _version(url: str, game_id: str) -> int:
    try:
        answer = httpx.get(f"{url}/v1/games/{game_id}", timeout=5)
    except httpx.HTTPError:
        return -1
    return int(answer.json()["version"]) if answer.status_code == 200 else -1


def _restart_redis_under_a_claim(stack: Supervised) -> None:
    """A clocked game claimed at its deadline, then Redis killed: once Redis is back (AOF: the claim
    with it), the conductor fires the timeout within seconds instead of after the 30 s lease."""
    body = {"game_type": GAME, "players": [{"name": "Asha"}, {"name": "Bilal"}], "clock": {"per_turn_s": 2},
            "on_timeout": "bot"}  # fmt: skip
    created = httpx.post(f"{stack.url}/v1/games", json=body, timeout=60)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    due_ms = int(time.time() * 1000) + 2_000
    asyncio.run(_hold_claim(stack.redis_url, game_id, due_ms))
    assert _version(stack.url, game_id) == 0
    # What the test restarts Redis under must be in the AOF first: everysec may hold it back (see
    # Supervised.aof_written), and a game lost with it can never move (404 after the restart).
    wait_until(stack.aof_written, AOF_SECONDS, "Redis has written the game and its claim to its AOF")
    redis_server = stack.child("redis-server")
    redis_server.kill()
    wait_until(lambda: _version(stack.url, game_id) >= 1, MOVED_SECONDS, "the timeout fires after Redis is back")


def test_groups_leave_no_orphans_and_a_redis_restart_strands_no_claim(tmp_path: Path) -> None:
    stack = Supervised(tmp_path / "stack")
    seen: list[int] = []
    try:
        stack.start()
        seen += [p.pid for p in stack.tree()]
        grpc_port = stack.ports[f"grpc:{GAME}"]
        seen += _kill_parent_and_see_the_group_replaced(
            stack, f"services.rules.server {GAME}", grpc_port, _grpc_serving(grpc_port)
        )
        seen += _kill_parent_and_see_the_group_replaced(stack, "-m gateway", stack.ports["http"], stack.ready)
        _restart_redis_under_a_claim(stack)
        seen += [p.pid for p in stack.tree()]
        assert stack.interrupt() == 0
    finally:
        stack.stop()
    assert "[supervisor] stopped" in stack.log_path.read_text(encoding="utf-8", errors="replace")
    try:
        answer: int | str = httpx.get(f"{stack.url}/healthz", timeout=2).status_code
    except httpx.ConnectError:
        answer = "refused"
    assert answer == "refused"
    left = [pid for pid in set(seen) if psutil.pid_exists(pid) and alive(psutil.Process(pid))]
    assert not left, f"still running after 'stopped': {left}"
    assert not listeners(grpc_port) and not listeners(stack.ports["http"])
    assert not [d for pid in seen for d in metrics_dirs(pid)]


def test_a_request_cut_short_by_the_shutdown_grace_gets_a_503_not_a_500() -> None:
    """What a gateway worker does with a request still waiting when its grace runs out (a stop, or
    its parent dying): uvicorn cancels it, and the client gets 503 ``shutting_down`` to retry."""
    app = create_app(GatewaySettings(games=""))
    entered = threading.Event()

    @app.get("/test/waits-forever")
    async def waits_forever() -> None:
        entered.set()
        await asyncio.Event().wait()

    server = UvicornThread(app, timeout_graceful_shutdown=0.5)
    answers: list[httpx.Response] = []
    caller = threading.Thread(
        target=lambda: answers.append(httpx.get(f"http://127.0.0.1:{server.port}/test/waits-forever", timeout=30))
    )
    caller.start()
    try:
        assert entered.wait(30), "the request never reached the app"
    finally:
        server.stop()
        caller.join(30)
    (answer,) = answers
    assert answer.status_code == 503, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["code"] == "shutting_down" and answer.headers["retry-after"] == "1"
