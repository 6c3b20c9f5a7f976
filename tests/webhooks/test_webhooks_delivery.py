"""Signed webhooks through the real stack: Redis, rules services, conductor, gateway, a real
dispatcher process (``python -m services.webhook``) and a real local HTTP receiver that
verifies every signature with ``standardwebhooks``.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import random
import time
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from redis import asyncio as aioredis
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from chaiwala.v1 import webhooks_pb2, webhooks_pb2_grpc
from services.common.errors import error_detail_from_metadata
from services.outbox import new_event
from services.webhook.delivery import RetryPolicy, attempt
from services.webhook.dispatcher import new_delivery
from services.webhook.store import Delivery, Subscription, WebhookStore
from services.webhook.targets import TargetPolicy, TargetRefused, check_target, embedded_ipv4
from tests.support.client import assert_problem, auth, wait_over
from tests.support.seeds import seed_hex
from tests.support.stack import WEBHOOK_OPERATOR_KEY, Services, WebhookProcess
from tests.support.waiting import eventually
from tests.support.webhook_receiver import Receiver

GAME = "darjeeling"
OPERATOR_KEY = WEBHOOK_OPERATOR_KEY
WAIT_SECONDS = 90.0
SECRET = "whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
# IPv6 addresses wrapping a cloud-metadata or private IPv4 address: 6to4, Teredo (server 1.2.3.4,
# client 169.254.169.254 obfuscated), NAT64 (well-known and local-use), IPv4-mapped and -compatible.
EMBEDDED_PRIVATE_IPV4 = (
    "2002:a9fe:a9fe::", "2002:a00:1::1", "2001:0:102:304::5601:5601", "64:ff9b::a9fe:a9fe",
    "64:ff9b:1::a9fe:a9fe", "::ffff:169.254.169.254", "::169.254.169.254", "::10.0.0.1",
)  # fmt: skip
# The same around 127.0.0.1 (the session's dispatcher allows loopback receivers; a strict policy does not).
EMBEDDED_LOOPBACK_IPV4 = ("2002:7f00:1::", "64:ff9b::7f00:1", "::127.0.0.1")


class WebhookStack:
    """A dispatcher, a gateway routing to it and to the session's rules services, a receiver."""

    def __init__(self, stack: dict[str, Any]) -> None:
        self.dispatcher: WebhookProcess = stack["webhook"]
        self.receiver = Receiver()
        self.http = httpx.Client(base_url=str(stack["url"]), timeout=120)

    def subscribe(self, path: str, events: list[str], secret: str = "") -> dict[str, Any]:
        """POST /v1/webhooks for a receiver path; the receiver learns the secret."""
        return self.receiver.subscribe(self.http, path, events, secret)

    def bot_game(self, seed: int) -> str:
        players = [{"name": f"Bot {i}", "bot": "random"} for i in range(3)]
        response = self.http.post("/v1/games", json={"game_type": GAME, "players": players, "seed_hex": seed_hex(seed)})
        assert response.status_code == 201, response.text
        game_id: str = response.json()["game_id"]
        return game_id

    def close(self) -> None:
        self.http.close()
        self.receiver.stop()


@pytest.fixture(scope="module")
def hooks(stack: dict[str, Any]) -> Iterator[WebhookStack]:
    if GAME not in stack["services"]:
        pytest.skip("darjeeling has no generated protos in this checkout")
    running = WebhookStack(stack)
    try:
        yield running
    finally:
        running.close()


_eventually = functools.partial(eventually, seconds=WAIT_SECONDS)


def _finished(receiver: Receiver, path: str) -> dict[str, list[str]]:
    """game id -> webhook-ids of the (deduplicated) game.finished deliveries received on ``path``."""
    out: dict[str, list[str]] = {}
    for webhook_id, body in receiver.unique(path).items():
        if body["type"] == "game.finished":
            out.setdefault(body["data"]["game_id"], []).append(webhook_id)
    return out


