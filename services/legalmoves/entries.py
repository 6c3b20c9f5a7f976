"""The rules service's side: each seat's legal-moves answer, for ``ListLegalMoves`` and for the commit.

One function builds the answer (:func:`legal_answer`), so what the commit stores for the gateway
is what the call answers; :func:`after_commit` makes every seat's entry for the commit script.
"""

from __future__ import annotations

from typing import Any, Protocol

from chaiwala.v1 import rules_pb2
from services.common.runner import Match
from services.legalmoves.fingerprint import LegalEntries, entry_field
from services.legalmoves.render import Fragments, engine_listing_json

# Redis memory per game stays small (measured 1.4-7 KB a game on average, README "Speed", 2026-12-02).
MAX_STORED_BYTES = 16 * 1024
# The moves printed for the commits' listings, per process (see Fragments).
FRAGMENTS = Fragments()


class Seated(Protocol):
    """What the answers need of a game's metadata (``services.games.records.GameMeta`` has it)."""

    @property
    def token_hashes(self) -> list[str]: ...

    @property
    def identity(self) -> str: ...

    def names(self) -> list[str]: ...


class Speaker(Protocol):
    """What the rules service lends: move sentences and packing (``services.rules.narrator.Narrator``)."""

    game_type: str

    def costed_text(
        self, move: dict[str, Any], seat: int, costs: list[dict[str, Any]], names: list[str], language: str
    ) -> str: ...

    def pack(self, name: str, data: dict[str, Any]) -> Any: ...


def legal_answer(
    service: Speaker, version: int, match: Match | None, seat: int, names: list[str], language: str
) -> rules_pb2.LegalMoves:
    """``seat``'s legal moves at ``version`` with their sentences; none without a match (not
    active, or the seat resigned)."""
    if match is None:
        return rules_pb2.LegalMoves(version=version)
    moves = match.legal_moves(seat)
    costs = [match.engine.move_costs(match.state, seat, m) for m in moves]
    texts = [service.costed_text(m, seat, c, names, language) for m, c in zip(moves, costs, strict=True)]
    return rules_pb2.LegalMoves(
        version=version,
        moves=[service.pack("Move", m) for m in moves],
        texts=texts,
        costs=[rules_pb2.MoveCosts(items=[rules_pb2.Cost(**c) for c in items]) for items in costs],
    )


def legal_listing(
    service: Speaker, version: int, match: Match | None, seat: int, names: list[str], language: str
) -> bytes:
    """:func:`legal_answer` as REST prints it (``listing_json`` of it, byte for byte), printed
    from the engine's dicts without building the message, each move printed once per process
    (:class:`~services.legalmoves.render.Fragments`)."""
    if match is None:
        return engine_listing_json(service.game_type, version, [], [], [])
    keyed = match.keyed_legal_moves(seat)
    priced = [(key, move, match.engine.move_costs(match.state, seat, move)) for key, move in keyed.items()]

    def text(move: dict[str, Any], costs: list[dict[str, Any]]) -> str:
        return service.costed_text(move, seat, costs, names, language)

    printed = FRAGMENTS.listing(service.game_type, version, priced, seat, names, language, text)
    if printed is not None:
        return printed
    moves, costs = [move for _, move, _ in priced], [costs for _, _, costs in priced]
    texts = [text(move, price) for _, move, price in priced]
    return engine_listing_json(service.game_type, version, moves, texts, costs)


def after_commit(
    service: Speaker, meta: Seated, resigned: list[int], match: Match, version: int, language: str
) -> LegalEntries:
    """Every seat's answer at ``version``, the position ``match`` stands in (the game active), in
    ``language``, filed under its token's hash; seats without a token (bots) get none, and a hash
    two seats share (entrant tokens) is the first seat's, as ``GameMeta.seat_of_token`` reads it.
    ``meta`` is the metadata the commit started from (players, token hashes, their ``identity``)."""
    names = meta.names()
    answers, filed = [], set()
    for seat, token_hash in enumerate(meta.token_hashes):
        if not token_hash or token_hash in filed:
            continue
        filed.add(token_hash)
        playing = None if seat in resigned else match
        rendered = legal_listing(service, version, playing, seat, names, language)
        if len(rendered) <= MAX_STORED_BYTES:  # a huge listing is rare: its GET asks the rules service
            answers.append((entry_field(token_hash, language), rendered))
    return LegalEntries(meta.identity, answers)
