"""Live events as a fan-out, through the real stack (services.streaming, gateway.fanout).

Every listener gets every event of its viewer in order; viewers never share a stream; a slow
listener is dropped and resumes without loss or repeat; hundreds of spectators on one game do
not disturb the other games of its type; limits answer 503, never 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import orjson
import pytest

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common.processes import stop_process
from services.common.sealing import KEYS_FILE_ENV
from services.streaming.hub import HubLimits
from services.streaming.watch import OPEN_MARKER
from tests.support.client import assert_problem, auth, create_game, sse_events_async, sse_line, unchunk
from tests.support.metrics import exported
from tests.support.stack import ROOT, Gateway, RunningService, Services, free_port

GAME = "darjeeling"
SSE = {"Accept": "text/event-stream"}
# `make scale` runs the spectator test with 500; `make test` with fewer, to stay affordable.
SPECTATORS = int(os.environ.get("CHAIWALA_SCALE_SPECTATORS", "150"))


@pytest.fixture(scope="module")
def gateway(stack: dict[str, Any]) -> Iterator[Gateway]:
    """A gateway of this module's own (its gauges count only these tests), open to many streams."""
    services: dict[str, RunningService] = stack["services"]  # type: ignore[assignment]
    running = Gateway(
        {GAME: services[GAME].address},
        sse_streams_per_address=SPECTATORS + 100,
        sse_client_buffer=8,
        send_buffer=4096,
        rate_limit_per_address="100000/second",
        create_limit="1000/second",
    )
    try:
        yield running
    finally:
        running.stop()


async def _listen(
    client: httpx.AsyncClient, path: str, headers: dict[str, str], opened: asyncio.Queue[int]
) -> list[dict[str, str]]:
    """Every message of one SSE stream until ``end`` or ``error`` (inclusive); reports once it is open."""
    messages = []
    async with client.stream("GET", path, headers={**SSE, **headers}) as response:
        assert response.status_code == 200, await response.aread()
        opened.put_nowait(1)
        async for message in sse_events_async(response):
            messages.append(message)
            if message["event"] in ("end", "error"):
                break
    return messages


async def _create(client: httpx.AsyncClient, players: list[dict[str, str]]) -> dict[str, Any]:
    created = await client.post("/v1/games", json={"game_type": GAME, "players": players})
    assert created.status_code == 201, created.text
    answer: dict[str, Any] = created.json()
    return answer


async def _play(client: httpx.AsyncClient, game_id: str, tokens: dict[int, str], moves: int) -> list[int]:
    """Play ``moves`` legal moves through REST (first legal move each time); the statuses of every call."""
    statuses = []
    for _ in range(moves):
        game = (await client.get(f"/v1/games/{game_id}")).json()
        if game["status"] != "active":
            break
        token = tokens[game["to_act"][0]]
        legal = await client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(token))
        body = {"move": legal.json()["moves"][0], "expected_version": legal.json()["version"]}
        posted = await client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(token))
        statuses += [legal.status_code, posted.status_code]
    return statuses


def _events(messages: list[dict[str, str]]) -> list[tuple[str, Any]]:
    """The (id, event) of every ``game_event``; the stream must have ended with ``end``."""
    assert messages and messages[-1]["event"] == "end", messages[-3:]
    return [(m["id"], orjson.loads(m["data"])) for m in messages if m["event"] == "game_event"]


async def _logged(client: httpx.AsyncClient, game_id: str, headers: dict[str, str]) -> list[tuple[str, Any]]:
    """What ListEvents (JSON) says this viewer may see, as (id, event)."""
    listing = (await client.get(f"/v1/games/{game_id}/events", headers=headers)).json()
    return [(f"{e['version']}:{e.get('index', 0)}", e) for e in listing]


async def _open_all(listeners: list[asyncio.Task[list[dict[str, str]]]], opened: asyncio.Queue[int]) -> None:
    for _ in listeners:
        await asyncio.wait_for(opened.get(), 120)


