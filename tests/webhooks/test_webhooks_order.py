"""Per-game order, sequence and the dead-letter gauge, through a private real stack (own Redis,
rules service, conductor, dispatcher and gateway; see tests/support/ops_stack.py) and a real
HTTP receiver that goes down and comes back."""

from __future__ import annotations

import functools
import itertools
import time
from typing import Any

import httpx

from services.outbox.events import GAME_EVENT_TYPES
from tests.support.client import auth, wait_over
from tests.support.ops_stack import GAME, OpsStack, client_fixture, module_fixture, ops_stack, scrape, value
from tests.support.seeds import seed_hex
from tests.support.stack import WEBHOOK_OPERATOR_KEY
from tests.support.stoppable import running
from tests.support.waiting import eventually
from tests.support.webhook_receiver import Receiver

WAIT_SECONDS = 90.0


ops = module_fixture(ops_stack, "ops-webhooks")
http = client_fixture("ops")


receiver = running(Receiver)


_eventually = functools.partial(eventually, seconds=WAIT_SECONDS)


def _subscribe(http: httpx.Client, receiver: Receiver, path: str, events: list[str]) -> str:
    return str(receiver.subscribe(http, path, events)["webhook_id"])


def _game_bodies(receiver: Receiver, path: str, game_id: str) -> dict[str, dict[str, Any]]:
    """webhook-id -> body of the delivered events of one game on ``path``."""
    return {k: b for k, b in receiver.unique(path).items() if b["data"].get("game_id") == game_id}


def _clocked_game(http: httpx.Client) -> dict[str, Any]:
    """Two people, one second a turn, resigned at the first timeout: started, timed out, finished."""
    body = {
        "game_type": GAME,
        "players": [{"name": "Asha"}, {"name": "Bilal"}],
        "seed_hex": seed_hex(5),
        "clock": {"per_turn_s": 1},
        "on_timeout": "resign",
        "timeouts_to_resign": 1,
    }
    response = http.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def test_a_games_events_arrive_in_order_with_increasing_sequence_after_the_receiver_was_down(
    ops: OpsStack, http: httpx.Client, receiver: Receiver
) -> None:
    path = "/ordered"
    _subscribe(http, receiver, path, list(GAME_EVENT_TYPES))
    receiver.stop()  # down: every attempt is refused
    game_id = _clocked_game(http)["game_id"]
    final = wait_over(http, game_id, seconds=60)
    assert final["status"] == "finished"
    time.sleep(1.0)  # a few more refused attempts
    receiver.start()
    _eventually(lambda: len(_game_bodies(receiver, path, game_id)) == 3, "all three events delivered")

    delivered = _game_bodies(receiver, path, game_id)
    by_type = {body["type"]: (webhook_id, body) for webhook_id, body in delivered.items()}
    assert sorted(by_type) == ["game.finished", "game.started", "seat.timed_out"]
    chain = [by_type[t] for t in ("game.started", "seat.timed_out", "game.finished")]
    sequences = [body["sequence"] for _, body in chain]
    assert sequences == sorted(sequences) and len(set(sequences)) == 3, sequences
    stamps = [body["timestamp"] for _, body in chain]
    assert stamps == sorted(stamps) and all(stamp.endswith("Z") for stamp in stamps)

    # No attempt at a later event before the earlier one was answered 200: per game, in order.
    seen = receiver.seen(path)
    for (earlier, _), (later, _) in itertools.pairwise(chain):
        delivered_at = next(i for i, r in enumerate(seen) if r.headers["webhook-id"] == earlier and r.answered == 200)
        first_try = next(i for i, r in enumerate(seen) if r.headers["webhook-id"] == later)
        assert first_try > delivered_at, f"{later} was tried before {earlier} was delivered"
    assert all(r.verified for r in seen)

    finished = chain[2][1]["data"]
    assert finished["reason"] == "timeout" and finished["rated"] is False
    assert finished["result"] == final["result"] and finished["started_at"].endswith("Z")
    assert finished["duration_ms"] >= 1000  # a one-second clock ran out first


def test_a_resignation_is_told_as_such_and_an_abort_as_abort(
    ops: OpsStack, http: httpx.Client, receiver: Receiver
) -> None:
    path = "/endings"
    _subscribe(http, receiver, path, ["game.finished", "game.aborted"])
    resigned = http.post(
        "/v1/games", json={"game_type": GAME, "players": [{"name": "A"}, {"name": "B"}], "seed_hex": seed_hex(1)}
    )
    aborted = http.post(
        "/v1/games", json={"game_type": GAME, "players": [{"name": "C"}, {"name": "D"}], "seed_hex": seed_hex(2)}
    )
    assert resigned.status_code == aborted.status_code == 201
    seat0 = resigned.json()["seats"][0]["token"]
    assert http.post(f"/v1/games/{resigned.json()['game_id']}/resign", headers=auth(seat0)).status_code == 200
    host = aborted.json()["host_token"]
    assert http.post(f"/v1/games/{aborted.json()['game_id']}/abort", headers=auth(host)).status_code == 200
    ids = {resigned.json()["game_id"]: "resign", aborted.json()["game_id"]: "abort"}
    _eventually(lambda: all(_game_bodies(receiver, path, game) for game in ids), "both endings delivered")
    for game, reason in ids.items():
        (body,) = _game_bodies(receiver, path, game).values()
        assert body["data"]["reason"] == reason and body["data"]["rated"] is False
        assert body["type"] == ("game.finished" if reason == "resign" else "game.aborted")
        assert body["sequence"] % 2 == 1  # the end of a game comes after everything of its version
    (finished,) = _game_bodies(receiver, path, resigned.json()["game_id"]).values()
    assert finished["data"]["result"]["winners"] == [1]


def test_the_dead_letter_gauge_goes_down_when_a_dead_letter_is_redelivered(
    ops: OpsStack, http: httpx.Client, receiver: Receiver
) -> None:
    path = "/dead-then-alive"
    receiver.always_fail(path)
    webhook_id = _subscribe(http, receiver, path, ["game.started"])
    bots = [{"name": f"Bot {i}", "bot": "random"} for i in range(3)]
    assert http.post("/v1/games", json={"game_type": GAME, "players": bots, "seed_hex": seed_hex(3)}).status_code == 201
    url = f"/v1/webhooks/{webhook_id}/deliveries"

    def dead() -> list[dict[str, Any]]:
        page = http.get(url, params={"status": "dead"}, headers=auth(WEBHOOK_OPERATOR_KEY)).json()
        found: list[dict[str, Any]] = page["deliveries"]
        return found

    def gauge() -> float:
        return value(scrape(ops.webhook.metrics_port).text, "chaiwala_webhook_dead_letters")

    _eventually(lambda: len(dead()) == 1, "dead-lettered", seconds=60)
    _eventually(lambda: gauge() == 1, "counted on the gauge")  # this stack's only dead letter
    receiver.always_fail(path, False)
    (letter,) = dead()
    again = http.post(f"{url}/{letter['delivery_id']}/redeliver", headers=auth(WEBHOOK_OPERATOR_KEY))
    assert again.status_code == 202 and again.json()["status"] == "pending"
    _eventually(lambda: letter["delivery_id"] in receiver.unique(path), "redelivered")
    _eventually(lambda: gauge() == 0, "off the gauge")
    assert dead() == []
    one = http.get(url, headers=auth(WEBHOOK_OPERATOR_KEY)).json()["deliveries"]
    assert [d["status"] for d in one] == ["delivered"]
