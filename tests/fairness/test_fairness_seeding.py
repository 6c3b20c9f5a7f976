"""The seed scheme: commitments bind the secret, seeds follow from secret, game and contributions."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.common.errors import ServiceError
from services.common.rng import KIND_KEYED, KIND_PCG32
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
    assert seed.generator == KIND_KEYED and 0 <= seed.value < 2**256 and len(seed.hex) == 64
    assert seed != seeding.derive_seed(secret, "darjeeling-" + "1" * 24, contributions)
    assert seed != seeding.derive_seed(secret, "darjeeling-" + "0" * 24, [*contributions, "x"])


@given(secrets_, secrets_)
def test_different_secrets_give_different_commitments_and_seeds(first: bytes, second: bytes) -> None:
    if first == second:
        return
    assert seeding.seed_commitment(first) != seeding.seed_commitment(second)
    assert seeding.derive_seed(first, "g", []) != seeding.derive_seed(second, "g", [])


@given(secrets_)
def test_the_seed_is_the_whole_hmac_and_old_games_keep_its_first_64_bits(secret: bytes) -> None:
    message = b"chaiwala/seed/v1\x00" + b'{"game_id":"g","contributions":["x"]}'
    whole = hmac.new(secret, message, hashlib.sha256).digest()
    assert seeding.derive_seed(secret, "g", ["x"]).value == int.from_bytes(whole, "big")
    legacy = seeding.derive_seed(secret, "g", ["x"], KIND_PCG32)
    assert legacy.generator == KIND_PCG32 and legacy.value == int.from_bytes(whole[:8], "big")


@pytest.mark.parametrize(
    ("has_seed", "seed", "seed_hex", "expected"),
    [
        (False, 0, "", None),
        (False, 0, "F" * 64, 2**256 - 1),
        (False, 0, "0" * 30 + "0a", 10),
        (False, 0, "c0ffee" * 5 + "00", int("c0ffee" * 5 + "00", 16)),
    ],
)
def test_an_operator_seed_is_32_to_64_hex_digits(
    has_seed: bool, seed: int, seed_hex: str, expected: int | None
) -> None:
    assert seeding.operator_seed(has_seed, seed, seed_hex) == expected


@pytest.mark.parametrize(
    ("has_seed", "seed", "seed_hex"),
    [(True, 0, ""), (True, 4_000_000_000, ""), (False, 0, "0a"), (False, 0, "f" * 31)],
)
def test_a_guessable_operator_seed_is_weak_seed(has_seed: bool, seed: int, seed_hex: str) -> None:
    with pytest.raises(ServiceError) as refused:
        seeding.operator_seed(has_seed, seed, seed_hex)
    assert refused.value.code == "weak_seed" and "seed_hex" in refused.value.message


@pytest.mark.parametrize(
    ("has_seed", "seed_hex"),
    [(False, "f" * 65), (False, "0x12"), (False, "12 "), (False, "12\n"), (False, "-1"), (False, "g"), (True, "12")],
)
def test_a_bad_or_doubled_operator_seed_is_refused_as_bad_seed(has_seed: bool, seed_hex: str) -> None:
    with pytest.raises(ServiceError) as refused:
        seeding.operator_seed(has_seed, 1, seed_hex)
    assert refused.value.code == "bad_seed"