def test_every_listener_gets_every_event_of_its_viewer_in_order(gateway: Gateway) -> None:
    async def scenario() -> None:
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(base_url=gateway.url, timeout=120, limits=limits) as client:
            created = await _create(client, [{"name": "Asha"}, {"name": "Bilal"}])
            game_id, tokens = created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}
            issued = await client.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(tokens[0]))
            ticket = issued.json()["ticket"]
            await _play(client, game_id, tokens, 3)  # some history first: listeners join mid-game
            before = exported((await client.get("/metrics")).text, "chaiwala_gateway_sse_upstreams")
            viewers: list[tuple[str, dict[str, str], str]] = [("spectator", {}, "")] * 12
            viewers += [("seat0", auth(tokens[0]), "")] * 3 + [("seat1", auth(tokens[1]), "")] * 3
            viewers += [("seat0", {}, f"?ticket={ticket}")]
            opened: asyncio.Queue[int] = asyncio.Queue()
            path = f"/v1/games/{game_id}/events"
            listeners = [asyncio.create_task(_listen(client, path + query, h, opened)) for _, h, query in viewers]
            await _open_all(listeners, opened)
            # Spectators share one upstream; each seat token and the ticket have their own.
            upstreams = exported((await client.get("/metrics")).text, "chaiwala_gateway_sse_upstreams")
            assert upstreams == before + 4
            assert all(status == 200 for status in await _play(client, game_id, tokens, 12))
            abort = await client.post(f"/v1/games/{game_id}/abort", headers=auth(created["host_token"]))
            assert abort.status_code == 200
            streams = await asyncio.gather(*listeners)
            expected = {
                "spectator": await _logged(client, game_id, {}),
                "seat0": await _logged(client, game_id, auth(tokens[0])),
                "seat1": await _logged(client, game_id, auth(tokens[1])),
            }
            for (viewer, _, _), messages in zip(viewers, streams, strict=True):
                assert _events(messages) == expected[viewer], viewer
            # Darjeeling hides tiles behind screens: the three viewers really see different events.
            assert expected["spectator"] != expected["seat0"] != expected["seat1"]
            assert len(expected["spectator"]) > 12

    asyncio.run(scenario())


# ---- a slow listener ------------------------------------------------------------------------------


