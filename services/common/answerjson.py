"""A move's REST answer as the bytes ``POST /v1/games/{id}/moves`` answers, printed in one place.

The rules service prints the whole answer of the gateway's ``RenderedRules.SubmitMoves`` here, once
(``RenderedSubmit.answer_json``), and the gateway answers those bytes as they come: no message to
parse, no dict to build, nothing printed again (``gateway.routes.submit_moves``).  A gateway whose
rules service is older than that field prints the same bytes here itself, from the answer and its
state and events printed apart (``state_json``, ``events_json``).

What it prints is exactly ``orjson.dumps(protojson.to_dict(answer))`` of the answer with its state and
events packed (``tests/rules/test_answer_json.py`` and ``tests/gateway/test_lean_path.py`` check it):
proto3 JSON with proto field names, the set fields by field number, then the defaults of the unset
ones in declaration order.  The common answer (state and events printed, no ``legal_moves``) is
printed from its five fields by hand; any other goes through the message.
"""

from __future__ import annotations

from typing import Any

import orjson

from chaiwala.v1 import rules_pb2
from services.common import protojson

# SubmitMovesResponse's fields the rules service sets, in field-number order (the test holds this
# to the descriptor: a new field there must be printed here too).
FIELDS = ("version", "events", "state", "status", "to_act")


def answer_json(answer: rules_pb2.SubmitMovesResponse, state_json: bytes = b"", events_json: bytes = b"") -> bytes:
    """``answer`` as REST prints it, with ``state_json`` (its state printed) and ``events_json`` (its
    events printed, a JSON array) in place of its own ``state`` and ``events`` when given.

    Without ``state_json`` (a retried key's first answer, kept whole) the answer's own state and
    events are printed; without ``events_json`` its own events are (a rules service older than it).
    """
    if not (state_json and events_json) or answer.HasField("legal_moves"):
        return orjson.dumps(_through_message(answer, state_json, events_json))
    values = (answer.version, orjson.Fragment(events_json), orjson.Fragment(state_json), answer.status,
              list(answer.to_act))  # fmt: skip
    # A field is printed among the set ones unless it holds its default; the state (a message field)
    # is set whenever it was printed.
    present = (answer.version != 0, events_json != b"[]", True, answer.status != "", bool(answer.to_act))
    printed = {name: value for name, value, set_ in zip(FIELDS, values, present, strict=True) if set_}
    for name, value, set_ in zip(FIELDS, values, present, strict=True):
        if not set_:
            printed[name] = value
    return orjson.dumps(printed)


def _through_message(answer: rules_pb2.SubmitMovesResponse, state_json: bytes, events_json: bytes) -> dict[str, Any]:
    """The answer rendered through its message, the printed parts spliced in unparsed (``orjson.Fragment``).

    A printed state stands beside a ``state`` left present but empty, so the key keeps its place
    among the others; ``events`` is a repeated field, whose key prints among the set fields when the
    list is not empty and among the defaults when it is, so one empty event stands in for a
    non-empty printed list.
    """
    if not state_json and not events_json:
        return protojson.to_dict(answer)
    answer = _copy(answer)  # the caller's answer stays as it was
    if state_json:
        answer.state.Clear()  # a keyed answer carries the packed state too (kept for retries)
        answer.state.SetInParent()
    if events_json:
        del answer.events[:]
        if events_json != b"[]":
            answer.events.add()
    printed = protojson.to_dict(answer)
    if state_json:
        printed["state"] = orjson.Fragment(state_json)
    if events_json:
        printed["events"] = orjson.Fragment(events_json)
    return printed


def _copy(answer: rules_pb2.SubmitMovesResponse) -> rules_pb2.SubmitMovesResponse:
    copied = rules_pb2.SubmitMovesResponse()
    copied.CopyFrom(answer)
    return copied
