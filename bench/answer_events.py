"""CPU of a REST move answer's events, three ways, in process: packed, printed apart, or the whole answer printed.

``RenderedRules.SubmitMoves`` used to send a move's events packed (the rules service built each
``GameEvent`` with its game ``Event`` in an ``Any``; the gateway parsed the answer and walked the
events to JSON); then it printed them in the rules service (``events_json``) and the gateway spliced
the bytes into the answer it printed; now, for a gateway that asks, it prints the whole answer
(``answer_json``) and the gateway answers those bytes.  Every path is still in the code (for older
gateways and rules services), so this measures them side by side on the same answers: the moves of
32 random games per game type, each answer once (as a gateway sees them: new events every move),
alternating the ways ``--repeats`` times.  Rules side: the events of the answer (messages built and
serialized, or printed) and the ``RenderedSubmit`` serialized; gateway side: the answer parsed and
the REST body made (rendered with the state spliced in and dumped, or taken as it came).

    python -m bench.answer_events --repeats 6 [--game tea_rum]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import orjson

from chaiwala.v1 import rendered_pb2, rules_pb2
from services.common import protorender
from services.common.answerjson import answer_json
from services.common.registry import engine_for
from services.common.runner import Match
from services.games.records import LogEntry
from services.rules.narrator import Narrator
from tests.support.walks import random_steps

GAMES = 32
STATE = b'{"@type":"type.googleapis.com/x.State"}'  # the state is passed through alike on both paths


def _entries(game_type: str, moves: int) -> list[tuple[LogEntry, int]]:
    """Each move of 32 random games as a log entry, with the seat that played it."""
    engine = engine_for(game_type)
    out = []
    for seed in range(GAMES):
        match = Match.start(engine, engine.min_players, seed)
        for step, seat, move, events in random_steps(match, moves):
            entry = LogEntry(seat, "", move, events, hash=f"{seed:032x}{step:032x}", status="active",
                             to_act=match.to_act(), version=step + 1)  # fmt: skip
            out.append((entry, seat))
    return out


def _packed(narrator: Narrator, entry: LogEntry, seat: int) -> bytes:
    answer = rules_pb2.SubmitMovesResponse(version=entry.version, status="active", to_act=entry.to_act)
    answer.events.extend(narrator.entry_messages(entry, seat, words=(["a", "b"], "en")))
    answer.state.SetInParent()
    return rendered_pb2.RenderedSubmit(answer=answer, state_json=STATE).SerializeToString()


def _printed(narrator: Narrator, entry: LogEntry, seat: int) -> bytes:
    answer = rules_pb2.SubmitMovesResponse(version=entry.version, status="active", to_act=entry.to_act)
    events = orjson.dumps(narrator.entry_json(entry, seat, words=(["a", "b"], "en")))
    answer.state.SetInParent()
    return rendered_pb2.RenderedSubmit(answer=answer, state_json=STATE, events_json=events).SerializeToString()


def _whole(narrator: Narrator, entry: LogEntry, seat: int) -> bytes:
    answer = rules_pb2.SubmitMovesResponse(version=entry.version, status="active", to_act=entry.to_act)
    events = orjson.dumps(narrator.entry_json(entry, seat, words=(["a", "b"], "en")))
    answer.state.SetInParent()
    small = rules_pb2.SubmitMovesResponse(version=answer.version, status=answer.status)
    return rendered_pb2.RenderedSubmit(answer=small, answer_json=answer_json(answer, STATE, events)).SerializeToString()


def _gateway(wire: bytes) -> bytes:
    """What ``gateway.routes.submit_moves`` does with the call's answer (without ``?include``)."""
    rendered = rendered_pb2.RenderedSubmit.FromString(wire)
    answer = rendered.answer
    return rendered.answer_json or answer_json(answer, rendered.state_json, rendered.events_json)


def _timed(items: list[Any], work: Callable[[Any], Any]) -> tuple[float, list[Any]]:
    start = time.process_time()
    out = [work(item) for item in items]
    return (time.process_time() - start) / len(items) * 1000, out


def main(argv: list[str]) -> None:
    """Alternate the two ways and print the median CPU ms per answer on each side."""
    parser = argparse.ArgumentParser(prog="python -m bench.answer_events", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="darjeeling")
    parser.add_argument("--moves", type=int, default=40, help="moves per game")
    parser.add_argument("--repeats", type=int, default=6)
    args = parser.parse_args(argv)
    narrator = Narrator(engine_for(args.game))
    entries = _entries(args.game, args.moves)
    ways = {"packed": _packed, "printed": _printed, "whole": _whole}
    figures: dict[str, dict[str, list[float]]] = {way: {"rules": [], "gateway": []} for way in ways}
    answers: dict[str, list[bytes]] = {}
    for _ in range(args.repeats):
        for way, build in ways.items():
            protorender.forget_rendered()  # each way starts with the gateway's payload cache empty
            rules, wires = _timed(entries, lambda item, build=build: build(narrator, *item))
            gateway, answers[way] = _timed(wires, _gateway)
            figures[way]["rules"].append(rules)
            figures[way]["gateway"].append(gateway)
    assert answers["packed"] == answers["printed"] == answers["whole"]  # same REST bytes every way
    for way, sides in figures.items():
        line = ", ".join(f"{side} {statistics.median(v):.3f} (min {min(v):.3f})" for side, v in sides.items())
        print(f"{args.game} {way:8s} CPU ms per answer's events, median of {args.repeats}: {line}; "
              f"{len(entries)} answers")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
