"""A new game's seed and the first link of its hash chain (see :mod:`services.fairness`)."""

from __future__ import annotations

from typing import Any

from chaiwala.v1 import rules_pb2
from services.common.rng import Seed
from services.fairness import chain, seeding
from services.games.records import Fairness
from services.rules.access import Access


def seed_for(request: rules_pb2.CreateGameRequest, game_id: str, access: Access) -> tuple[Fairness, Seed]:
    """Draw and commit the server secret; the seed is derived from it unless an operator gives one
    (:func:`services.fairness.seeding.seed_for`: 256 bits, the keyed generator)."""
    return seeding.seed_for(request, game_id, access.require_operator)


def genesis(
    game_type: str,
    game_id: str,
    fairness: Fairness,
    options: dict[str, Any],
    players: list[dict[str, Any]],
    snapshot: bytes,
) -> tuple[str, str]:
    """The chain's first hash and the set-up snapshot's digest."""
    setup = chain.digest(snapshot)
    options_digest = chain.message_digest(game_type, "Options", options)
    return chain.genesis(game_id, game_type, fairness.seed_commitment, options_digest, players, setup), setup
