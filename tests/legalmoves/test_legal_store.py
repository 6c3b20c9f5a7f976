"""GET legal-moves answered from what the commit stored (services.legalmoves), through the real stack.

* Every stored answer a gateway serves is byte for byte the rules service's own answer at that
  moment (asked over gRPC right after), for the seat to act and the seat waiting, move after move,
  and the gateway counts it as stored (no rules call).
* Two gateways over one Redis: a move posted through one is seen at once through the other; an
  abort, or a metadata change no commit made (players renamed, as a lobby writer would), makes the
  stored answers unusable at once (the fingerprint), and a commit whose players changed under it
  stores nothing (the identity).
* A seat never gets another seat's answer; a spectator, an unknown token and another language are
  answered by the rules service as before; version conflicts and keyed retries answer as before.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import orjson
import pytest
from redis import asyncio as aioredis

from bench.engine_cases import random_position
from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common.registry import engine_for
from services.common.store import hash_token
from services.filing.keys import game_keys
from services.games.records import GameMeta, Step
from services.games.store import GameStore
from services.legalmoves.entries import after_commit, legal_answer
from services.legalmoves.fingerprint import LegalEntries, entry_field, legal_key
from services.legalmoves.render import listing_json
from services.rules.narrator import Narrator
from tests.support.client import assert_problem, auth, two_humans
from tests.support.stack import Gateway

GAME = "darjeeling"


@pytest.fixture(scope="module")
def gateways(stack: dict[str, Any], redis_url: str) -> Iterator[tuple[Gateway, Gateway]]:
    """The stack's gateway and a second one over the same Redis and rules services."""
    first = stack["gateway"]
    assert isinstance(first, Gateway)
    second = Gateway({game: svc.address for game, svc in stack["services"].items()}, redis_url=redis_url,
                     create_limit="500/second;1000000/hour")  # fmt: skip
    yield first, second
    second.stop()


def _stored_count(gateway: Gateway) -> float:
    return float(gateway.app.state.legal_moves.stored._value.get())


def _rules_answer(stack: dict[str, Any], game_id: str, token: str, language: str = "") -> bytes:
    """What the rules service answers now (asked directly), rendered as the gateway renders it."""
    metadata = [("authorization", f"Bearer {token}")] + ([("accept-language", language)] if language else [])
    with grpc.insecure_channel(stack["services"][GAME].address) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        return listing_json(stub.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=game_id), metadata=metadata))


def _to_act(client: httpx.Client, game_id: str) -> tuple[int, int]:
    game = client.get(f"/v1/games/{game_id}").json()
    return game["to_act"][0], game["version"]


def _post(client: httpx.Client, game_id: str, token: str, listing: dict[str, Any], rng: random.Random) -> int:
    move = dict(rng.choice(listing["moves"]))
    move.pop("text", None)
    answer = client.post(f"/v1/games/{game_id}/moves", json={"move": move, "expected_version": listing["version"]},
                         headers=auth(token))  # fmt: skip
    assert answer.status_code == 200, answer.text
    return int(answer.json()["version"])


def _after_one_move(client: httpx.Client, seed: int, rng: random.Random) -> tuple[str, dict[int, str], int]:
    """A new two-seat game after its first move (so a commit stored answers), and the seat to act."""
    game_id, tokens = two_humans(client, GAME, seed=seed)
    seat, _ = _to_act(client, game_id)
    listing = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
    _post(client, game_id, tokens[seat], listing, rng)
    return game_id, tokens, _to_act(client, game_id)[0]


def _redis(redis_url: str, *commands: tuple[Any, ...]) -> list[Any]:
    async def run() -> list[Any]:
        client = aioredis.Redis.from_url(redis_url)
        try:
            return [await client.execute_command(*command) for command in commands]
        finally:
            await client.aclose()

    return asyncio.run(run())


def test_stored_answers_are_the_rules_answers_across_two_gateways(
    stack: dict[str, Any], gateways: tuple[Gateway, Gateway]
) -> None:
    rng = random.Random(5)
    urls = [gateway.url for gateway in gateways]
    with httpx.Client(base_url=urls[0]) as one, httpx.Client(base_url=urls[1]) as two:
        game_id, tokens = two_humans(one, GAME, seed=11)
        served = sum(_stored_count(g) for g in gateways)
        for step in range(10):
            poster, reader = (one, two) if step % 2 else (two, one)  # post through one, read through the other
            seat, version = _to_act(one, game_id)
            raw = reader.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat]))
            assert raw.status_code == 200 and raw.headers["content-type"] == "application/json"
            assert raw.content == _rules_answer(stack, game_id, tokens[seat])
            listing = raw.json()
            assert listing["version"] == version and listing["moves"]
            waiting = reader.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[1 - seat]))
            assert waiting.content == _rules_answer(stack, game_id, tokens[1 - seat])
            assert waiting.json()["version"] == version
            assert _post(poster, game_id, tokens[seat], listing, rng) > version
        # After the first move every GET (two per step) was a stored answer: no rules call.
        assert sum(_stored_count(g) for g in gateways) - served >= 2 * 9


