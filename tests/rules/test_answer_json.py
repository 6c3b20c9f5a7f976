"""A move's REST answer printed whole by the rules service is what rendering its packed answer prints.

``RenderedRules.SubmitMoves`` prints the whole answer of ``POST /v1/games/{id}/moves`` for a gateway
that asks (``callmeta.PRINT_ANSWER``, ``RenderedSubmit.answer_json``), and the gateway answers those
bytes as they come (:mod:`services.common.answerjson`).  Compared here byte for byte with
``orjson.dumps(protojson.to_dict(answer))`` of the answer packed: in process, on every game's
positions for every viewer with its events, in the shapes an answer takes (to act or not, ended,
no events, a kept answer with both); the printer's field list against the message's; and over REST
on every game, with and without ``?include=legal_moves``, against the plain gRPC answer of the same
keyed move; and the call's answer for gateways from before the field (unchanged).
"""

from __future__ import annotations

import uuid
from typing import Any

import grpc
import httpx
import orjson
import pytest

from bench.engine_cases import random_position
from chaiwala.v1 import rendered_pb2_grpc, rules_pb2, rules_pb2_grpc
from services.common import dictrender, protojson
from services.common.answerjson import FIELDS, answer_json
from services.common.callmeta import PRINT_ANSWER, PRINT_EVENTS
from services.common.registry import available_game_types, engine_for
from services.games.records import LogEntry
from services.rules.narrator import Narrator
from tests.support.client import auth, create_game

GAMES = available_game_types()


def test_the_printer_knows_every_field_the_rules_service_sets() -> None:
    fields = sorted(rules_pb2.SubmitMovesResponse.DESCRIPTOR.fields, key=lambda field: field.number)
    # legal_moves is the gateway's own (never set by the rules service): the printer sends it through the message.
    assert tuple(field.name for field in fields if field.name != "legal_moves") == FIELDS


def _answers(game: str, viewer: int | None, moves: int, seed: int) -> list[tuple[Any, bytes, bytes]]:
    """Answers of one position as the rules service builds them: packed (the kept or plain form)
    beside the seat's state and events printed, in each shape an answer takes."""
    engine = engine_for(game)
    narrator = Narrator(engine)
    match, events = random_position(engine, engine.min_players, moves, seed)
    view = engine.view(match.state, viewer)
    state_json = orjson.dumps(dictrender.payload(game, "State", view))
    entry = LogEntry(0, "", None, events, hash="ab" * 32, status="active", to_act=match.to_act(), version=moves + 1)
    words = ([f"P{seat}" for seat in range(engine.min_players)], "en")
    shapes = (
        (moves + 1, "active", match.to_act(), entry),
        (moves + 1, "finished", [], entry),
        (moves + 1, "active", [0, 1], LogEntry(0, "", None, [], hash="cd" * 32, version=moves + 1)),
        (0, "", [], entry),  # every field at its default but the state
    )
    out = []
    for version, status, to_act, shown in shapes:
        answer = rules_pb2.SubmitMovesResponse(version=version, status=status, to_act=to_act)
        answer.state.CopyFrom(protojson.pack_engine(game, "State", view))
        answer.events.extend(narrator.entry_messages(shown, viewer, words=words))
        out.append((answer, state_json, orjson.dumps(narrator.entry_json(shown, viewer, words=words))))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_the_whole_answer_prints_as_the_packed_answer_renders(game: str) -> None:
    engine = engine_for(game)
    for moves, seed in ((1, 2), (40, 3), (150, 4)):
        for viewer in (None, *range(engine.min_players)):
            for packed, state_json, events_json in _answers(game, viewer, moves, seed):
                expected = orjson.dumps(protojson.to_dict(packed))
                kept = rules_pb2.SubmitMovesResponse()
                kept.CopyFrom(packed)
                assert answer_json(packed) == expected  # a retried key's answer, kept whole
                assert answer_json(packed, state_json, events_json) == expected, (moves, viewer)  # a kept answer
                assert packed == kept  # the caller's answer is left as it was
                printed = rules_pb2.SubmitMovesResponse(version=packed.version, status=packed.status,
                                                        to_act=packed.to_act)  # fmt: skip
                printed.state.SetInParent()
                assert answer_json(printed, state_json, events_json) == expected  # the common answer
                del packed.events[:]
                packed.events.extend(kept.events)
                packed.state.SetInParent()  # a rules service from before events_json: events packed
                assert answer_json(packed, state_json) == expected
                with_legal = rules_pb2.SubmitMovesResponse()
                with_legal.CopyFrom(kept)
                with_legal.legal_moves.version = 3
                assert answer_json(with_legal, state_json, events_json) == orjson.dumps(protojson.to_dict(with_legal))


