"""``GET legal-moves`` as REST prints it, in one place for the gateway and the rules service."""

from __future__ import annotations

import orjson

from chaiwala.v1 import rules_pb2
from services.common import protojson


def listing_json(answer: rules_pb2.LegalMoves) -> bytes:
    """The answer's JSON: each move with its sentence as ``text`` beside the move's fields."""
    listing = protojson.to_dict(answer)
    texts = listing.pop("texts", [])
    for move, text in zip(listing["moves"], texts, strict=False):
        move["text"] = text
    return orjson.dumps(listing)
