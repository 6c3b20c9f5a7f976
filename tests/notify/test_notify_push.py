"""Calling players back, through a private real stack (tests/support/notify_stack.py): turn
webhooks, Web Push to a local push service that decrypts with the browser's keys, reminders,
quiet hours, gone subscriptions, collapsed messages, a sender killed mid-batch, invitations and
quick-play matches formed by the real matchmaker."""

from __future__ import annotations

import asyncio
import functools
import secrets as random_ids
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from prometheus_client import REGISTRY
from redis import Redis
from redis import asyncio as aioredis

from services.clock import clock as clocks
from services.identity.preferences import Preferences
from services.notify.model import check_subscription
from services.notify.sender import Sender
from services.notify.settings import NotifySettings
from services.notify.store import DUE, pending_key, subs_key
from services.outbox.seating import invitations, match_found
from tests.support import secrets
from tests.support.client import assert_problem, auth, guest
from tests.support.notify_stack import GAME, NotifyStack, notify_stack
from tests.support.ops_stack import client_fixture, module_fixture
from tests.support.push_service import Browser, PushService
from tests.support.seeds import seed_hex
from tests.support.stack import WEBHOOK_OPERATOR_KEY
from tests.support.stoppable import running
from tests.support.waiting import eventually
from tests.support.webhook_receiver import Receiver

WAIT_SECONDS = 60.0
# Everything a decrypted payload may carry: ids, seat, deadline, names, words, a link.  No state.
PAYLOAD_FIELDS = {"type", "game_id", "game_ids", "game_type", "seat", "deadline", "opponents", "status", "title",
                  "body", "url", "tag"}  # fmt: skip
_eventually = functools.partial(eventually, seconds=WAIT_SECONDS)


stack = module_fixture(notify_stack, "notify")
http = client_fixture("stack")


pushes = running(PushService)
receiver = running(Receiver)


def _subscribe(http: httpx.Client, token: str, browser: Browser) -> str:
    answer = http.post("/v1/me/push-subscriptions", json=browser.to_json(), headers=auth(token))
    assert answer.status_code == 201, answer.text
    return str(answer.json()["subscription_id"])


def _subscribed(http: httpx.Client, token: str, endpoint: str) -> Browser:
    """A new browser pushed to at ``endpoint``, subscribed for the player of ``token``."""
    browser = Browser.new(endpoint)
    _subscribe(http, token, browser)
    return browser


def _game(http: httpx.Client, people: list[tuple[str, str]], clock_s: int = 3600) -> dict[str, Any]:
    """A game of people (name, player id) with a per-turn clock, created by the operator."""
    body = {"game_type": GAME, "players": [{"name": name, "external_id": pid} for name, pid in people],
            "seed_hex": seed_hex(3),
            "clock": {"per_turn_s": clock_s}}  # fmt: skip
    created = http.post("/v1/games", json=body, headers=auth(WEBHOOK_OPERATOR_KEY))
    assert created.status_code == 201, created.text
    game: dict[str, Any] = created.json()
    for seat in game["seats"]:
        secrets.remember(seat["token"])
    return game


def _play_until_turn_of(http: httpx.Client, game: dict[str, Any], seat: int) -> None:
    """Play the first legal move of whoever is to act until ``seat`` is."""
    for _ in range(200):
        shown = http.get(f"/v1/games/{game['game_id']}").json()
        to_act = shown["to_act"]
        if seat in to_act:
            return
        token = game["seats"][to_act[0]]["token"]
        moves = http.get(f"/v1/games/{game['game_id']}/legal-moves", headers=auth(token)).json()["moves"]
        body = {"move": moves[0], "expected_version": shown["version"]}
        answer = http.post(f"/v1/games/{game['game_id']}/moves", json=body, headers=auth(token))
        assert answer.status_code == 200, answer.text
    raise AssertionError(f"seat {seat} never came to act")


def _payloads(pushes: PushService, browser: Browser, path: str) -> list[dict[str, Any]]:
    return [browser.decrypt(push.body) for push in pushes.accepted(path)]