def test_every_game_finished_arrives_exactly_once_through_500s_downtime_and_a_sigkill(hooks: WebhookStack) -> None:
    path = "/results"
    receiver = hooks.receiver
    created = hooks.subscribe(path, ["game.finished", "game.started"])
    assert created["secret"].startswith("whsec_") and created["webhook_id"].startswith("wh_")
    games: list[str] = []

    # 1. The receiver answers 500 for a while: retries with backoff get through.
    receiver.fail_next(4, path)
    games += [hooks.bot_game(seed) for seed in (1, 2)]
    _eventually(lambda: set(games) <= set(_finished(receiver, path)), "delivered after 500s")
    assert sum(1 for r in receiver.seen(path) if r.answered == 500) == 4

    # 2. The receiver is down while a game ends: delivered once it is back.
    receiver.stop()
    games.append(hooks.bot_game(3))
    wait_over(hooks.http, games[-1])
    time.sleep(1.0)  # a few refused attempts
    receiver.start()
    _eventually(lambda: set(games) <= set(_finished(receiver, path)), "delivered after downtime")

    # 3. The dispatcher is SIGKILLed while a delivery is in flight: after a restart, redelivered.
    receiver.hold(3.0)
    games.append(hooks.bot_game(4))
    # Only this subscription's deliveries: other tests' late retries reach the same receiver.
    _eventually(lambda: any(p == path for p, _ in list(receiver.in_flight_ids)), "in flight")
    with receiver.lock:
        interrupted = [webhook_id for p, webhook_id in receiver.in_flight_ids if p == path]
    hooks.dispatcher.kill()
    receiver.hold(0)
    hooks.dispatcher.start()

    def redelivered() -> bool:
        """Each interrupted delivery came again (once its lease ran out), with the same webhook-id."""
        ids = [r.headers["webhook-id"] for r in receiver.seen(path)]
        return all(ids.count(webhook_id) >= 2 for webhook_id in interrupted)

    assert interrupted
    _eventually(redelivered, "redelivered after the SIGKILL")
    _eventually(lambda: set(games) <= set(_finished(receiver, path)), "delivered after the SIGKILL")

    finished = _finished(receiver, path)
    assert {game: len(ids) for game, ids in finished.items() if game in games} == dict.fromkeys(games, 1)
    requests = receiver.seen(path)
    assert requests and all(r.verified for r in requests), "every delivery carries a valid signature"
    ids = [r.headers["webhook-id"] for r in requests]
    for webhook_id in set(ids):
        bodies = {r.body for r in requests if r.headers["webhook-id"] == webhook_id}
        assert len(bodies) == 1, "a redelivery is the same message"
    for game in games:
        body = next(
            b for b in receiver.unique(path).values() if b["type"] == "game.finished" and b["data"]["game_id"] == game
        )
        state = hooks.http.get(f"/v1/games/{game}").json()
        assert body["data"]["result"] == state["result"] and body["timestamp"].endswith("Z")

    log = hooks.http.get(f"/v1/webhooks/{created['webhook_id']}/deliveries", headers=auth(OPERATOR_KEY)).json()
    delivered = [d for d in log["deliveries"] if d["status"] == "delivered"]
    assert len(delivered) >= 2 * len(games) and any(d["attempts"] > 1 for d in delivered)
    assert any(a["status_code"] == 500 for d in delivered for a in d["recent_attempts"])
    assert hooks.dispatcher.metric("chaiwala_webhook_deliveries_total", outcome="delivered") >= 1
    assert hooks.dispatcher.metric("chaiwala_outbox_lag_events", group="webhooks") >= 0
    assert created["secret"] not in hooks.dispatcher.log_path.read_text(errors="replace")


