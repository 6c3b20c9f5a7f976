"""The seed scheme: commitments bind the secret, seeds follow from secret, game and contributions."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from services.fairness import seeding

secrets_ = st.binary(min_size=seeding.SECRET_BYTES, max_size=seeding.SECRET_BYTES)


def test_a_drawn_secret_is_fresh_and_its_commitment_is_a_sha256_of_it() -> None:
    first, second = seeding.draw_server_secret(), seeding.draw_server_secret()
    assert len(first) == seeding.SECRET_BYTES and first != second
    assert seeding.seed_commitment(first) == hashlib.sha256(b"chaiwala/seed-commitment/v1\x00" + first).hexdigest()


@given(secrets_, st.lists(st.text(max_size=8), max_size=4))
def test_the_seed_is_a_function_of_secret_game_and_contributions(secret: bytes, contributions: list[str]) -> None:
    seed = seeding.derive_seed(secret, "darjeeling-" + "0" * 24, contributions)
    assert seed == seeding.derive_seed(secret, "darjeeling-" + "0" * 24, list(contributions))
    assert 0 <= seed < 2**64
    assert seed != seeding.derive_seed(secret, "darjeeling-" + "1" * 24, contributions)
    assert seed != seeding.derive_seed(secret, "darjeeling-" + "0" * 24, [*contributions, "x"])


@given(secrets_, secrets_)
def test_different_secrets_give_different_commitments_and_seeds(first: bytes, second: bytes) -> None:
    if first == second:
        return
    assert seeding.seed_commitment(first) != seeding.seed_commitment(second)
    assert seeding.derive_seed(first, "g", []) != seeding.derive_seed(second, "g", [])
