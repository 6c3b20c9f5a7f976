"""The lean move path keeps the gateway's behaviour: batched limits, the hot routes, pass-through JSON.

* Limits: all of a request's windows are charged in one Redis round trip; the outcome is the
  one checking them in turn gives (same refusals, and windows after a refusal are not charged),
  checked against the library's own in-memory limiter and by reading the windows back.
* Hot routes (:mod:`gateway.hotpath`): the two move-path routes answer, refuse and count exactly
  as through FastAPI's router (their metrics keep the route template).
* Pass-through state (:mod:`services.common.dictrender`, ``SubmitMovesResponse.state_json``): the
  JSON rendered from the engine's dict is byte for byte what rendering the packed state prints, on
  every game's states (every viewer), events, legal moves and options, and over REST (a keyed
  move's first answer, passed through, equals its retry's, rendered from the packed state).
  Maps too (Tea & Rum's states): in the order the message prints them, which is this process's.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import orjson
import pytest
from prometheus_client import CollectorRegistry

from bench.engine_cases import random_position
from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from gateway.limits import Limiter, LimitMetrics
from gateway.settings import GatewaySettings
from services.common import dictrender, protojson, protorender
from services.common.registry import engine_for
from tests.support.client import assert_problem, auth, create_game
from tests.support.stack import Gateway

GAME = "darjeeling"


def _scope(token: str, path: str = "/v1/games", method: str = "GET") -> dict[str, Any]:
    headers = [(b"authorization", f"Bearer {token}".encode())] if token else []
    return {"type": "http", "method": method, "path": path, "headers": headers, "client": ("10.0.0.7", 5000)}


def _limiter(redis_url: str, **limits: str) -> Limiter:
    settings = GatewaySettings(redis_url=redis_url, **limits)
    return Limiter(settings, LimitMetrics(CollectorRegistry(), settings))


async def _outcomes(limiter: Limiter, scopes: list[dict[str, Any]]) -> list[str]:
    refusals = [await limiter.check(scope) for scope in scopes]
    return [refusal.name if refusal is not None else "ok" for refusal in refusals]


def test_batched_limits_refuse_like_the_library_checking_in_turn(redis_url: str) -> None:
    # Fresh keys per run: the windows live in the session's Redis.
    tokens = [f"tok-{uuid.uuid4().hex}" for _ in range(2)]
    limits = {"rate_limit_per_token": "3/minute", "rate_limit_per_address": "6/minute",
              "create_limit": "2/minute;4/hour"}  # fmt: skip
    address = f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.9"
    plan = [(0, "POST"), (0, "POST"), (0, "POST"), (0, "GET"), (1, "GET"), (1, "GET"), (1, "GET")]
    scopes = []
    for token, method in plan:
        scope = _scope(tokens[token], method=method)
        scope["client"] = (address, 5000)
        scopes.append(scope)
    batched = asyncio.run(_outcomes(_limiter(redis_url, **limits), scopes))
    in_turn = asyncio.run(_outcomes(_limiter("", **limits), scopes))  # the library's memory storage, hit by hit
    assert batched == in_turn == ["ok", "ok", "create_quota", "rate_per_token", "ok", "ok", "rate_per_address"]


def test_windows_after_a_refusal_are_not_charged(redis_url: str) -> None:
    token = f"tok-{uuid.uuid4().hex}"
    limiter = _limiter(redis_url, rate_limit_per_token="100/minute", rate_limit_per_address="2/minute")
    address = f"10.9.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"

    async def play() -> tuple[list[str], int]:
        scopes = [_scope(token) for _ in range(5)]
        for scope in scopes:
            scope["client"] = (address, 5000)
        outcomes = await _outcomes(limiter, scopes)
        from gateway.limits import _credential  # the credential key the limiter files the token under

        item = limiter.rates["rate_per_token"][0]
        stats = await limiter.strategy.get_window_stats(item, "rate_per_token", f"cred:{_credential(scopes[0])}")
        return outcomes, item.amount - stats.remaining

    outcomes, charged = asyncio.run(play())
    assert outcomes == ["ok", "ok", "rate_per_address", "rate_per_address", "rate_per_address"]
    assert charged == 2  # the three refused requests took nothing from the token's window


@pytest.fixture(scope="module")
def counted(stack: dict[str, Any]) -> Iterator[Gateway]:
    """A gateway of its own, so its request counters start at zero."""
    addresses = {game: svc.address for game, svc in stack["services"].items()}
    gateway = Gateway(addresses)
    try:
        yield gateway
    finally:
        gateway.stop()


def _count(url: str, method: str, route: str, status: str) -> float:
    wanted = f'chaiwala_http_requests_total{{method="{method}",route="{route}",status="{status}"}}'
    for line in httpx.get(f"{url}/metrics", timeout=10).text.splitlines():
        if line.startswith(wanted):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_hot_routes_answer_refuse_and_count_as_before(counted: Gateway) -> None:
    with httpx.Client(base_url=counted.url, timeout=30) as client:
        created = create_game(client, GAME, [{"name": "a"}, {"name": "b"}], seed=3)
        game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
        game = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()
        seat = game["to_act"][0]
        listing = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat]))
        assert listing.status_code == 200 and listing.headers["content-type"] == "application/json"
        moves = listing.json()["moves"]
        assert moves and all(isinstance(move["text"], str) for move in moves)
        body = {"move": moves[0], "expected_version": listing.json()["version"]}
        played = client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat]))
        assert played.status_code == 200 and played.json()["version"] == body["expected_version"] + 1
        # Refusals: problem+json with their codes, from the same handlers.
        assert_problem(client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat])), 409,
                       "version_conflict")  # fmt: skip
        assert_problem(client.get("/v1/games/nosuchgame-00/legal-moves", headers=auth(tokens[0])), 404,
                       "game_not_found")  # fmt: skip
        assert_problem(client.get(f"/v1/games/{game_id}/legal-moves", headers={"authorization": "Basic x"}), 401,
                       "unauthenticated")  # fmt: skip
        bad = client.post(f"/v1/games/{game_id}/moves", content=b"{", headers={**auth(tokens[seat]),
                          "content-type": "application/json"})  # fmt: skip
        assert bad.status_code == 400 and bad.headers["content-type"] == "application/problem+json"
        # Other methods on the same paths are FastAPI's: 405 with Allow.
        refused = client.put(f"/v1/games/{game_id}/moves", json=body)
        assert_problem(refused, 405, "method_not_allowed")
        assert "POST" in refused.headers["allow"]
    moves_route, listing_route = "/v1/games/{game_id}/moves", "/v1/games/{game_id}/legal-moves"
    assert _count(counted.url, "POST", moves_route, "200") == 1
    assert _count(counted.url, "POST", moves_route, "409") == 1
    assert _count(counted.url, "GET", listing_route, "200") == 1
    assert _count(counted.url, "GET", listing_route, "404") == 1
    assert _count(counted.url, "GET", listing_route, "401") == 1


GAMES = {"darjeeling": 4, "alubari": 3, "tea_rum": 2, "india_rails": 3}


def _payloads(game: str, players: int, moves: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    engine = engine_for(game)
    match, events = random_position(engine, players, moves, seed)
    found: list[tuple[str, dict[str, Any]]] = [("State", engine.view(match.state, v)) for v in (None, *range(players))]
    found += [("Event", event) for event in events]
    for seat in match.to_act():
        found += [("Move", move) for move in engine.legal_moves(match.state, seat)[:50]]
    return [*found, ("Options", engine.default_options())]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_engine_dicts_render_byte_for_byte_as_their_packed_messages(game: str) -> None:
    for moves, seed in ((0, 1), (40, 3), (150, 4)):
        for name, data in _payloads(game, GAMES[game], moves, seed):
            expected = orjson.dumps(protorender.to_dict(protojson.pack_engine(game, name, data)))
            assert orjson.dumps(dictrender.payload(game, name, data)) == expected, (game, name)


def _through_message(data: dict[str, Any]) -> bytes:
    return orjson.dumps(protorender.to_dict(rules_pb2.Game(**data)))


def test_what_the_plan_is_unsure_of_goes_through_the_message() -> None:
    plan = dictrender._plan(rules_pb2.Game.DESCRIPTOR)
    # Defaults left out or given, an optional set to its default, a nested message, presence.
    for data in ({}, {"game_id": "g", "version": 0, "to_act": []}, {"viewer_seat": 0, "status": "active"},
                 {"result": {"scores": [3, 0.5], "winners": [1]}, "version": 7, "log_head": ""}):  # fmt: skip
        assert orjson.dumps(plan(data)) == _through_message(data)
    # A map of strings to scalars (the clock's): planned.
    clocked: dict[str, Any] = {"clock": {"remaining_s": {"0": 1.0}}}
    assert orjson.dumps(plan(clocked)) == _through_message(clocked)
    # Unsure: an unknown key, a wrong type, -0.0, a map key that is not a string, a map of messages.
    unsure: list[dict[str, Any]] = [{"nope": 1}, {"version": "7"}, {"version": True}, {"result": {"scores": [-0.0]}},
                                    {"clock": {"remaining_s": {0: 1.0}}}, {"clock": {"remaining_s": ["0"]}},
                                    {"clock": {"remaining_s": {"0": "1"}}}]  # fmt: skip
    for data in unsure:
        with pytest.raises(dictrender.Unplanned):
            plan(data)
    with pytest.raises(dictrender.Unplanned):
        dictrender._plan(rules_pb2.GameType.DESCRIPTOR)({"terms": {"stage": {"words": {"PLACE": "placing"}}}})


def _requirement_maps(data: Any) -> Iterator[dict[str, Any]]:
    """Every ``requirements`` map in a Tea & Rum state's dict."""
    if isinstance(data, dict):
        if isinstance(data.get("requirements"), dict):
            yield data["requirements"]
        for value in data.values():
            yield from _requirement_maps(value)
    elif isinstance(data, list):
        for item in data:
            yield from _requirement_maps(item)