def test_the_offline_players_turn_arrives_as_a_signed_webhook_and_an_encrypted_push(
    http: httpx.Client, pushes: PushService, receiver: Receiver
) -> None:
    asha, _ = guest(http, "Asha")
    bilal, bilal_token = guest(http, "Bilal")
    receiver.subscribe(http, "/turns", ["turn.started"])
    browser = Browser.new(pushes.url("/push/bilal"))
    subscription_id = _subscribe(http, bilal_token, browser)
    listed = http.get("/v1/me/push-subscriptions", headers=auth(bilal_token)).json()["subscriptions"]
    assert [item["subscription_id"] for item in listed] == [subscription_id]
    assert "keys" not in listed[0]  # the browser's keys are never shown again

    game = _game(http, [("Asha", asha), ("Bilal", bilal)])
    _play_until_turn_of(http, game, 1)

    def bilal_turns() -> list[dict[str, Any]]:
        bodies = receiver.unique("/turns").values()
        return [b for b in bodies if b["data"]["game_id"] == game["game_id"] and b["data"]["seat"] == 1]

    _eventually(lambda: bool(bilal_turns()), "Bilal's turn.started delivered")
    (event,) = bilal_turns()
    assert all(r.verified for r in receiver.seen("/turns"))
    assert event["type"] == "turn.started" and event["data"]["external_id"] == bilal
    assert event["data"]["game_type"] == GAME and event["data"]["deadline"].endswith("Z")
    assert event["data"]["preferences"]["language"] == "en"  # the player's, for the platform to honour
    ours = [b for b in receiver.unique("/turns").values() if b["data"]["game_id"] == game["game_id"]]
    sequences = [b["sequence"] for b in sorted(ours, key=lambda b: b["data"]["version"])]
    assert sequences == sorted(sequences) and len(set(sequences)) == len(sequences)

    _eventually(lambda: bool(pushes.accepted("/push/bilal")), "a push to Bilal's browser")
    (payload,) = _payloads(pushes, browser, "/push/bilal")
    assert payload["type"] == "your_turn" and payload["game_id"] == game["game_id"]
    assert payload["deadline"] == event["data"]["deadline"] and payload["opponents"] == ["Asha"]
    assert set(payload) <= PAYLOAD_FIELDS, set(payload) - PAYLOAD_FIELDS
    headers = pushes.accepted("/push/bilal")[0].headers
    assert headers["content-encoding"] == "aes128gcm" and headers["authorization"].startswith("vapid t=")
    key = http.get("/v1/push/vapid-public-key").json()["public_key"]
    assert f"k={key}" in headers["authorization"]


def test_a_subscription_the_push_service_says_is_gone_is_removed(http: httpx.Client, pushes: PushService) -> None:
    chandra, token = guest(http, "Chandra")
    dev, _ = guest(http, "Dev")
    pushes.gone("/push/chandra")
    _subscribed(http, token, pushes.url("/push/chandra"))
    _play_until_turn_of(http, _game(http, [("Chandra", chandra), ("Dev", dev)]), 0)
    _eventually(lambda: bool(pushes.seen("/push/chandra")), "a push to the gone endpoint")
    _eventually(lambda: not http.get("/v1/me/push-subscriptions", headers=auth(token)).json()["subscriptions"],
                "the gone subscription removed")  # fmt: skip


def test_a_failing_push_service_is_tried_again_until_it_takes_the_push(http: httpx.Client, pushes: PushService) -> None:
    quinn, token = guest(http, "Quinn")
    rosa, _ = guest(http, "Rosa")
    browser = _subscribed(http, token, pushes.url("/push/quinn"))
    pushes.fail_next("/push/quinn", 2)
    game = _game(http, [("Quinn", quinn), ("Rosa", rosa)])
    _play_until_turn_of(http, game, 0)
    _eventually(lambda: bool(pushes.accepted("/push/quinn")), "the push taken after two failures")
    assert [push.answered for push in pushes.seen("/push/quinn")][:3] == [500, 500, 201]
    assert browser.decrypt(pushes.accepted("/push/quinn")[0].body)["game_id"] == game["game_id"]
    assert http.get("/v1/me/push-subscriptions", headers=auth(token)).json()["subscriptions"]  # kept


def test_turns_due_at_once_collapse_into_one_message(stack: NotifyStack, http: httpx.Client,
                                                      pushes: PushService) -> None:  # fmt: skip
    esi, token = guest(http, "Esi")
    farid, _ = guest(http, "Farid")
    browser = _subscribed(http, token, pushes.url("/push/esi"))
    stack.notify.stop()  # the three turns become due while no sender runs: they are read together
    games = []
    for _ in range(3):
        game = _game(http, [("Esi", esi), ("Farid", farid)])
        _play_until_turn_of(http, game, 0)
        games.append(game["game_id"])
    stack.notify.start()
    _eventually(lambda: bool(pushes.accepted("/push/esi")), "a push to Esi")
    (payload,) = _payloads(pushes, browser, "/push/esi")
    assert payload["type"] == "your_turn" and payload["game_ids"] == sorted(games)
    assert payload["title"] == "Your turn in 3 games"