def test_a_tampered_body_or_a_wrong_secret_fails_verification(hooks: WebhookStack) -> None:
    path = "/tamper"
    hooks.subscribe(path, ["game.started"], secret=SECRET)
    game = hooks.bot_game(9)
    _eventually(lambda: any(b["data"]["game_id"] == game for b in hooks.receiver.unique(path).values()), "started")
    request = next(r for r in hooks.receiver.seen(path) if game.encode() in r.body)
    secret = hooks.receiver.secrets[path]
    assert Webhook(secret).verify(request.body, request.headers)["type"] == "game.started"
    tampered = request.body.replace(b'"version":0', b'"version":1')
    assert tampered != request.body
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(tampered, request.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + "c29tZSBvdGhlciBzZWNyZXQga2V5IG9mIDMyIGJ5dGVz").verify(request.body, request.headers)


def test_dead_letters_after_the_retry_window_and_redelivery(hooks: WebhookStack) -> None:
    path = "/always-down"
    hooks.receiver.always_fail(path)
    created = hooks.subscribe(path, ["game.started"])
    webhook_id = created["webhook_id"]
    hooks.bot_game(21)
    url = f"/v1/webhooks/{webhook_id}/deliveries"

    def dead() -> list[dict[str, Any]]:
        page = hooks.http.get(url, params={"status": "dead"}, headers=auth(OPERATOR_KEY)).json()
        found: list[dict[str, Any]] = page["deliveries"]
        return found

    _eventually(lambda: bool(dead()), "dead-lettered", seconds=60)
    (letter,) = dead()
    assert letter["attempts"] >= 3 and all(a["status_code"] == 500 for a in letter["recent_attempts"])
    assert hooks.dispatcher.metric("chaiwala_webhook_deliveries_total", outcome="dead") >= 1
    hooks.receiver.always_fail(path, False)
    again = hooks.http.post(f"{url}/{letter['delivery_id']}/redeliver", headers=auth(OPERATOR_KEY))
    assert again.status_code == 202 and again.json()["status"] == "pending"
    _eventually(lambda: letter["delivery_id"] in hooks.receiver.unique(path), "redelivered")
    assert_problem(hooks.http.post(f"{url}/msg_nope/redeliver", headers=auth(OPERATOR_KEY)), 404, "delivery_not_found")


