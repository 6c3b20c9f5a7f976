"""``GET legal-moves`` as REST prints it, in one place for the gateway and the rules service."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from chaiwala.v1 import rules_pb2
from services.common import dictrender, protojson

# A Cost's amount is an int32: outside it the message would refuse the value, so the plan does not guess.
_INT32 = range(-(2**31), 2**31)
# A printed move is some 100-300 bytes: 8,192 of them stay within a few MB per process.
FRAGMENTS_KEPT = 8192


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


def engine_listing_json(
    game_type: str,
    version: int,
    moves: Sequence[dict[str, Any]],
    texts: Sequence[str],
    costs: Sequence[Sequence[dict[str, Any]]],
) -> bytes:
    """What :func:`listing_json` prints for the ``LegalMoves`` made of these engine dicts, printed
    straight from them (:mod:`services.common.dictrender`) without building the message: the
    commit stores every seat's answer, and building then walking the message cost more than the
    legal moves and their sentences together.  A version of 0 or a price the plan is not sure to
    print as the message would (a ``Cost`` with a default or unknown field) takes the message's way.
    """
    items = [_cost_items(each) for each in costs]
    if version <= 0 or any(each is None for each in items):
        answer = rules_pb2.LegalMoves(
            version=version,
            moves=[protojson.pack_engine(game_type, "Move", dict(move)) for move in moves],
            texts=texts,
            costs=[rules_pb2.MoveCosts(items=[rules_pb2.Cost(**c) for c in each]) for each in costs],
        )
        return listing_json(answer)
    listing = [
        {**dictrender.payload(game_type, "Move", move), "text": text, "costs": priced}
        for move, text, priced in zip(moves, texts, items, strict=True)
    ]
    return orjson.dumps({"version": version, "moves": listing})


def _cost_items(costs: Sequence[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """A move's prices as the message prints them, or ``None`` when that is not certain.

    Both fields set (a non-empty ``what``, a non-zero int32 ``amount``) print in field order; a
    default field would print after the set one, and anything else would be refused or converted.
    """
    out = []
    for cost in costs:
        what, amount = cost.get("what"), cost.get("amount")
        if len(cost) != 2 or type(what) is not str or not what or type(amount) is not int or not amount:
            return None
        if amount not in _INT32:
            return None
        out.append({"what": what, "amount": amount})
    return out


Fragment = tuple[str, bytes, int, tuple[str, ...], str, tuple[tuple[str, int], ...]]


class Fragments:
    """Printed moves of listings (a move's fields, ``text`` and ``costs``), kept per process.

    A seat's legal moves come back move after move (a rail route's track, a region's collector
    spaces): a move printed for a seat with the same price, players' names and language prints the
    same bytes whatever the position (its sentence depends on nothing else, as
    ``services.common.sentences`` keeps them), so the commit's listings reuse them.  Named by the
    game, the move's identity (``runner.json_key``), the seat, the names, the language and the price;
    the least recently used go past :data:`FRAGMENTS_KEPT`.
    """

    def __init__(self, capacity: int = FRAGMENTS_KEPT) -> None:
        self.capacity = capacity
        self._kept: OrderedDict[Fragment, bytes] = OrderedDict()

    def listing(
        self,
        game_type: str,
        version: int,
        moves: Sequence[tuple[bytes, dict[str, Any], list[dict[str, Any]]]],
        seat: int,
        names: Sequence[str],
        language: str,
        text: Callable[[dict[str, Any], list[dict[str, Any]]], str],
    ) -> bytes | None:
        """What :func:`engine_listing_json` prints for ``moves`` (each with its identity and price;
        ``text`` words a move), or ``None`` where that takes the message's way (see there)."""
        if type(version) is not int or version <= 0:
            return None
        words = tuple(names)
        printed = []
        for key, move, costs in moves:
            items = _cost_items(costs)
            if items is None:
                return None
            price = tuple([(item["what"], item["amount"]) for item in items]) if items else ()
            name = (game_type, key, seat, words, language, price)
            known = self._kept.get(name)
            if known is None:
                fields = {**dictrender.payload(game_type, "Move", move), "text": text(move, costs), "costs": items}
                known = self._kept[name] = orjson.dumps(fields)
                if len(self._kept) > self.capacity:
                    self._kept.popitem(last=False)
            else:
                self._kept.move_to_end(name)
            printed.append(known)
        return b'{"version":%d,"moves":[%b]}' % (version, b",".join(printed))