def _stalled_listener(gateway: Gateway, path: str) -> socket.socket:
    """An SSE client that sends its request and then reads nothing (a tiny receive window)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    sock.connect(("127.0.0.1", gateway.port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n".encode())
    return sock


def _read_stalled(sock: socket.socket) -> list[dict[str, str]]:
    """Everything the stalled client was sent, once it reads again (until the server closes)."""
    sock.settimeout(60)
    raw = b""
    while chunk := sock.recv(65536):
        raw += chunk
    sock.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    if b"transfer-encoding: chunked" in head.lower():
        body = unchunk(body)
    messages, message = [], {}
    for line in body.decode().replace("\r\n", "\n").split("\n"):
        done = sse_line(message, line)
        if done is not None:
            if "data" in done:
                messages.append(done)
            message = {}
    return messages


def test_a_slow_listener_is_dropped_and_resumes_where_it_stopped(gateway: Gateway) -> None:
    async def scenario() -> None:
        async with httpx.AsyncClient(base_url=gateway.url, timeout=120) as client:
            bots = [{"name": "r1", "bot": "random"}, {"name": "r2", "bot": "random"}]
            created = await _create(client, [{"name": "Asha"}, *bots])
            game_id, token = created["game_id"], created["seats"][0]["token"]
            path = f"/v1/games/{game_id}/events"
            dropped = exported((await client.get("/metrics")).text, "chaiwala_gateway_sse_dropped_slow_consumers_total")
            opened: asyncio.Queue[int] = asyncio.Queue()
            fast = asyncio.create_task(_listen(client, path, {}, opened))
            await _open_all([fast], opened)
            stalled = _stalled_listener(gateway, path)
            # Wait until the stalled client is attached (it shares the spectators' upstream).
            deadline = time.monotonic() + 60
            while exported((await client.get("/metrics")).text, "chaiwala_gateway_sse_subscribers") < 2:
                assert time.monotonic() < deadline, "the stalled listener never attached"
                await asyncio.sleep(0.02)
            # Asha resigns: bots play every seat to the end, as fast as the conductor can.
            assert (await client.post(f"/v1/games/{game_id}/resign", headers=auth(token))).status_code == 200
            everything = _events(await fast)
            slow = await asyncio.to_thread(_read_stalled, stalled)
            assert slow[-2]["event"] == "error" and slow[-1]["event"] == "end", slow[-2:]
            problem = orjson.loads(slow[-2]["data"])
            assert problem["code"] == "slow_consumer"
            got = [(m["id"], orjson.loads(m["data"])) for m in slow if m["event"] == "game_event"]
            assert got and problem["last_event_id"] == got[-1][0]
            assert len(got) < len(everything)  # it really was dropped before the end
            rest = await _listen(client, path, {"Last-Event-ID": problem["last_event_id"]}, opened)
            assert got + _events(rest) == everything  # nothing lost, nothing twice
            metrics = (await client.get("/metrics")).text
            assert exported(metrics, "chaiwala_gateway_sse_dropped_slow_consumers_total") >= dropped + 1

    asyncio.run(scenario())


# ---- many spectators ------------------------------------------------------------------------------


def _rpc_failures(game_type: str) -> float:
    """RPCs of ``game_type`` that ended with a status other than OK or CANCELLED (a client leaving)."""
    from prometheus_client import REGISTRY

    total = 0.0
    for family in REGISTRY.collect():
        for sample in family.samples:
            labels = sample.labels
            if sample.name == "chaiwala_rpc_requests_total" and labels.get("game_type") == game_type:
                total += sample.value if labels["code"] not in ("OK", "CANCELLED") else 0.0
    return total


def test_hundreds_of_spectators_on_one_game_do_not_disturb_the_other_games(gateway: Gateway) -> None:
    async def scenario() -> None:
        limits = httpx.Limits(max_connections=SPECTATORS + 50, max_keepalive_connections=20)
        async with httpx.AsyncClient(base_url=gateway.url, timeout=300, limits=limits) as client:
            players = [{"name": "Asha"}, {"name": "Bilal"}]
            watched, *others = [await _create(client, players) for _ in range(4)]
            game_id = watched["game_id"]
            failures = _rpc_failures(GAME)
            opened: asyncio.Queue[int] = asyncio.Queue()
            path = f"/v1/games/{game_id}/events"
            spectators = []
            for _ in range(SPECTATORS):  # one after the other, as light clients
                spectators.append(asyncio.create_task(_listen(client, path, {}, opened)))
                await asyncio.wait_for(opened.get(), 120)
            metrics = (await client.get("/metrics")).text
            assert exported(metrics, "chaiwala_gateway_sse_subscribers") >= SPECTATORS
            seats = [(g["game_id"], {s["seat"]: s["token"] for s in g["seats"]}) for g in [watched, *others]]
            played = await asyncio.gather(*(_play(client, game, tokens, 8) for game, tokens in seats))
            assert all(status == 200 for statuses in played for status in statuses)
            abort = await client.post(f"/v1/games/{game_id}/abort", headers=auth(watched["host_token"]))
            assert abort.status_code == 200
            expected = await _logged(client, game_id, {})
            assert len(expected) >= 8
            for messages in await asyncio.gather(*spectators):
                assert _events(messages) == expected
            assert _rpc_failures(GAME) == failures

    asyncio.run(scenario())


# ---- limits: 503, never 500 -----------------------------------------------------------------------


async def _hold(service: RunningService, count: int) -> list[Any]:
    """Take ``count`` connections out of the service's Redis pool (as that many stuck calls would)."""
    pool = service.store.redis.connection_pool
    return [await pool.get_connection() for _ in range(count)]