def test_subscriptions_are_managed_by_operators_and_bad_input_is_a_problem(hooks: WebhookStack) -> None:
    http, key = hooks.http, auth(OPERATOR_KEY)
    good = {"url": hooks.receiver.url("/crud"), "events": ["game.finished"]}
    assert_problem(http.post("/v1/webhooks", json=good), 401, "unauthenticated")
    assert_problem(http.post("/v1/webhooks", json=good, headers=auth("not-the-key")), 403, "api_key_required")
    for body, code in [
        ({"url": "ftp://example.com/x", "events": ["game.finished"]}, "bad_url"),
        ({"url": "not a url", "events": ["game.finished"]}, "bad_url"),
        ({"url": "http://user:pw@127.0.0.1/x", "events": ["game.finished"]}, "bad_url"),
        ({"url": good["url"], "events": []}, "bad_events"),
        ({"url": good["url"], "events": ["game.exploded"]}, "bad_events"),
        ({"url": good["url"], "events": ["game.finished"], "secret": "plain"}, "bad_secret"),
        ({"url": good["url"], "events": ["game.finished"], "secret": "whsec_c2hvcnQ="}, "bad_secret"),
        ({"url": good["url"], "events": ["game.finished"], "colour": "red"}, "invalid_request"),
        ({"url": "http://10.1.2.3/hook", "events": ["game.finished"]}, "target_not_allowed"),
        ({"url": "http://169.254.169.254/latest/meta-data", "events": ["game.finished"]}, "target_not_allowed"),
        ({"url": "http://[fd00::1]/hook", "events": ["game.finished"]}, "target_not_allowed"),
        ({"url": "http://[fec0::1]/", "events": ["game.finished"]}, "target_not_allowed"),  # site-local (issue #44)
        # IPv6 forms that carry an IPv4 address: judged by that address too (issue #36).
        *[({"url": f"http://[{wrapped}]/hook", "events": ["game.finished"]}, "target_not_allowed")
          for wrapped in EMBEDDED_PRIVATE_IPV4],
        ({"url": "http://no-such-host.invalid/hook", "events": ["game.finished"]}, "unresolvable_url"),
    ]:
        assert_problem(http.post("/v1/webhooks", json=body, headers=key), 400, code)
    assert_problem(http.post("/v1/webhooks", content=b"{", headers={**key, "content-type": "application/json"}), 400)
    assert_problem(http.post("/v1/webhooks", headers=key), 400, "empty_body")

    created = http.post("/v1/webhooks", json=good, headers=key).json()
    webhook_id = created["webhook_id"]
    one = http.get(f"/v1/webhooks/{webhook_id}", headers=key)
    assert one.status_code == 200 and one.json()["url"] == good["url"] and "secret" not in one.json()
    assert webhook_id in [w["webhook_id"] for w in http.get("/v1/webhooks", headers=key).json()["webhooks"]]
    assert_problem(http.get(f"/v1/webhooks/{webhook_id}/deliveries?status=lost", headers=key), 400, "bad_status")
    assert_problem(http.get(f"/v1/webhooks/{webhook_id}/deliveries?page_token=x", headers=key), 400)
    assert http.delete(f"/v1/webhooks/{webhook_id}", headers=key).status_code == 200
    assert_problem(http.get(f"/v1/webhooks/{webhook_id}", headers=key), 404, "webhook_not_found")
    assert_problem(http.delete(f"/v1/webhooks/{webhook_id}", headers=key), 404, "webhook_not_found")

    # gRPC: the same service, the same refusals.
    with grpc.insecure_channel(hooks.dispatcher.address) as channel:
        stub = webhooks_pb2_grpc.WebhookServiceStub(channel)
        metadata = (("authorization", f"Bearer {OPERATOR_KEY}"),)
        listed = stub.ListWebhooks(webhooks_pb2.ListWebhooksRequest(), metadata=metadata, timeout=10)
        assert webhook_id not in [w.webhook_id for w in listed.webhooks]
        with pytest.raises(grpc.RpcError) as refused:
            stub.GetWebhook(webhooks_pb2.GetWebhookRequest(webhook_id=webhook_id), metadata=metadata, timeout=10)
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND
        detail = error_detail_from_metadata(refused.value.trailing_metadata())
        assert detail is not None and detail.code == "webhook_not_found"


def test_the_target_policy_refuses_private_loopback_and_link_local() -> None:
    asyncio.run(_policy_checks())


async def _policy_checks() -> None:
    strict = TargetPolicy()
    for url in ("http://127.0.0.1/x", "http://localhost:8080/x", "http://[::1]/x", "http://[::ffff:127.0.0.1]/x",
                "http://192.168.1.10/x", "http://172.16.0.1/x", "http://100.64.0.1/x", "http://0.0.0.0/x",
                "http://[fe80::1]/x", "http://224.0.0.1/x"):  # fmt: skip
        with pytest.raises(TargetRefused) as refused:
            await check_target(url, strict)
        assert refused.value.code == "target_not_allowed", url
    await check_target("https://93.184.215.14/hook", strict)  # a public address is fine
    # Deprecated, reserved and documentation IPv6 ranges (site-local, SRv6, discard, SIIT, ORCHIDv2,
    # documentation): none is anyone's public receiver.
    for reserved in ("fec0::1", "feff:1:2::3", "5f00::1", "100::1", "::ffff:0:a9fe:a9fe", "2001:20::1",
                     "2001:db8::1", "3fff::1", "4000::1", "e000::1"):  # fmt: skip
        with pytest.raises(TargetRefused) as refused:
            await check_target(f"http://[{reserved}]/x", strict)
        assert refused.value.code == "target_not_allowed", reserved
    await check_target("http://[2606:4700:4700::1111]/x", strict)  # global unicast passes
    for wrapped in EMBEDDED_PRIVATE_IPV4 + EMBEDDED_LOOPBACK_IPV4:
        with pytest.raises(TargetRefused) as refused:
            await check_target(f"http://[{wrapped}]/x", strict)
        assert refused.value.code == "target_not_allowed", wrapped
    # 6to4 and IPv4-mapped forms of a public IPv4 address pass, as that address would (NAT64 and
    # IPv4-compatible addresses sit in ::/8, reserved whatever they carry).
    for wrapped in ("2002:5db8:d70e::", "::ffff:93.184.215.14"):
        await check_target(f"http://[{wrapped}]/x", strict)
    assert embedded_ipv4(ipaddress.ip_address("2001:0:102:304::5601:5601")) == [
        ipaddress.IPv4Address("1.2.3.4"), ipaddress.IPv4Address("169.254.169.254")
    ]
    await check_target("http://127.0.0.1:9/x", TargetPolicy(allow_loopback=True))
    with pytest.raises(TargetRefused):
        await check_target("http://10.0.0.1/x", TargetPolicy(allow_loopback=True))
    await check_target("http://10.0.0.1/x", TargetPolicy(allow_private=True))