def test_the_answer_is_read_in_the_limits_round_trip(gateways: tuple[Gateway, Gateway]) -> None:
    """The stack's gateway limits through Redis: the stored answer comes with the limits' pipeline,
    also right after Redis forgot every script (NOSCRIPT: both are loaded again)."""
    rng = random.Random(4)
    reader = gateways[0].app.state.legal_moves
    with httpx.Client(base_url=gateways[0].url) as client:
        game_id, tokens, seat = _after_one_move(client, 10, rng)
        url, headers = f"/v1/games/{game_id}/legal-moves", auth(tokens[seat])
        with_limits, alone = reader.read_with_limits._value.get(), reader.read_alone._value.get()
        first = client.get(url, headers=headers)
        _redis(gateways[0].settings.redis_url, ("SCRIPT", "FLUSH"))
        again = client.get(url, headers=headers)
        assert first.status_code == again.status_code == 200 and first.content == again.content
        assert reader.read_with_limits._value.get() == with_limits + 2
        assert reader.read_alone._value.get() == alone


def test_a_seat_never_gets_another_seats_answer(stack: dict[str, Any], gateways: tuple[Gateway, Gateway]) -> None:
    rng = random.Random(6)
    with httpx.Client(base_url=gateways[0].url) as client:
        game_id, tokens, seat = _after_one_move(client, 12, rng)
        mine = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
        theirs = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[1 - seat])).json()
        assert mine["moves"] and theirs["moves"] == []
        before = _stored_count(gateways[0])
        assert_problem(client.get(f"/v1/games/{game_id}/legal-moves"), 401)
        assert_problem(client.get(f"/v1/games/{game_id}/legal-moves", headers=auth("not-a-seat-token")), 401)
        assert_problem(client.get(f"/v1/games/{game_id}/legal-moves", headers={"Authorization": "Basic x"}), 401)
        assert _stored_count(gateways[0]) == before
    # Stored under each seat's own token hash, nothing else: a field no other bearer can name.
    fields = _redis(gateways[0].settings.redis_url, ("HKEYS", legal_key(game_id)))[0]
    expected = {b"fp", *(entry_field(hash_token(token), "en").encode() for token in tokens.values())}
    assert set(fields) == expected


def test_other_writers_and_languages_take_the_rules_call(
    stack: dict[str, Any], gateways: tuple[Gateway, Gateway]
) -> None:
    rng = random.Random(7)
    redis_url = gateways[0].settings.redis_url
    with httpx.Client(base_url=gateways[0].url) as client:
        game_id, tokens, seat = _after_one_move(client, 13, rng)
        url, headers = f"/v1/games/{game_id}/legal-moves", auth(tokens[seat])
        before = _stored_count(gateways[0])
        client.get(url, headers=headers)
        assert _stored_count(gateways[0]) == before + 1
        # Another language than the commit's: the rules service words it, as before.
        spanish = client.get(url, headers={**headers, "Accept-Language": "es"})
        assert spanish.content == _rules_answer(stack, game_id, tokens[seat], "es")
        assert _stored_count(gateways[0]) == before + 1
        # A metadata writer that is not a commit (here: a player renamed): never the stored answer.
        meta = game_keys(game_id)[0]
        players = orjson.loads(_redis(redis_url, ("HGET", meta, "players"))[0])
        players[0]["name"] = "Renamed"
        _redis(redis_url, ("HSET", meta, "players", orjson.dumps(players)))
        assert client.get(url, headers=headers).content == _rules_answer(stack, game_id, tokens[seat])
        assert _stored_count(gateways[0]) == before + 1
        # The next commit stores again, under the new metadata.
        listing = client.get(url, headers=headers).json()
        _post(client, game_id, tokens[seat], listing, rng)
        seat, _ = _to_act(client, game_id)
        client.get(url, headers=auth(tokens[seat]))
        assert _stored_count(gateways[0]) == before + 2
        # An abort (no commit of a move): the rules service answers, no moves.
        assert client.post(f"/v1/games/{game_id}/abort", json={"reason": "test"}).status_code == 200
        after_abort = client.get(url, headers=auth(tokens[seat]))
        assert after_abort.status_code == 200 and after_abort.json()["moves"] == []
        assert _stored_count(gateways[0]) == before + 2


