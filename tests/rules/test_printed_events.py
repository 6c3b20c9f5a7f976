"""A move's events printed in the rules service are what rendering their packed messages prints.

``RenderedRules.SubmitMoves`` sends the answer's events as JSON bytes (``events_json``) that the
gateway splices into its REST answer unparsed; before, they travelled packed and the gateway
rendered them (``protojson.to_dict`` of each ``GameEvent``).  Here the two are compared byte for
byte: in process, on every game's events after random moves, for every viewer, in both languages,
lifecycle entries and entries stored before they carried the turn; and over REST, on a move of
every game, the first answer of a keyed move (printed by the rules service) against its retry
(the kept answer, rendered by the gateway from packed events) and against the game's event list.
"""

from __future__ import annotations

import uuid
from typing import Any

import grpc
import httpx
import orjson
import pytest

from bench.engine_cases import random_position
from chaiwala.v1 import rendered_pb2_grpc, rules_pb2
from services.common import protojson
from services.common.callmeta import PRINT_EVENTS
from services.common.registry import available_game_types, engine_for
from services.common.runner import Match
from services.games.records import LogEntry
from services.rules.narrator import Narrator
from tests.support.client import auth, create_game
from tests.support.walks import random_steps

GAMES = available_game_types()


def _entries(game: str, players: int, seed: int, moves: int) -> list[LogEntry]:
    """The log entries of a random game's first ``moves`` moves, and lifecycle entries."""
    engine = engine_for(game)
    match = Match.start(engine, players, seed)
    entries = []
    for step, seat, move, events in random_steps(match, moves):
        # Every other entry as stored before entries carried the turn (no status, no seats to act).
        turn: dict[str, Any] = {"status": "active", "to_act": match.to_act()} if step % 2 else {}
        entries.append(LogEntry(seat, "", move, events, hash=f"{step:064x}", version=step + 1, **turn))
    resign = LogEntry(0, "", None, [], hash="ab" * 32, kind="resign", status="active", to_act=[1], version=moves + 1)
    entries.append(resign)
    entries.append(LogEntry(None, "", None, [], kind="start", status="active", to_act=[], version=moves + 2))
    return entries


@pytest.mark.parametrize("game", GAMES)
def test_printed_events_are_the_rendered_messages_byte_for_byte(game: str) -> None:
    engine = engine_for(game)
    narrator = Narrator(engine)
    players = engine.min_players + 1 if engine.max_players > engine.min_players else engine.min_players
    printed_events = 0
    for seed, moves in ((1, 30), (5, 120)):
        for entry in _entries(game, players, seed, moves):
            for viewer in (None, *range(players)):
                for language in ("en", "es"):
                    words = ([f"P{seat}" for seat in range(players)], language)
                    messages = narrator.entry_messages(entry, viewer, words=words)
                    expected = orjson.dumps([protojson.to_dict(message) for message in messages])
                    assert orjson.dumps(narrator.entry_json(entry, viewer, words=words)) == expected, (entry, viewer)
                    printed_events += len(messages)
    assert printed_events > 100


def test_a_position_s_last_events_print_alike_for_every_viewer() -> None:
    """The events of the last move of long games (hidden information redacted per viewer)."""
    for game in GAMES:
        engine = engine_for(game)
        narrator = Narrator(engine)
        match, events = random_position(engine, engine.min_players, 200, 9)
        entry = LogEntry(0, "", None, events, hash="cd" * 32, status="active", to_act=match.to_act(), version=201)
        for viewer in (None, *range(engine.min_players)):
            expected = [protojson.to_dict(message) for message in narrator.entry_messages(entry, viewer)]
            assert orjson.dumps(narrator.entry_json(entry, viewer)) == orjson.dumps(expected)


@pytest.mark.parametrize("game", GAMES)
def test_the_rest_move_answer_prints_its_events_as_the_packed_path_did(game: str, stack: dict[str, Any]) -> None:
    engine = engine_for(game)
    players = [{"name": f"p{seat}"} for seat in range(engine.min_players)]
    with httpx.Client(base_url=stack["gateway"].url, timeout=30) as client:
        created = create_game(client, game, players, seed=21)
        game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
        for _ in range(3):  # three moves: the first, and later ones with more going on
            seat = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()["to_act"][0]
            headers = {**auth(tokens[seat]), "idempotency-key": f"k-{uuid.uuid4().hex}"}
            listing = client.get(f"/v1/games/{game_id}/legal-moves", headers=headers).json()
            body = {"move": listing["moves"][-1], "expected_version": listing["version"]}
            first = client.post(f"/v1/games/{game_id}/moves", json=body, headers=headers)
            retried = client.post(f"/v1/games/{game_id}/moves", json=body, headers=headers)
            assert first.status_code == retried.status_code == 200, first.text
            answer, kept = first.json(), retried.json()
            assert answer["events"], answer
            # The retry's answer is the kept one, its packed events rendered by the gateway (the old path).
            assert orjson.dumps(answer["events"]) == orjson.dumps(kept["events"])
            assert list(answer) == list(kept)  # every key in its place, "events" among them
            listed = client.get(f"/v1/games/{game_id}/events", params={"after": listing["version"]},
                                headers=auth(tokens[seat])).json()  # fmt: skip
            assert orjson.dumps(answer["events"]) == orjson.dumps(listed)


def test_the_gateway_s_call_carries_the_events_printed_only_when_it_asks(stack: dict[str, Any]) -> None:
    """An unkeyed move's ``RenderedSubmit``: a gateway that asks (``PRINT_EVENTS``) gets the events
    as JSON and none packed; a gateway from before the field (no entry) gets them packed, as before."""
    with httpx.Client(base_url=stack["gateway"].url, timeout=30) as client:
        created = create_game(client, "darjeeling", [{"name": "a"}, {"name": "b"}], seed=5)
        game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
        for asks in (False, True):
            seat = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()["to_act"][0]
            listing = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
            answer = _submit_rendered(stack, game_id, listing, tokens[seat], asks)
            assert answer.answer.state.ByteSize() == 0 and answer.state_json
            if not asks:
                assert answer.answer.events and answer.events_json == b""
                continue
            assert not answer.answer.events
            printed = orjson.loads(answer.events_json)
            assert printed and all(event["version"] == listing["version"] + 1 for event in printed)


def _submit_rendered(stack: dict[str, Any], game_id: str, listing: dict[str, Any], token: str, asks: bool) -> Any:
    fields = {key: value for key, value in listing["moves"][0].items() if key not in ("text", "costs", "@type")}
    move = protojson.pack("darjeeling", "Move", fields)
    request = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[move], expected_version=listing["version"])
    metadata = (("authorization", f"Bearer {token}"), *([(PRINT_EVENTS, "1")] if asks else []))
    with grpc.insecure_channel(stack["services"]["darjeeling"].address) as channel:
        return rendered_pb2_grpc.RenderedRulesStub(channel).SubmitMoves(request, metadata=metadata, timeout=30)