async def _give_back(service: RunningService, held: list[Any]) -> None:
    for connection in held:
        await service.store.redis.connection_pool.release(connection)


def _watch(address: str, game_id: str) -> grpc.StatusCode:
    """The status a gRPC WatchEvents of ``game_id`` is refused with (or OK when it opens)."""
    with grpc.insecure_channel(address) as channel:
        call = rules_pb2_grpc.RulesServiceStub(channel).WatchEvents(rules_pb2.WatchEventsRequest(game_id=game_id))
        try:
            metadata = dict(call.initial_metadata())
            if metadata.get(OPEN_MARKER[0]) == OPEN_MARKER[1]:
                return grpc.StatusCode.OK
            next(call)
        except grpc.RpcError as error:
            return error.code()  # type: ignore[no-any-return]
        finally:
            call.cancel()
    raise AssertionError("the watch neither opened nor failed")


def test_reaching_a_pool_limit_answers_503_with_retry_after(services: Services) -> None:
    service = services.start(GAME, live_limits=HubLimits(games=1), max_connections=4, pool_timeout=0.3)
    gateway = Gateway({GAME: service.address}, sse_upstreams_per_process=2)
    try:
        with httpx.Client(base_url=gateway.url, timeout=60) as client, contextlib.ExitStack() as streams:
            first, second = (create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}]) for _ in range(2))
            a, b = first["game_id"], second["game_id"]
            spectating = streams.enter_context(client.stream("GET", f"/v1/games/{a}/events", headers=SSE))
            assert spectating.status_code == 200
            # The service follows one game at most: a second one is refused, calls still work.
            refused = client.get(f"/v1/games/{b}/events", headers=SSE)
            assert_problem(refused, 503, "too_many_watched_games")
            assert int(refused.headers["retry-after"]) >= 1
            assert _watch(service.address, b) == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert client.get(f"/v1/games/{b}").status_code == 200
            # The gateway keeps at most two upstreams: a seat's stream takes the second, one more is refused.
            seat = streams.enter_context(
                client.stream("GET", f"/v1/games/{a}/events", headers={**SSE, **auth(first["seats"][0]["token"])})
            )
            assert seat.status_code == 200
            other = client.get(f"/v1/games/{a}/events", headers={**SSE, **auth(first["seats"][1]["token"])})
            assert_problem(other, 503, "too_many_streams")
            # Every Redis connection of the calls' pool busy: 503 store_unavailable after a short wait.
            held = services.loops.run(_hold(service, 4))
            try:
                busy = client.get(f"/v1/games/{a}")
                assert_problem(busy, 503, "store_unavailable")
                assert int(busy.headers["retry-after"]) >= 1
            finally:
                services.loops.run(_give_back(service, held))
            assert client.get(f"/v1/games/{a}").status_code == 200
    finally:
        gateway.stop()
        services.stop(service)


# ---- SIGTERM with streams open ---------------------------------------------------------------------

GRACE_SECONDS = 2
# Stopping Python itself takes a moment beyond the grace period, many moments on a machine loaded
# many times over; a gateway that waits for its streams would never stop, so any bound tells.
EXIT_SLACK_SECONDS = 20


def _spawn(module: list[str], log: Path, **env: str) -> subprocess.Popen[bytes]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CHAIWALA_")}
    clean[KEYS_FILE_ENV] = os.environ[KEYS_FILE_ENV]  # the suite's master key ring (services.common.sealing)
    settings = {"CHAIWALA_LOG_FORMAT": "console", "CHAIWALA_SHUTDOWN_GRACE_SECONDS": str(GRACE_SECONDS), **env}
    with log.open("ab") as out:
        command = [sys.executable, "-m", *module]
        return subprocess.Popen(command, cwd=ROOT, env={**clean, **settings}, stdout=out, stderr=out)


