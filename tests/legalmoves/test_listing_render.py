"""The commit's legal-moves answers printed straight from the engine's dicts
(:func:`services.legalmoves.entries.legal_listing`) are, byte for byte, what the rules service's
``ListLegalMoves`` answer prints through the message (``listing_json(legal_answer(...))``): on
every game, for every seat, in both languages, at many positions, and for the prices the fast
plan leaves to the message."""

from __future__ import annotations

from typing import Any

import pytest

from bench.engine_cases import random_position
from chaiwala.v1 import rules_pb2
from services.common.registry import available_game_types, engine_for
from services.legalmoves.entries import legal_answer, legal_listing
from services.legalmoves.render import Fragments, engine_listing_json, listing_json
from services.rules.narrator import Narrator

NAMES = ["Asha", "Bilal", "Chen", "Dara"]


@pytest.mark.parametrize("game", available_game_types())
def test_printed_from_dicts_is_the_answer_printed_through_the_message(game: str) -> None:
    engine = engine_for(game)
    narrator = Narrator(engine)
    seen_moves = 0
    for seed in range(4):
        for moves in (0, 3, 11, 40):
            match = random_position(engine, 2, moves, seed)[0]
            for seat in range(2):
                for language in ("en", "es"):
                    for version in (0, 1, 37):
                        slow = listing_json(legal_answer(narrator, version, match, seat, NAMES, language))
                        assert legal_listing(narrator, version, match, seat, NAMES, language) == slow
                seen_moves += len(match.legal_moves(seat))
            assert legal_listing(narrator, 9, None, 0, NAMES, "en") == listing_json(
                legal_answer(narrator, 9, None, 0, NAMES, "en")
            )
    assert seen_moves > 0  # the positions had moves to print


@pytest.mark.parametrize(
    "costs",
    [
        [[{"what": "points", "amount": 3}]],
        [[{"what": "turn", "amount": 1}, {"what": "money", "amount": -2}]],
        [[{"what": "worker", "amount": 0}]],
        [[{"what": "", "amount": 4}]],
        [[{"amount": 4}]],
        [[{"what": "points", "amount": 2**40}]],
        [[{"what": "points", "amount": True}]],
        [[]],
    ],
)
def test_prices_print_as_the_message_prints_them(costs: list[list[dict[str, object]]]) -> None:
    game = available_game_types()[0]
    engine = engine_for(game)
    match = random_position(engine, 2, 0, 1)[0]
    move = match.legal_moves(match.to_act()[0])[0]
    try:
        answer = rules_pb2.LegalMoves(
            version=5,
            moves=[Narrator(engine).pack("Move", move)],
            texts=["go"],
            costs=[rules_pb2.MoveCosts(items=[rules_pb2.Cost(**c) for c in each]) for each in costs],  # type: ignore[arg-type]
        )
    except (ValueError, TypeError):
        with pytest.raises((ValueError, TypeError)):
            engine_listing_json(game, 5, [move], ["go"], costs)  # type: ignore[arg-type]
        return
    assert engine_listing_json(game, 5, [move], ["go"], costs) == listing_json(answer)  # type: ignore[arg-type]


@pytest.mark.parametrize("game", available_game_types())
def test_moves_printed_before_are_reused_only_for_the_same_words(game: str) -> None:
    """A move printed once (kept in ``FRAGMENTS``) is printed again for another seat, other names,
    another language or another price exactly as it would be printed afresh, along a whole play."""
    engine = engine_for(game)
    narrator = Narrator(engine)
    kept, small = Fragments(), Fragments(capacity=16)  # small: the oldest go while the play goes on
    reused = 0
    for moves in range(0, 60, 3):
        match = random_position(engine, 3 if game != "tea_rum" else 2, moves, 7)[0]
        for seat in match.to_act():
            for names, language in ((NAMES, "en"), (NAMES[::-1], "en"), (NAMES, "es")):
                keyed = match.keyed_legal_moves(seat)
                priced = [(key, move, engine.move_costs(match.state, seat, move)) for key, move in keyed.items()]

                def text(move: dict[str, Any], costs: list[dict[str, Any]]) -> str:
                    return narrator.costed_text(move, seat, costs, names, language)  # noqa: B023 (used at once)

                before = len(kept._kept)
                printed = kept.listing(game, 12, priced, seat, names, language, text)
                reused += len(priced) - (len(kept._kept) - before)
                expected = listing_json(legal_answer(narrator, 12, match, seat, names, language))
                assert printed == expected
                assert small.listing(game, 12, priced, seat, names, language, text) == expected
    assert reused > 0  # some moves came back and were printed from what was kept