def test_tea_rum_states_with_maps_take_the_fast_path() -> None:
    """``AllegianceSpace.requirements`` (a map) no longer sends a Tea & Rum state through the message."""
    plan = dictrender._plan(protojson.message_class("tea_rum", "State").DESCRIPTOR)
    several = 0
    for moves, seed in ((0, 1), (40, 3), (150, 4), (90, 8)):
        match, _ = random_position(engine_for("tea_rum"), 2, moves, seed)
        for viewer in (None, 0, 1):
            view = engine_for("tea_rum").view(match.state, viewer)
            several += sum(len(found) > 1 for found in _requirement_maps(view))
            expected = protorender.to_dict(protojson.pack_engine("tea_rum", "State", view))
            planned = {"@type": expected["@type"], **plan(view)}  # raises Unplanned if it falls back
            assert orjson.dumps(planned) == orjson.dumps(expected), (moves, seed, viewer)
    assert several  # maps of two keys and more, whose order is the message's (not the dict's, nor sorted)


def test_a_map_prints_in_the_message_order_whatever_order_its_keys_came_in() -> None:
    """The order a map prints in depends on the order its keys went in (and the process): every
    order of every subset drawn here prints as the message prints it."""
    keys = ["income_coins", "income_wheat", "income_wood", "income_ore", "income_barrel", "income_tobacco",
            "income_cannon", "governor_blue", "ship_discount", "build_discount", "captain_discount",
            "warehouse_spaces", "contract_stars"]  # fmt: skip
    draw = random.Random(35)
    name = "BuildingStock"
    assert protorender.is_map(protojson.message_class("tea_rum", name).DESCRIPTOR.fields_by_name["continuous"])
    for _ in range(300):
        chosen = draw.sample(keys, draw.randint(2, len(keys)))
        data = {"continuous": {key: draw.randint(-3, 9) for key in chosen}}
        expected = orjson.dumps(protorender.to_dict(protojson.pack_engine("tea_rum", name, data)))
        assert orjson.dumps(dictrender.payload("tea_rum", name, data)) == expected, chosen


