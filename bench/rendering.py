"""REST/SSE JSON rendering: the gateway's renderer against ``json_format.MessageToDict``.

The message is a Darjeeling ``SubmitMovesResponse`` from a real mid-game position (the state as
seat 0 sees it and the move's events), the answer the issue timed at 547 µs.  Rows: the fast
renderer (:mod:`services.common.protorender`, what ``protojson.to_dict`` uses) on payloads it has
never seen (a new state always is) and on ones it rendered before (a repeated event, move or
state), both against ``MessageToDict`` with the same options, and ``orjson`` dumping the rendered
dict (the floor).
"""

from __future__ import annotations

import orjson
from google.protobuf import json_format

from bench.config import Config
from bench.engine_cases import random_position
from bench.harness import rate
from bench.results import Row
from chaiwala.v1 import rules_pb2
from services.common import protojson, protorender
from services.common.registry import engine_for

SUITE = "render"


def answer(game: str = "darjeeling", players: int = 4, moves: int = 40) -> rules_pb2.SubmitMovesResponse:
    """A SubmitMoves answer after ``moves`` random moves, as seat 0 would get it."""
    engine = engine_for(game)
    match, events = random_position(engine, players, moves, seed=3)
    message = rules_pb2.SubmitMovesResponse(version=moves, status="active", to_act=match.to_act())
    message.state.CopyFrom(protojson.pack_engine(game, "State", engine.view(match.state, 0)))
    for index, event in enumerate(events):
        packed = protojson.pack_engine(game, "Event", event)
        message.events.append(rules_pb2.GameEvent(version=moves, index=index, event=packed, text="x"))
    return message


def run(config: Config) -> list[Row]:
    """Answers rendered per second by each way."""
    message = answer()
    rendered = protorender.to_dict(message)
    seconds = max(config.engine_seconds, 0.05)

    def reference() -> object:
        return json_format.MessageToDict(
            message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
        )

    def cold() -> object:
        protorender.forget_rendered()  # a payload never rendered before, as a new state always is
        return protorender.to_dict(message)

    old = rate(reference, seconds)
    fast = rate(cold, seconds)
    warm = rate(lambda: protorender.to_dict(message), seconds)
    floor = rate(lambda: orjson.dumps(rendered), seconds)
    size = {"json_bytes": len(orjson.dumps(rendered))}
    return [
        Row(SUITE, "darjeeling_submit_answer_protorender", "answers/s", fast, "json_format_MessageToDict", old,
            details={**size, "protorender_us": round(1e6 / fast, 1), "json_format_us": round(1e6 / old, 1)}),
        Row(SUITE, "darjeeling_submit_answer_rendered_before", "answers/s", warm, "json_format_MessageToDict", old,
            details={"protorender_warm_us": round(1e6 / warm, 1)}),
        Row(SUITE, "darjeeling_submit_answer_orjson_dumps", "answers/s", floor, "protorender", fast,
            details={"orjson_us": round(1e6 / floor, 1)}),
    ]  # fmt: skip