def test_quiet_hours_hold_a_notice_back(stack: NotifyStack, http: httpx.Client, pushes: PushService) -> None:
    gita, gita_token = guest(http, "Gita")
    hana, hana_token = guest(http, "Hana")
    now = datetime.now(UTC)
    start, end = (now - timedelta(hours=1)).strftime("%H:%M"), (now + timedelta(hours=1)).strftime("%H:%M")
    prefs = {"notices": ["your_turn"], "quiet_hours": {"start": start, "end": end}, "time_zone": "UTC",
             "language": "es"}  # fmt: skip
    answer = http.put("/v1/me/preferences", json=prefs, headers=auth(gita_token))
    assert answer.status_code == 200, answer.text
    assert http.get("/v1/me/preferences", headers=auth(gita_token)).json()["quiet_hours"] == prefs["quiet_hours"]
    _subscribed(http, gita_token, pushes.url("/push/gita"))
    hana_browser = _subscribed(http, hana_token, pushes.url("/push/hana"))
    held = _game(http, [("Gita", gita), ("Hana", hana)])
    _play_until_turn_of(http, held, 0)  # Gita's turn, in her quiet hours
    told = _game(http, [("Hana", hana), ("Gita", gita)])
    _play_until_turn_of(http, told, 0)  # Hana's turn: she has no quiet hours
    redis = Redis.from_url(stack.redis_url)
    _eventually(lambda: redis.hexists(pending_key(gita), held["game_id"]), "Gita's notice queued")
    _eventually(lambda: bool(pushes.accepted("/push/hana")), "Hana's push")
    told_games = [p.get("game_ids", [p.get("game_id")]) for p in _payloads(pushes, hana_browser, "/push/hana")]
    assert any(told["game_id"] in games for games in told_games)
    assert not pushes.seen("/push/gita")
    quiet_end = datetime.strptime(end, "%H:%M").replace(year=now.year, month=now.month, day=now.day, tzinfo=UTC)
    if quiet_end < now:
        quiet_end += timedelta(days=1)
    assert redis.zscore(DUE, gita) == int(quiet_end.timestamp() * 1000)
    redis.close()


def test_a_reminder_comes_before_the_deadline(http: httpx.Client, pushes: PushService, receiver: Receiver) -> None:
    ines, token = guest(http, "Ines")
    jon, _ = guest(http, "Jon")
    receiver.subscribe(http, "/reminders", ["turn.reminder"])
    browser = _subscribed(http, token, pushes.url("/push/ines"))
    game = _game(http, [("Ines", ines), ("Jon", jon)], clock_s=10)  # a reminder 4 s before the deadline
    _play_until_turn_of(http, game, 0)

    def reminders() -> list[dict[str, Any]]:
        return [b for b in receiver.unique("/reminders").values() if b["data"]["game_id"] == game["game_id"]]

    _eventually(lambda: bool(reminders()), "a turn.reminder delivered")
    (event,) = reminders()
    assert event["data"]["seat"] == 0 and event["data"]["external_id"] == ines and event["data"]["lead_s"] == 4
    assert event["data"]["preferences"]["notices"] == ["your_turn", "deadline_near", "invited", "match_found",
                                                       "game_finished"]  # fmt: skip
    _eventually(lambda: any(p["type"] == "deadline_near" for p in _payloads(pushes, browser, "/push/ines")),
                "a deadline_near push")  # fmt: skip
    near = [p for p in _payloads(pushes, browser, "/push/ines") if p["type"] == "deadline_near"]
    assert near[0]["game_id"] == game["game_id"] and near[0]["deadline"] == event["data"]["deadline"]


def test_bad_subscriptions_and_preferences_are_refused_and_change_nothing(http: httpx.Client) -> None:
    _, token = guest(http, "Kofi")
    assert_problem(http.post("/v1/me/push-subscriptions", json={"endpoint": "http://127.0.0.1:1/x"}), 401)
    bad_keys = {"endpoint": "https://push.example/x", "keys": {"p256dh": "abc", "auth": "def"}}
    assert_problem(http.post("/v1/me/push-subscriptions", json=bad_keys, headers=auth(token)), 400, "bad_subscription")
    inward = Browser.new("http://169.254.169.254/latest").to_json()
    assert_problem(http.post("/v1/me/push-subscriptions", json=inward, headers=auth(token)), 400, "target_not_allowed")
    assert http.get("/v1/me/push-subscriptions", headers=auth(token)).json().get("subscriptions", []) == []
    for body, code in [({"notices": ["spam"]}, "bad_notices"), ({"time_zone": "Mars/Olympus"}, "bad_time_zone"),
                       ({"language": "fr"}, "bad_language"), ({"quiet_hours": {"start": "25:00", "end": "07:00"}},
                                                              "bad_quiet_hours")]:  # fmt: skip
        assert_problem(http.put("/v1/me/preferences", json=body, headers=auth(token)), 400, code)
    assert http.get("/v1/me/preferences", headers=auth(token)).json()["language"] == "en"
    assert_problem(http.delete("/v1/me/push-subscriptions/psub_nope", headers=auth(token)), 404)


