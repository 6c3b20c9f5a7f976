"""Sentences over the real stack: events (JSON list, SSE, gRPC) and legal moves carry their text.

English by default, Spanish with ``Accept-Language: es``; each legal move can still be
posted back as is, ``text`` and all; and a tile taken behind a screen is named only in
its owner's sentence.
"""

from __future__ import annotations

import json
import re
from typing import Any

import grpc
import httpx
from google.protobuf import any_pb2

from chaiwala.darjeeling.v1 import darjeeling_pb2
from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from tests.support.client import auth, create_game, sse_events
from tests.support.seeds import seed_hex

GAME = "darjeeling"
ES = {"Accept-Language": "es-ES,es;q=0.9,en;q=0.5"}
START_EN = re.compile(r"^Start at row \d+, column \d+, facing (north|east|south|west)\.$")
START_ES = re.compile(r"^Empieza en la fila \d+, columna \d+, mirando al (norte|este|sur|oeste)\.$")
VARIETY_EN = "(black|green|white|red)"
VARIETY_ES = "(negro|verde|blanco|rojo)"


def _game(client: httpx.Client) -> tuple[str, dict[int, str]]:
    # Asha (seat 0) starts, as the sentences below expect.
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=11, options={"start_player": 0})
    return created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}


def _texts(events: list[dict[str, Any]], kind: str) -> list[str]:
    return [e["text"] for e in events if kind in e["event"]]


def test_legal_moves_carry_text_in_english_by_default_and_spanish_on_request(client: httpx.Client) -> None:
    game_id, tokens = _game(client)
    english = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[0])).json()
    spanish = client.get(
        f"/v1/games/{game_id}/legal-moves", headers={**auth(tokens[0]), "Accept-Language": "es"}
    ).json()
    assert english["moves"] and len(english["moves"]) == len(spanish["moves"])
    assert "texts" not in english
    assert all(START_EN.match(m["text"]) for m in english["moves"]), english["moves"][:3]
    assert all(START_ES.match(m["text"]) for m in spanish["moves"]), spanish["moves"][:3]
    # Same moves, each in its own words: row and column numbers agree between the two languages.
    for en, es in zip(english["moves"], spanish["moves"], strict=True):
        assert {k: v for k, v in en.items() if k != "text"} == {k: v for k, v in es.items() if k != "text"}
        assert re.findall(r"\d+", en["text"]) == re.findall(r"\d+", es["text"])
    assert len({m["text"] for m in english["moves"]}) == len(english["moves"])
    # An element of legal-moves, text included, is accepted back as is.
    body = {"move": english["moves"][0], "expected_version": english["version"]}
    posted = client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[0]))
    assert posted.status_code == 200, posted.text
    events = posted.json()["events"]
    assert _texts(events, "start_chosen")[0].startswith("You chose a start at row ")
    assert re.match(rf"^You took a {VARIETY_EN} tile with \d half crates?", _texts(events, "tile_taken")[0])


def test_events_json_and_sse_carry_text_per_viewer_and_language(client: httpx.Client) -> None:
    game_id, tokens = _game(client)
    first = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[0])).json()["moves"][0]
    body = {"move": first, "expected_version": 0}
    answer = client.post(f"/v1/games/{game_id}/moves", json=body, headers={**auth(tokens[0]), **ES})
    assert answer.status_code == 200
    assert _texts(answer.json()["events"], "start_chosen")[0].startswith("Tú elegiste empezar en la fila ")

    # A batch of legal-moves elements, text included, is accepted as is too.
    second = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[1])).json()["moves"][0]
    batch = client.post(
        f"/v1/games/{game_id}/moves", json={"moves": [second], "expected_version": 1}, headers=auth(tokens[1])
    )
    assert batch.status_code == 200, batch.text
    owner = client.get(f"/v1/games/{game_id}/events", headers=auth(tokens[0])).json()
    other = client.get(f"/v1/games/{game_id}/events", headers=auth(tokens[1])).json()
    spectator_es = client.get(f"/v1/games/{game_id}/events", headers=ES).json()
    assert owner and all(e["text"] for e in owner + other + spectator_es)
    variety = re.match(rf"^You took a {VARIETY_EN} tile", _texts(owner, "tile_taken")[0])
    assert variety
    taken_by_other = _texts(other, "tile_taken")[0]
    assert taken_by_other.startswith("Asha took a tile from the board")
    assert variety.group(1) not in taken_by_other
    assert _texts(spectator_es, "start_chosen")[0].startswith("Asha eligió empezar en la fila ")
    assert _texts(spectator_es, "tile_taken")[0].startswith("Asha tomó una ficha del tablero")
    assert not re.search(VARIETY_ES, _texts(spectator_es, "tile_taken")[0])

    sse_cases = [({}, "Asha chose a start"), ({"Accept-Language": "es"}, "Asha eligió empezar")]
    sse_cases += [({"Accept-Language": "de, en;q=0.5"}, "Asha chose a start")]
    for headers, expected in sse_cases:
        with client.stream(
            "GET", f"/v1/games/{game_id}/events", headers={"Accept": "text/event-stream", **headers}
        ) as s:
            streamed = []
            for message in sse_events(s):
                streamed.append(json.loads(message["data"]))
                if len(streamed) == len(owner):
                    break
        assert streamed[0]["text"].startswith(expected), streamed[0]
        assert all(e["text"] for e in streamed)


def test_grpc_carries_texts_parallel_to_moves_and_text_on_events(stack: dict[str, Any]) -> None:
    with grpc.insecure_channel(stack["services"][GAME].address) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        players = [rules_pb2.PlayerSpec(name="Asha"), rules_pb2.PlayerSpec(name="Bilal")]
        options = any_pb2.Any()
        options.Pack(darjeeling_pb2.Options(start_player=0))  # Asha (seat 0) starts
        created = stub.CreateGame(rules_pb2.CreateGameRequest(players=players, seed_hex=seed_hex(5), options=options))
        seat0 = (("authorization", f"Bearer {created.seats[0].token}"),)
        request = rules_pb2.ListLegalMovesRequest(game_id=created.game_id)
        english = stub.ListLegalMoves(request, metadata=seat0)
        spanish = stub.ListLegalMoves(request, metadata=(*seat0, ("accept-language", "es")))
        assert len(english.texts) == len(english.moves) == len(spanish.texts) > 0
        assert all(START_EN.match(t) for t in english.texts) and all(START_ES.match(t) for t in spanish.texts)
        stub.SubmitMoves(
            rules_pb2.SubmitMovesRequest(game_id=created.game_id, moves=[english.moves[0]], expected_version=0),
            metadata=seat0,
        )
        listing = rules_pb2.ListEventsRequest(game_id=created.game_id)
        spectator = stub.ListEvents(listing, metadata=(("accept-language", "fr, es;q=0.8"),)).events
        assert spectator and spectator[0].text.startswith("Asha eligió empezar")
        assert all(e.text for e in spectator)
        owner = stub.ListEvents(listing, metadata=seat0).events
        assert [e.index for e in owner] == [e.index for e in spectator]
        assert owner[0].text.startswith("You chose a start")
