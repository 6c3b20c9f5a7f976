"""A new game's seed and the first link of its hash chain (see :mod:`services.fairness`)."""

from __future__ import annotations

from typing import Any

from chaiwala.v1 import rules_pb2
from services.common import errors
from services.fairness import chain, seeding
from services.games.records import Fairness
from services.rules.access import Access


def seed_for(request: rules_pb2.CreateGameRequest, game_id: str, access: Access) -> tuple[Fairness, int]:
    """Draw and commit the server secret; the seed is derived from it unless an operator gives one."""
    client_seed = request.client_seed
    if len(client_seed) > seeding.MAX_CONTRIBUTION or not client_seed.isprintable():
        raise errors.invalid(
            "bad_client_seed", f"client_seed is at most {seeding.MAX_CONTRIBUTION} printable characters"
        )
    secret = seeding.draw_server_secret()
    commitment = seeding.seed_commitment(secret)
    if request.HasField("seed"):
        access.require_operator("choosing the seed")
        return Fairness(secret.hex(), commitment, seeding.SOURCE_OPERATOR, client_seed), request.seed
    seed = seeding.derive_seed(secret, game_id, seeding.contributions(client_seed))
    return Fairness(secret.hex(), commitment, seeding.SOURCE_SERVER, client_seed), seed


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
