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
import functools
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import orjson

from chaiwala.v1 import rendered_pb2, rules_pb2
from services.common import dictrender, protorender
from services.common.answerjson import answer_json
from services.common.registry import engine_for
from services.common.runner import Match
from services.games.records import LogEntry
from services.rules.narrator import Narrator
from tests.support.walks import random_steps

GAMES = 32


def _entries(game_type: str, moves: int) -> list[tuple[LogEntry, int, bytes]]:
    """Each move of 32 random games as a log entry, with the seat that played it and its view printed
    (printed alike on every way: only carried, spliced or copied)."""
    engine = engine_for(game_type)
    out = []
    for seed in range(GAMES):
        match = Match.start(engine, engine.min_players, seed)
        for step, seat, move, events in random_steps(match, moves):
            entry = LogEntry(seat, "", move, events, hash=f"{seed:032x}{step:032x}", status="active",
                             to_act=match.to_act(), version=step + 1)  # fmt: skip
            state = orjson.dumps(dictrender.payload(game_type, "State", engine.view(match.state, seat)))
            out.append((entry, seat, state))
    return out


def _packed(narrator: Narrator, entry: LogEntry, seat: int, state: bytes) -> bytes:
    answer = rules_pb2.SubmitMovesResponse(version=entry.version, status="active", to_act=entry.to_act)
    answer.events.extend(narrator.entry_messages(entry, seat, words=(["a", "b"], "en")))
    answer.state.SetInParent()
    return rendered_pb2.RenderedSubmit(answer=answer, state_json=state).SerializeToString()


def _printed(narrator: Narrator, entry: LogEntry, seat: int, state: bytes) -> bytes:
    answer = rules_pb2.SubmitMovesResponse(version=entry.version, status="active", to_act=entry.to_act)
    events = orjson.dumps(narrator.entry_json(entry, seat, words=(["a", "b"], "en")))
    answer.state.SetInParent()
    return rendered_pb2.RenderedSubmit(answer=answer, state_json=state, events_json=events).SerializeToString()


def _whole(narrator: Narrator, entry: LogEntry, seat: int, state: bytes) -> bytes:
    answer = rules_pb2.SubmitMovesResponse(version=entry.version, status="active", to_act=entry.to_act)
    events = orjson.dumps(narrator.entry_json(entry, seat, words=(["a", "b"], "en")))
    answer.state.SetInParent()
    small = rules_pb2.SubmitMovesResponse(version=answer.version, status=answer.status)
    return rendered_pb2.RenderedSubmit(answer=small, answer_json=answer_json(answer, state, events)).SerializeToString()


def _gateway(wire: bytes) -> bytes:
    """What ``gateway.routes.submit_moves`` does with the call's answer (without ``?include``)."""
    rendered = rendered_pb2.RenderedSubmit.FromString(wire)
    answer = rendered.answer
    return rendered.answer_json or answer_json(answer, rendered.state_json, rendered.events_json)


def _gateway_before(wire: bytes) -> bytes:
    """What the gateway did before ``answer_json`` (its ``_submit_answer``, then ``JSON``'s orjson):
    the answer parsed, rendered to a dict with the state and events spliced in, and printed."""
    rendered = rendered_pb2.RenderedSubmit.FromString(wire)
    answer = rendered.answer
    if not rendered.state_json:
        return orjson.dumps(protorender.to_dict(answer))
    answer.state.Clear()
    answer.state.SetInParent()
    events = rendered.events_json
    if events:
        del answer.events[:]
        if events != b"[]":
            answer.events.add()
    printed = protorender.to_dict(answer)
    printed["state"] = orjson.Fragment(rendered.state_json)
    if events:
        printed["events"] = orjson.Fragment(events)
    return orjson.dumps(printed)


def _built(build: Callable[..., bytes], narrator: Narrator, item: tuple[LogEntry, int, bytes]) -> bytes:
    return build(narrator, *item)


def _timed(items: list[Any], work: Callable[[Any], Any]) -> tuple[float, list[Any]]:
    start = time.process_time()
    out = [work(item) for item in items]
    return (time.process_time() - start) / len(items) * 1000, out


def main(argv: list[str]) -> None:
    """Alternate the ways and print the median CPU ms per answer on each side."""
    parser = argparse.ArgumentParser(prog="python -m bench.answer_events", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="darjeeling")
    parser.add_argument("--moves", type=int, default=40, help="moves per game")
    parser.add_argument("--repeats", type=int, default=6)
    args = parser.parse_args(argv)
    narrator = Narrator(engine_for(args.game))
    entries = _entries(args.game, args.moves)
    # Each way: the rules service's side, and the gateway's of its time.
    ways: dict[str, tuple[Callable[..., bytes], Callable[[bytes], bytes]]] = {
        "packed": (_packed, _gateway_before), "printed": (_printed, _gateway_before), "whole": (_whole, _gateway),
    }  # fmt: skip
    figures: dict[str, dict[str, list[float]]] = {way: {"rules": [], "gateway": []} for way in ways}
    answers: dict[str, list[bytes]] = {}
    for _ in range(args.repeats):
        for way, (build, read) in ways.items():
            protorender.forget_rendered()  # each way starts with the gateway's payload cache empty
            rules, wires = _timed(entries, functools.partial(_built, build, narrator))
            gateway, answers[way] = _timed(wires, read)
            figures[way]["rules"].append(rules)
            figures[way]["gateway"].append(gateway)
    assert answers["packed"] == answers["printed"] == answers["whole"]  # same REST bytes every way
    for way, sides in figures.items():
        line = ", ".join(f"{side} {statistics.median(v):.3f} (min {min(v):.3f})" for side, v in sides.items())
        print(f"{args.game} {way:8s} CPU ms per answer, median of {args.repeats}: {line}; "
              f"{len(entries)} answers")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