def test_a_sender_killed_mid_batch_resends_only_what_no_push_service_acknowledged(
    stack: NotifyStack, http: httpx.Client, pushes: PushService
) -> None:
    people = [guest(http, name) for name in ("Lila", "Mo", "Nia", "Omar")]
    other, _ = guest(http, "Pat")
    browsers = {pid: Browser.new(pushes.url(f"/push/kill-{index}")) for index, (pid, _) in enumerate(people)}
    for pid, token in people:
        _subscribe(http, token, browsers[pid])
    stack.notify.stop()
    for pid, _ in people:
        _play_until_turn_of(http, _game(http, [("P", pid), ("Pat", other)]), 0)
    pushes.hold_after(1)  # the first push is answered, the second held: the sender is killed waiting
    stack.notify.start()
    _eventually(pushes.held, "a push held")
    stack.notify.kill()
    pushes.release()
    stack.notify.start()
    paths = [f"/push/kill-{index}" for index in range(len(people))]
    _eventually(lambda: all(pushes.accepted(path) for path in paths), "every player's push")
    # Everyone got their turn; the push answered before the kill was never sent again; the one in flight
    # was sent again with the same Topic and tag, so the push service and the browser replace, not repeat.
    counts = sorted(len(pushes.seen(path)) for path in paths)
    assert counts == [1, 1, 1, 2], counts
    for index, (pid, _) in enumerate(people):
        seen = pushes.seen(paths[index])
        assert len({push.headers["topic"] for push in seen}) == 1
        assert len({browsers[pid].decrypt(push.body)["tag"] for push in seen}) == 1


def test_a_host_seating_invitees_pushes_invited_to_those_who_want_it(stack: NotifyStack, http: httpx.Client,
                                                                     pushes: PushService) -> None:  # fmt: skip
    vera, vera_token = guest(http, "Vera")
    wen, wen_token = guest(http, "Wen")
    vera_browser = _subscribed(http, vera_token, pushes.url("/push/vera"))
    _subscribed(http, wen_token, pushes.url("/push/wen"))
    off = {"notices": ["your_turn", "deadline_near", "match_found", "game_finished"]}  # Wen wants no invitations
    assert http.put("/v1/me/preferences", json=off, headers=auth(wen_token)).status_code == 200
    # The platform (an operator: only it may seat another player's identity) seats both; one seat stays open.
    body = {"game_type": GAME, "players": [{"name": "Vera", "external_id": vera}, {"name": "Wen", "external_id": wen},
                                           {"open": True}]}  # fmt: skip
    created = http.post("/v1/games", json=body, headers=auth(WEBHOOK_OPERATOR_KEY))
    assert created.status_code == 201 and created.json()["status"] == "waiting", created.text
    game_id = created.json()["game_id"]
    _eventually(lambda: bool(pushes.accepted("/push/vera")), "Vera's invitation")
    (payload,) = _payloads(pushes, vera_browser, "/push/vera")
    assert payload["type"] == "invited" and payload["game_id"] == game_id and payload["seat"] == 0
    assert payload["opponents"] == ["Wen"] and payload["url"].endswith(f"/play/#/game/{game_id}/0")
    assert set(payload) <= PAYLOAD_FIELDS, set(payload) - PAYLOAD_FIELDS
    # Both invitations are one transaction's facts, read and queued in one batch before any push: by
    # Vera's push, Wen's was weighed too, and nothing waits for Wen nor reached him.
    redis = Redis.from_url(stack.redis_url)
    assert not redis.exists(pending_key(wen)) and redis.zscore(DUE, wen) is None
    redis.close()
    assert not pushes.seen("/push/wen")


def _ticket(http: httpx.Client, token: str, per_turn_s: int) -> str:
    body = {"game_type": GAME, "player_counts": [2], "time_control": {"per_turn_s": per_turn_s}}
    answer = http.post("/v1/matchmaking/tickets", json=body, headers=auth(token))
    assert answer.status_code == 201, answer.text
    return str(answer.json()["ticket_id"])