def _move(client: httpx.Client, game_id: str, token: str) -> tuple[dict[str, Any], int]:
    listing = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(token)).json()
    return listing["moves"][-1], listing["version"]


def _plain(stack: dict[str, Any], game: str, game_id: str, posted: tuple[dict[str, Any], int], token: str,
           key: str) -> Any:  # fmt: skip
    """The keyed move's answer again, over plain gRPC: the kept answer, packed."""
    move, version = posted
    fields = {name: value for name, value in move.items() if name not in ("text", "costs", "@type")}
    request = rules_pb2.SubmitMovesRequest(game_id=game_id, idempotency_key=key, expected_version=version,
                                           moves=[protojson.pack(game, "Move", fields)])  # fmt: skip
    with grpc.insecure_channel(stack["services"][game].address) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        return stub.SubmitMoves(request, metadata=(("authorization", f"Bearer {token}"),), timeout=30)


@pytest.mark.parametrize("game", GAMES)
def test_the_rest_answer_is_the_plain_answer_rendered(game: str, stack: dict[str, Any]) -> None:
    engine = engine_for(game)
    players = [{"name": f"p{seat}"} for seat in range(engine.min_players)]
    with httpx.Client(base_url=stack["gateway"].url, timeout=30) as client:
        created = create_game(client, game, players, seed=31)
        game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
        for include in (False, True, False):
            seat = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()["to_act"][0]
            move, version = _move(client, game_id, tokens[seat])
            key = f"k-{uuid.uuid4().hex}"
            params = {"include": "legal_moves"} if include else {}
            posted = client.post(f"/v1/games/{game_id}/moves", json={"move": move, "expected_version": version},
                                 headers={**auth(tokens[seat]), "idempotency-key": key}, params=params)  # fmt: skip
            assert posted.status_code == 200, posted.text
            assert posted.headers["content-type"] == "application/json"
            kept = orjson.dumps(protojson.to_dict(_plain(stack, game, game_id, (move, version), tokens[seat], key)))
            if not include:
                assert posted.content == kept
                continue
            listing = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).content
            assert posted.content == kept[:-1] + b',"legal_moves":' + listing + b"}"
            assert orjson.loads(posted.content)["legal_moves"]["version"] == orjson.loads(kept)["version"]


def test_the_call_prints_the_whole_answer_only_when_asked(stack: dict[str, Any]) -> None:
    """With ``PRINT_ANSWER`` the call's answer is the version, the status and the printed body;
    without it (a gateway from before the field), the answer message with its state printed apart."""
    with httpx.Client(base_url=stack["gateway"].url, timeout=30) as client:
        created = create_game(client, "darjeeling", [{"name": "a"}, {"name": "b"}], seed=8)
        game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
        for asks in ((PRINT_EVENTS,), (PRINT_EVENTS, PRINT_ANSWER), (PRINT_ANSWER,)):
            seat = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()["to_act"][0]
            move, version = _move(client, game_id, tokens[seat])
            fields = {name: value for name, value in move.items() if name not in ("text", "costs", "@type")}
            packed = protojson.pack("darjeeling", "Move", fields)
            request = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[packed], expected_version=version)
            metadata = (("authorization", f"Bearer {tokens[seat]}"), *((entry, "1") for entry in asks))
            with grpc.insecure_channel(stack["services"]["darjeeling"].address) as channel:
                stub = rendered_pb2_grpc.RenderedRulesStub(channel)
                rendered = stub.SubmitMoves(request, metadata=metadata, timeout=30)
            if PRINT_ANSWER not in asks:
                assert rendered.answer_json == b"" and rendered.state_json and rendered.events_json
                assert rendered.answer.to_act and rendered.answer.HasField("state")
                continue
            assert rendered.state_json == rendered.events_json == b""
            small = rules_pb2.SubmitMovesResponse(version=version + 1, status="active")
            assert rendered.answer == small
            body = orjson.loads(rendered.answer_json)
            assert (body["version"], body["status"]) == (version + 1, "active")
            assert body["state"]["@type"].endswith(".State") and body["events"] and body["to_act"]
            assert body["events"][0]["text"]  # the events printed, words and all