def test_the_passed_through_state_is_what_rendering_it_prints(stack: dict[str, Any]) -> None:
    """A keyed move: its first answer carries the passed-through state, the retry the kept (packed) one."""
    with httpx.Client(base_url=stack["gateway"].url, timeout=30) as client:
        created = create_game(client, GAME, [{"name": "a"}, {"name": "b"}], seed=11)
        game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
        seat = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()["to_act"][0]
        headers = {**auth(tokens[seat]), "idempotency-key": f"k-{uuid.uuid4().hex}"}
        move = client.get(f"/v1/games/{game_id}/legal-moves", headers=headers).json()["moves"][0]
        first = client.post(f"/v1/games/{game_id}/moves", json={"move": move}, headers=headers)
        retried = client.post(f"/v1/games/{game_id}/moves", json={"move": move}, headers=headers)
    assert first.status_code == retried.status_code == 200
    assert first.content == retried.content  # pass-through bytes == the packed state rendered by the gateway
    assert first.json()["state"]["@type"].endswith(".State")
    address = stack["services"][GAME].address
    with grpc.insecure_channel(address) as channel:
        request = rules_pb2.SubmitMovesRequest(game_id=game_id, idempotency_key=headers["idempotency-key"])
        fields = {key: value for key, value in move.items() if key not in ("text", "costs", "@type")}
        request.moves.append(protojson.pack(GAME, "Move", fields))
        answer = rules_pb2_grpc.RulesServiceStub(channel).SubmitMoves(
            request, metadata=(("authorization", f"Bearer {tokens[seat]}"),), timeout=30
        )
    assert orjson.dumps(protorender.to_dict(answer)) == first.content