def test_a_quick_play_match_pushes_match_found_to_every_ticket_holder(http: httpx.Client,
                                                                      pushes: PushService) -> None:  # fmt: skip
    people = [guest(http, name) for name in ("Xia", "Yuri")]
    browsers = {pid: Browser.new(pushes.url(f"/push/match-{pid}")) for pid, _ in people}
    for pid, token in people:
        _subscribe(http, token, browsers[pid])
    tickets = {pid: _ticket(http, token, 7200) for pid, token in people}

    def found(pid: str) -> list[dict[str, Any]]:
        return [p for p in _payloads(pushes, browsers[pid], f"/push/match-{pid}") if p["type"] == "match_found"]

    _eventually(lambda: all(found(pid) for pid, _ in people), "match_found pushed to both players")
    for pid, token in people:
        ticket = http.get(f"/v1/matchmaking/tickets/{tickets[pid]}", headers=auth(token)).json()
        (payload,) = found(pid)
        assert ticket["status"] == "matched" and payload["game_id"] == ticket["game_id"]
        assert payload["seat"] == ticket["seat"] and len(payload["opponents"]) == 1
        assert set(payload) <= PAYLOAD_FIELDS, set(payload) - PAYLOAD_FIELDS


def test_an_invitation_read_twice_is_queued_once_and_waits_out_quiet_hours(stack: NotifyStack) -> None:
    """The fan-out half of "killed mid-batch": a sender killed after queueing a fact's notices and before
    acknowledging it reads the fact again on restart (its pending entries are recovered); the mark per fact
    and player queues nothing twice.  The sender's own code over the stack's Redis plays the restarted one."""
    player = f"guest:quiet-{random_ids.token_hex(4)}"
    now = datetime.now(UTC)
    quiet = Preferences(quiet_start=(now - timedelta(hours=1)).strftime("%H:%M"),
                        quiet_end=(now + timedelta(hours=1)).strftime("%H:%M"))  # fmt: skip
    (fact,) = invitations(f"{GAME}-quiet", GAME, [{"name": "Zed", "bot": "", "external_id": player}], "", "", 0)

    def queued() -> float:
        return REGISTRY.get_sample_value("chaiwala_notify_queued_total", {"type": "invited"}) or 0.0

    async def read_twice() -> tuple[int | None, int]:
        redis = aioredis.from_url(stack.redis_url)
        sender = Sender(redis, NotifySettings())
        try:
            await sender.store.set_preferences(player, quiet)
            await sender.take(fact)
            await sender.take(fact)  # the same fact again, as after a restart
            due, pending = await sender.store.due_at(player), len(await sender.store.pending(player))
            await redis.delete(pending_key(player))
            await redis.zrem(DUE, player)
            return due, pending
        finally:
            await sender.close()
            await redis.aclose()

    before = queued()
    due, pending = asyncio.run(read_twice())
    assert queued() - before == 1 and pending == 1
    assert due == quiet.held_until(clocks.now_ms())  # held until the player's quiet hours end, as turns are


def test_only_players_with_a_push_subscription_get_notices_queued(stack: NotifyStack) -> None:
    """A batch of facts queues notices for the players who have a subscription and for nobody else (a
    notice nobody can receive would be dropped when due, after costing its queueing); the sender's own
    code over the stack's Redis."""
    tag = random_ids.token_hex(4)
    subscribed, bare = f"guest:sub-{tag}", f"guest:bare-{tag}"
    people = [{"name": "Yan", "bot": "", "external_id": subscribed}, {"name": "Zoe", "bot": "", "external_id": bare}]
    fact = match_found(f"{GAME}-match-{tag}", GAME, "pool", people, clocks.now_ms())
    browser = Browser.new(f"http://127.0.0.1:9/push/{tag}")

    async def fan_out() -> tuple[int | None, int, int, bool]:
        redis = aioredis.from_url(stack.redis_url)
        sender = Sender(redis, NotifySettings())
        try:
            keys = browser.to_json()["keys"]
            record = check_subscription(subscribed, browser.endpoint, keys["p256dh"], keys["auth"], None, 0)
            await sender.store.add_subscription(record)
            due = await sender.take_batch([fact])
            found = len(await sender.store.pending(subscribed)), len(await sender.store.pending(bare))
            waiting = await sender.store.due_at(bare) is not None
            for player in (subscribed, bare):
                await redis.delete(pending_key(player), subs_key(player))
                await redis.zrem(DUE, player)
            return due, *found, waiting
        finally:
            await sender.close()
            await redis.aclose()

    due, queued, not_queued, bare_waiting = asyncio.run(fan_out())
    assert queued == 1 and due is not None
    assert not_queued == 0 and not bare_waiting