def test_a_commit_stores_answers_only_under_the_identity_it_was_made_from(gateways: tuple[Gateway, Gateway]) -> None:
    """The commit script's identity check, on a real game: an empty commit at the current version
    with answers made from other players (a wrong identity) stores none; with the loaded one, it does."""
    redis_url = gateways[0].settings.redis_url
    with httpx.Client(base_url=gateways[0].url) as client:
        game_id, tokens = two_humans(client, GAME, seed=14)

    async def commit_with(identity: str) -> list[Any]:
        store = GameStore.from_url(redis_url)
        try:
            meta, snapshot = await store.load(game_id)
            field = entry_field(hash_token(tokens[0]), "en")
            legal = LegalEntries(identity or meta.identity, [(field, b'{"version":0}')])
            await store.commit(Step(game_id, meta.version, snapshot, meta.status, None, [], lifecycle=meta.lifecycle,
                                    previous_head=meta.log_head, legal=legal))  # fmt: skip
            return list(await store.redis.hgetall(legal_key(game_id)))
        finally:
            await store.close()

    assert asyncio.run(commit_with("made-from-other-players")) == []
    assert set(asyncio.run(commit_with(""))) == {b"fp", entry_field(hash_token(tokens[0]), "en").encode()}


def test_conflicts_and_keyed_retries_answer_as_before(gateways: tuple[Gateway, Gateway]) -> None:
    rng = random.Random(9)
    with httpx.Client(base_url=gateways[0].url) as one, httpx.Client(base_url=gateways[1].url) as two:
        game_id, tokens = two_humans(one, GAME, seed=15)
        seat, _ = _to_act(one, game_id)
        listing = one.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
        move = dict(rng.choice(listing["moves"]))
        move.pop("text")
        body = {"move": move, "expected_version": listing["version"]}
        headers = {**auth(tokens[seat]), "Idempotency-Key": "k-1"}
        first = one.post(f"/v1/games/{game_id}/moves", json=body, headers=headers)
        retry = two.post(f"/v1/games/{game_id}/moves", json=body, headers=headers)
        assert first.status_code == retry.status_code == 200 and first.json() == retry.json()
        stale = two.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat]))
        assert_problem(stale, 409)
        seat, version = _to_act(one, game_id)
        assert version > listing["version"]
        assert two.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()["version"] == version


def test_a_token_hash_two_seats_share_is_the_first_seats(redis_url: str) -> None:
    """Entrant tokens may repeat a hash; ``seat_of_token`` then reads the first seat, and so does
    the stored answer (the rules service's own answer for that bearer)."""
    engine = engine_for(GAME)
    narrator = Narrator(engine)
    match = random_position(engine, 2, 3, 4)[0]
    shared = hash_token("one-token-two-seats")
    meta = GameMeta(game_id=f"{GAME}-{'0' * 24}", game_type=GAME, seed=1, options={},
                    players=[{"name": "Asha"}, {"name": "Bilal"}], token_hashes=[shared, shared],
                    status="active", version=3, result=None)  # fmt: skip
    entries = after_commit(narrator, meta, [], match, 3, "en")
    assert meta.seat_of_token("one-token-two-seats") == 0
    first = listing_json(legal_answer(narrator, 3, match, 0, ["Asha", "Bilal"], "en"))
    assert entries.answers == [(entry_field(shared, "en"), first)]


def test_a_plain_grpc_move_stores_no_answers_and_the_get_asks_the_rules_service(
    stack: dict[str, Any], gateways: tuple[Gateway, Gateway]
) -> None:
    """``RulesService.SubmitMoves`` (a gRPC caller, who reads legal moves over gRPC) renders no REST
    answers: the commit leaves the game's answers empty, the next GET is the rules service's own
    answer, byte for byte, for both seats; the next move through the gateway stores them again."""
    rng = random.Random(16)
    redis_url = gateways[0].settings.redis_url
    with httpx.Client(base_url=gateways[0].url) as client:
        game_id, tokens, seat = _after_one_move(client, 17, rng)
        assert _redis(redis_url, ("HLEN", legal_key(game_id)))[0] == 3  # fp and both seats
        metadata = [("authorization", f"Bearer {tokens[seat]}")]
        with grpc.insecure_channel(stack["services"][GAME].address) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            listing = stub.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=game_id), metadata=metadata)
            move = rng.choice(list(listing.moves))
            request = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[move], expected_version=listing.version)
            answer = stub.SubmitMoves(request, metadata=metadata)
        assert answer.version > listing.version
        assert _redis(redis_url, ("EXISTS", legal_key(game_id)))[0] == 0
        before = _stored_count(gateways[0])
        seat, version = _to_act(client, game_id)
        for each in (seat, 1 - seat):
            raw = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[each]))
            assert raw.status_code == 200 and raw.content == _rules_answer(stack, game_id, tokens[each])
            assert raw.json()["version"] == version
        assert _stored_count(gateways[0]) == before
        _post(client, game_id, tokens[seat], client.get(f"/v1/games/{game_id}/legal-moves",
                                                       headers=auth(tokens[seat])).json(), rng)  # fmt: skip
        assert _redis(redis_url, ("HLEN", legal_key(game_id)))[0] == 3