def _stops_in_time(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=GRACE_SECONDS + EXIT_SLACK_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError("still running after its grace period, with streams open") from None


def test_a_rules_service_stops_within_its_grace_period_with_watches_open(redis_url: str, tmp_path: Path) -> None:
    port = free_port()
    process = _spawn(
        ["services.rules.server", GAME],
        tmp_path / "service.log",
        REDIS_URL=redis_url,
        CHAIWALA_GRPC_PORT=str(port),
        CHAIWALA_METRICS_PORT=str(free_port()),
    )
    address = f"127.0.0.1:{port}"
    try:
        with grpc.insecure_channel(address) as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            players = [rules_pb2.PlayerSpec(name="Asha"), rules_pb2.PlayerSpec(name="Bilal")]
            games = [stub.CreateGame(rules_pb2.CreateGameRequest(players=players)).game_id for _ in range(3)]
            watches = [stub.WatchEvents(rules_pb2.WatchEventsRequest(game_id=g)) for g in games for _ in range(4)]
            assert all(dict(w.initial_metadata()).get(OPEN_MARKER[0]) == OPEN_MARKER[1] for w in watches)
            _stops_in_time(process)
            for watch in watches:
                with pytest.raises(grpc.RpcError) as ended:
                    next(watch)
                assert ended.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)
    finally:
        stop_process(process)


def test_the_gateway_stops_within_its_grace_period_with_streams_open(stack: dict[str, Any], tmp_path: Path) -> None:
    port = free_port()
    services: dict[str, RunningService] = stack["services"]  # type: ignore[assignment]
    process = _spawn(
        ["gateway"],
        tmp_path / "gateway.log",
        CHAIWALA_HTTP_PORT=str(port),
        CHAIWALA_GAMES=GAME,
        CHAIWALA_SERVICE_DARJEELING=services[GAME].address,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=60) as client, contextlib.ExitStack() as streams:
            deadline = time.monotonic() + 60
            while not _answers(client):
                assert time.monotonic() < deadline and process.poll() is None, "the gateway did not start"
                time.sleep(0.1)
            created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}])
            for headers in ({}, {}, auth(created["seats"][0]["token"])):
                path = f"/v1/games/{created['game_id']}/events"
                opened = streams.enter_context(client.stream("GET", path, headers={**SSE, **headers}))
                assert opened.status_code == 200
            _stops_in_time(process)
    finally:
        stop_process(process)


def _answers(client: httpx.Client) -> bool:
    try:
        return client.get("/healthz").status_code == 200
    except httpx.TransportError:
        return False


def test_open_streams_ride_out_a_rules_service_restart(services: Services) -> None:
    service = services.start(GAME)
    port = service.port
    gateway = Gateway({GAME: service.address})
    try:

        async def scenario() -> None:
            nonlocal service
            async with httpx.AsyncClient(base_url=gateway.url, timeout=120) as client:
                created = await _create(client, [{"name": "Asha"}, {"name": "Bilal"}])
                game_id, tokens = created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}
                opened: asyncio.Queue[int] = asyncio.Queue()
                listener = asyncio.create_task(_listen(client, f"/v1/games/{game_id}/events", {}, opened))
                await _open_all([listener], opened)
                assert all(status == 200 for status in await _play(client, game_id, tokens, 2))
                # SIGTERM's path: every watch ends with UNAVAILABLE shutting_down; then it is back.
                await asyncio.to_thread(services.stop, service)
                service = await asyncio.to_thread(services.start, GAME, port)
                assert all(status == 200 for status in await _play(client, game_id, tokens, 2))
                await client.post(f"/v1/games/{game_id}/abort", headers=auth(created["host_token"]))
                assert _events(await listener) == await _logged(client, game_id, {})

        asyncio.run(scenario())
    finally:
        gateway.stop()
        services.stop(service)