def test_the_guard_runs_again_before_every_attempt(hooks: WebhookStack) -> None:
    """A target that became disallowed (DNS now points inward) is refused at delivery time, unsent."""
    path = "/rebound"
    before = len(hooks.receiver.seen(path))
    delivery = Delivery("msg_test", "wh_test", {"id": "evt_x", "type": "game.started", "ts_ms": 0, "data": {}}, 0)

    async def once() -> Any:
        async with httpx.AsyncClient() as http:
            return await attempt(http, hooks.receiver.url(path), SECRET, delivery, TargetPolicy())

    outcome = asyncio.run(once())
    assert outcome.outcome == "refused" and outcome.status_code == 0
    assert len(hooks.receiver.seen(path)) == before


def test_fanning_one_event_out_twice_makes_one_delivery(services: Services) -> None:
    """A dispatcher killed between fan-out and acknowledging the outbox fans the event out again: the
    delivery id (from event and subscription) makes that a no-op."""

    async def twice() -> tuple[int, int, int]:
        redis = aioredis.Redis.from_url(services.redis_url)
        try:
            store = WebhookStore(redis)
            subscription = Subscription("wh_twice", "http://127.0.0.1:9/x", ["game.started"], SECRET, 0)
            event = new_event("game.started", {"game_id": "g"}, event_id="evt_twice")
            first = await store.enqueue(subscription.webhook_id, [new_delivery(subscription, event, 1)], 1)
            again = await store.enqueue(subscription.webhook_id, [new_delivery(subscription, event, 2)], 2)
            kept = len(await store.log_page(subscription.webhook_id, 0, 10))
            await redis.delete("chaiwala:webhooks:{webhooks}:log:wh_twice")
            await redis.hdel("chaiwala:webhooks:{webhooks}:deliveries", first[0].delivery_id)
            await redis.zrem("chaiwala:webhooks:{webhooks}:due", first[0].delivery_id)
            return len(first), len(again), kept
        finally:
            await redis.aclose()

    assert asyncio.run(twice()) == (1, 0, 1)


def test_backoff_doubles_with_jitter_until_the_window_is_spent() -> None:
    policy = RetryPolicy(base_s=5, cap_s=3600, window_s=24 * 3600)
    rng = random.Random(1)
    delivery = Delivery("msg_x", "wh_x", {}, created_ms=0, window_ms=0)
    now, delays = 0, []
    while True:
        delivery.attempts += 1
        due = policy.next_due(delivery, now, rng)
        if due is None:
            break
        delays.append((due - now) / 1000)
        now = due
    nominal = [min(3600, 5 * 2 ** (n - 1)) for n in range(1, len(delays) + 1)]
    assert all(0.5 * d <= got <= d for got, d in zip(delays, nominal, strict=True))
    assert delays[0] < delays[3] < delays[6] and max(delays) <= 3600  # it grows, up to the cap
    assert now <= 24 * 3600 * 1000 and 20 <= len(delays) <= 60  # about a day of retries, then dead
