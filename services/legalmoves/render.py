"""``GET legal-moves`` as REST prints it, in one place for the gateway and the rules service."""

from __future__ import annotations

import orjson

from chaiwala.v1 import rules_pb2
from services.common import protojson


def listing_json(answer: rules_pb2.LegalMoves) -> bytes:
    """The answer's JSON: each move with its sentence as ``text`` and its price as ``costs``
    (``[{"what": "points", "amount": 3}]``; ``[]`` for a free move) beside the move's fields."""
    listing = protojson.to_dict(answer)
    texts = listing.pop("texts", [])
    costs = listing.pop("costs", [])
    for index, move in enumerate(listing["moves"]):
        move["text"] = texts[index] if index < len(texts) else ""
        move["costs"] = costs[index].get("items", []) if index < len(costs) else []
    return orjson.dumps(listing)
