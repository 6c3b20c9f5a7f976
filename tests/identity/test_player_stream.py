"""The player stream (``GET /v1/me/events``) through the real stack: every kind of notice, resuming
with ``Last-Event-ID``, tickets that only read and expire, and feeds that never cross players nor
carry what a seat may not see.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from redis import Redis

from services.identity.feed_rpcs import TICKET_TTL_SECONDS, ticket_key
from services.identity.settings import IdentitySettings
from tests.support import secrets
from tests.support.client import assert_problem, auth, guest, play_humans_to_end, sse_events
from tests.support.issuer import Issuer, SigningKey
from tests.support.stack import rules_and_gateway

GAME = "darjeeling"
OPERATOR = "stream-trust-operator-key-0123456789abcdef"
SSE = {"Accept": "text/event-stream"}
# Every field a notice may carry (services/lobby/feed.py): ids, seats, versions, outcomes; no state.
NOTICE_FIELDS = {"game_id", "game_type", "seat", "version", "deadline", "status", "result", "host"}
Notice = dict[str, Any]


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    with Issuer([SigningKey.ec("s1")]) as platform:
        yield platform


@pytest.fixture(scope="module")
def http(redis_url: str, issuer: Issuer) -> Iterator[httpx.Client]:
    secrets.remember(OPERATOR)
    identity = IdentitySettings(trusted_issuers=json.dumps([issuer.config()]))
    many = "100000/second"  # one test makes and aborts 130 games in a second or two
    limits = {"session_limit": "1000/minute", "create_limit": many, "rate_limit_per_token": many}
    with (
        rules_and_gateway(redis_url, GAME, OPERATOR, identity, **limits) as (_, gateway),
        httpx.Client(base_url=gateway.url, timeout=60) as client,
    ):
        yield client


class Tokens:
    """Every credential a test hands out, to look for in what the stream sends."""

    def __init__(self) -> None:
        self.all: list[str] = []

    def add(self, *tokens: str) -> None:
        """Remember credentials (and keep them out of every log)."""
        for token in tokens:
            if token:
                secrets.remember(token)
                self.all.append(token)


def _create(http: httpx.Client, token: str, players: list[dict[str, Any]], tokens: Tokens, **extra: Any) -> str:
    answer = http.post("/v1/games", json={"game_type": GAME, "players": players, **extra}, headers=auth(token))
    assert answer.status_code == 201, answer.text
    body = answer.json()
    tokens.add(body["host_token"], *(seat["token"] for seat in body["seats"]))
    return str(body["game_id"])


def _join(http: httpx.Client, game_id: str, token: str, tokens: Tokens) -> None:
    joined = http.post(f"/v1/games/{game_id}/join", json={}, headers=auth(token))
    assert joined.status_code == 200, joined.text
    tokens.add(joined.json()["token"])


def _feed(http: httpx.Client, token: str) -> list[Notice]:
    answer = http.get("/v1/me/events", headers=auth(token))
    assert answer.status_code == 200, answer.text
    found: list[Notice] = answer.json()
    return found


def _kinds(feed: list[Notice], game_id: str) -> list[str]:
    return [notice["kind"] for notice in feed if notice["data"]["game_id"] == game_id]


def _finished(feed: list[Notice], game_id: str) -> list[dict[str, Any]]:
    return [n["data"] for n in feed if n["kind"] == "game_finished" and n["data"]["game_id"] == game_id]


def _first(moves: list[dict[str, Any]]) -> dict[str, Any]:
    """The first legal move as a client sends it back (without its words and costs)."""
    return {k: v for k, v in moves[0].items() if k not in ("text", "costs")}


def _move(http: httpx.Client, game_id: str, token: str) -> None:
    legal = http.get(f"/v1/games/{game_id}/legal-moves", headers=auth(token)).json()
    body = {"move": _first(legal["moves"]), "expected_version": legal["version"]}
    assert http.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(token)).status_code == 200


def _to_act(http: httpx.Client, game_id: str) -> list[int]:
    found: list[int] = http.get(f"/v1/games/{game_id}").json()["to_act"]
    return found


def _read(
    http: httpx.Client, headers: dict[str, str], done: Callable[[list[Notice]], bool], **params: str
) -> tuple[list[Notice], str]:
    """Notices of a live stream until ``done`` holds (then the stream is closed), and its raw text."""
    seen: list[Notice] = []
    raw: list[str] = []
    with http.stream("GET", "/v1/me/events", params=params, headers={**SSE, **headers}) as sse:
        assert sse.status_code == 200, sse.read()
        for message in sse_events(sse):
            raw.append(json.dumps(message))
            if message.get("event") in ("end", "error"):
                break
            seen.append({"id": message["id"], "kind": message["event"], "data": json.loads(message["data"])})
            if done(seen):
                break
    return seen, "\n".join(raw)


def test_an_operator_seat_invites_the_player_who_then_hears_it_start_and_end(http: httpx.Client) -> None:
    tokens = Tokens()
    asha_id, asha = guest(http, "Asha")
    _, bilal = guest(http, "Bilal")
    tokens.add(asha, bilal)
    invited = _create(http, OPERATOR, [{"name": "Asha R.", "external_id": asha_id}, {"open": True}], tokens)
    (notice,) = [n for n in _feed(http, asha) if n["data"]["game_id"] == invited]
    assert notice["kind"] == "invited"
    assert notice["data"] == {"game_id": invited, "game_type": GAME, "seat": 0, "host": ""}
    assert http.get(f"/v1/games/{invited}", headers=auth(asha)).json()["viewer_seat"] == 0  # hers, no join needed
    _join(http, invited, bilal, tokens)  # the last seat: the game starts
    assert _kinds(_feed(http, asha), invited)[:2] == ["invited", "game_started"]
    assert _kinds(_feed(http, bilal), invited)[0] == "game_started"
    assert http.post(f"/v1/games/{invited}/resign", headers=auth(bilal)).status_code == 200
    for token, seat, place in ((asha, 0, 1), (bilal, 1, 2)):
        (finished,) = _finished(_feed(http, token), invited)
        assert finished["status"] == "finished" and finished["seat"] == seat
        assert finished["result"]["ranking"][seat] == place
    mine = _create(http, asha, [{"me": True}, {"open": True}], tokens)
    assert _kinds(_feed(http, asha), mine) == []  # nobody invites themselves
    declined = _create(http, OPERATOR, [{"open": True}, {"name": "Asha", "external_id": asha_id}], tokens)
    assert _kinds(_feed(http, asha), declined) == ["invited"]
    left = http.post(f"/v1/games/{declined}/leave", headers=auth(asha))  # her token gives the seat up
    assert left.status_code == 200 and left.json()["seats"][1]["open"], left.text


def test_a_host_start_tells_every_seated_player(http: httpx.Client) -> None:
    tokens = Tokens()
    _, asha = guest(http, "Asha")
    _, bilal = guest(http, "Bilal")
    body = {
        "game_type": GAME,
        "players": [{"me": True}, {"open": True}, {"open": True}],
        "options": {"start_player": 1},
    }
    created = http.post("/v1/games", json=body, headers=auth(asha)).json()
    tokens.add(created["host_token"], created["seats"][0]["token"])
    game_id = created["game_id"]
    _join(http, game_id, bilal, tokens)
    assert _kinds(_feed(http, asha), game_id) == [] and _kinds(_feed(http, bilal), game_id) == []
    started = http.post(f"/v1/games/{game_id}/start", headers=auth(created["host_token"]))
    assert started.status_code == 200, started.text
    assert [n["data"] for n in _feed(http, asha) if n["data"]["game_id"] == game_id] == [
        {"game_id": game_id, "game_type": GAME, "seat": 0}
    ]
    told = [(n["kind"], n["data"]["seat"]) for n in _feed(http, bilal) if n["data"]["game_id"] == game_id]
    assert told == [("game_started", 1), ("your_turn", 1)]


def test_a_game_played_to_its_end_tells_both_players(http: httpx.Client) -> None:
    _, asha = guest(http, "Asha")
    _, bilal = guest(http, "Bilal")
    tokens = Tokens()
    game_id = _create(http, asha, [{"me": True}, {"open": True}], tokens)
    _join(http, game_id, bilal, tokens)
    play_humans_to_end(http, game_id, {0: asha, 1: bilal}, _first)
    result = http.get(f"/v1/games/{game_id}").json()["result"]
    for token, seat in ((asha, 0), (bilal, 1)):
        kinds = _kinds(_feed(http, token), game_id)
        assert kinds[0] == "game_started" and kinds[-1] == "game_finished" and kinds.count("game_finished") == 1
        (finished,) = _finished(_feed(http, token), game_id)
        assert finished == {"game_id": game_id, "game_type": GAME, "seat": seat, "status": "finished", "result": result}


def test_an_aborted_game_tells_its_players(http: httpx.Client) -> None:
    tokens = Tokens()
    _, asha = guest(http, "Asha")
    _, bilal = guest(http, "Bilal")
    body = {"game_type": GAME, "players": [{"me": True}, {"open": True}]}
    waiting = http.post("/v1/games", json=body, headers=auth(asha)).json()
    tokens.add(waiting["host_token"], waiting["seats"][0]["token"])
    aborted = http.post(f"/v1/games/{waiting['game_id']}/abort", json={}, headers=auth(waiting["host_token"]))
    assert aborted.status_code == 200, aborted.text
    active = _create(http, asha, [{"me": True}, {"open": True}], tokens)
    _join(http, active, bilal, tokens)
    assert http.post(f"/v1/games/{active}/abort", json={"reason": "test"}, headers=auth(OPERATOR)).status_code == 200
    ended = [n["data"] for n in _feed(http, asha) + _feed(http, bilal) if n["kind"] == "game_finished"]
    told = {(data["game_id"], data["seat"]): data for data in ended}
    for key in ((waiting["game_id"], 0), (active, 0), (active, 1)):
        assert told[key]["status"] == "aborted" and "result" not in told[key], key


def test_resuming_with_last_event_id_loses_and_repeats_nothing(http: httpx.Client) -> None:
    tokens = Tokens()
    _, asha = guest(http, "Asha")
    _, bilal = guest(http, "Bilal")
    first = _create(http, asha, [{"me": True}, {"open": True}], tokens, options={"start_player": 1})
    _join(http, first, bilal, tokens)  # Asha: game_started
    while 0 not in _to_act(http, first):
        _move(http, first, bilal)  # Asha: your_turn
    head, _ = _read(http, auth(asha), lambda seen: len(seen) == 1)
    assert [n["kind"] for n in head] == ["game_started"]
    second = _create(http, asha, [{"me": True}, {"open": True}], tokens, options={"start_player": 0})
    _join(http, second, bilal, tokens)  # while Asha is away: game_started and your_turn
    missed = _feed(http, asha)[1:]
    assert [n["kind"] for n in missed] == ["your_turn", "game_started", "your_turn"]

    def caught_up(seen: list[Notice]) -> bool:
        if len(seen) == len(missed):  # everything missed came: something new happens, live
            assert http.post(f"/v1/games/{second}/resign", headers=auth(bilal)).status_code == 200
        return any(n["kind"] == "game_finished" for n in seen)

    rest, _ = _read(http, {**auth(asha), "Last-Event-ID": head[0]["id"]}, caught_up)
    assert rest[: len(missed)] == missed
    assert [n["kind"] for n in rest[len(missed) :]] == ["game_finished"]
    whole = head + rest
    assert whole == _feed(http, asha) and len({n["id"] for n in whole}) == len(whole)
    after, _ = _read(http, {**auth(asha), "Last-Event-ID": rest[-2]["id"]}, lambda seen: len(seen) == 1)
    assert after == rest[-1:]
    for cursor in ("nonsense", "99999999999999999999-0"):  # not an id; past what a stream id holds
        assert_problem(http.get("/v1/me/events", headers={**auth(asha), "Last-Event-ID": cursor}), 400, "bad_after")


def test_a_ticket_only_reads_and_expires(http: httpx.Client, issuer: Issuer, redis_url: str) -> None:
    tokens = Tokens()
    _, asha = guest(http, "Asha")
    answer = http.post("/v1/me/stream-tickets", headers=auth(asha))
    assert answer.status_code == 201, answer.text
    ticket = answer.json()["ticket"]
    tokens.add(asha, ticket)
    with Redis.from_url(redis_url) as redis:
        assert 0 < redis.ttl(ticket_key(ticket)) <= TICKET_TTL_SECONDS
    game_id = _create(http, asha, [{"me": True}, {"open": True}], tokens)
    body = {"game_type": GAME, "players": [{"me": True}, {"open": True}]}
    unauthenticated = (401, "unauthenticated")
    refused = [  # a ticket is no bearer anywhere: it is neither a player token nor a seat's
        (http.get("/v1/me", headers=auth(ticket)), unauthenticated),
        (http.get("/v1/me/games", headers=auth(ticket)), unauthenticated),
        (http.post("/v1/games", json=body, headers=auth(ticket)), (403, "api_key_required")),
        (http.post("/v1/me/stream-tickets", headers=auth(ticket)), unauthenticated),
        (http.post(f"/v1/games/{game_id}/leave", headers=auth(ticket)), unauthenticated),
        (http.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(ticket)), unauthenticated),
        (http.post("/v1/sessions/refresh", headers=auth(ticket)), unauthenticated),
        (http.get("/v1/me/events", headers=auth(ticket)), unauthenticated),
    ]
    for response, (status, code) in refused:
        assert_problem(response, status, code)
    assert http.get(f"/v1/games/{game_id}/events", params={"ticket": ticket}).status_code == 401  # not a game's
    game_ticket = http.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(asha)).json()["ticket"]
    tokens.add(game_ticket)
    assert_problem(http.get("/v1/me/events", params={"ticket": game_ticket}), 401, "invalid_ticket")  # nor a player's
    assert [n["data"]["game_id"] for n in _feed_by_ticket(http, ticket)] == []  # a waiting game of her own: no notice
    # A ticket never outlives the token it was made with: one from a token valid two more seconds.
    short = issuer.token(issuer.keys[0], sub="brief", exp=int(time.time()) + 2)
    brief = http.post("/v1/me/stream-tickets", headers=auth(short)).json()["ticket"]
    tokens.add(brief)
    deadline = time.monotonic() + 30
    while (opened := http.get("/v1/me/events", params={"ticket": brief})).status_code == 200:
        assert time.monotonic() < deadline, "the ticket outlived its token"
        time.sleep(0.2)
    assert_problem(opened, 401, "invalid_ticket")


def _feed_by_ticket(http: httpx.Client, ticket: str) -> list[Notice]:
    answer = http.get("/v1/me/events", params={"ticket": ticket})
    assert answer.status_code == 200, answer.text
    found: list[Notice] = answer.json()
    return found


def test_a_players_stream_carries_their_notices_only_and_nothing_hidden(http: httpx.Client) -> None:
    tokens = Tokens()
    players = {name: guest(http, name) for name in ("Asha", "Bilal", "Chandra")}
    tokens.add(*(token for _, token in players.values()))
    (asha_id, asha), (bilal_id, bilal), (chandra_id, chandra) = players.values()
    theirs = _create(http, asha, [{"me": True}, {"open": True}], tokens, options={"start_player": 0})
    _join(http, theirs, bilal, tokens)
    for _ in range(3):
        seat = _to_act(http, theirs)[0]
        _move(http, theirs, (asha, bilal)[seat])
    hers = _create(http, chandra, [{"me": True}, {"open": True}], tokens, options={"start_player": 0})
    _join(http, hers, bilal, tokens)
    ticket = http.post("/v1/me/stream-tickets", headers=auth(chandra)).json()["ticket"]
    tokens.add(ticket)
    live, raw = _read(http, {}, lambda seen: any(n["kind"] == "your_turn" for n in seen), ticket=ticket)
    assert {n["data"]["game_id"] for n in live} == {hers}
    assert all(n["data"]["seat"] == 0 for n in live)
    seats = {asha: {theirs: 0}, bilal: {theirs: 1, hers: 1}, chandra: {hers: 0}}
    for token, games in seats.items():
        feed = _feed(http, token)
        assert {n["data"]["game_id"] for n in feed} == set(games)
        for notice in feed:
            assert set(notice["data"]) <= NOTICE_FIELDS, notice
            assert notice["data"]["seat"] == games[notice["data"]["game_id"]], notice
        text = json.dumps(feed) + raw
        assert not [t for t in tokens.all if t in text], "a credential in a notice"
        assert not [p for p in (asha_id, bilal_id, chandra_id) if p in text], "a notice names players"


def test_a_stream_ends_when_its_players_token_expires(http: httpx.Client, issuer: Issuer) -> None:
    short = issuer.token(issuer.keys[0], sub="leaving", exp=int(time.time()) + 3)
    ticket = http.post("/v1/me/stream-tickets", headers=auth(short)).json()["ticket"]
    secrets.remember(ticket)
    for headers, params in (({}, {"ticket": ticket}), (auth(short), {})):
        with http.stream("GET", "/v1/me/events", params=params, headers={**SSE, **headers}) as sse:
            assert sse.status_code == 200
            events = [message.get("event") for message in sse_events(sse)]
        assert events == ["end"]  # nothing to tell: the stream ends by itself once the token has expired


def test_the_json_feed_holds_every_notice_past_a_hundred(http: httpx.Client) -> None:
    tokens = Tokens()
    asha_id, asha = guest(http, "Asha")
    seats = [{"name": "Asha", "external_id": asha_id}, {"open": True, "invite": "stream-test"}]
    # Private: off the public listings other tests page through; aborted once read.
    invitations = [_create(http, OPERATOR, seats, tokens, visibility="private") for _ in range(130)]
    try:
        feed = _feed(http, asha)
        assert [n["data"]["game_id"] for n in feed] == invitations
        live, _ = _read(http, auth(asha), lambda seen: len(seen) == len(invitations))
        assert [n["data"]["game_id"] for n in live] == invitations
    finally:
        for game_id in invitations:
            assert http.post(f"/v1/games/{game_id}/abort", json={}, headers=auth(OPERATOR)).status_code == 200
