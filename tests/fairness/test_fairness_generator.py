"""The games' generators: the keyed BLAKE2b stream new games draw from, and PCG32 that old games keep.

Determinism, snapshots taken mid-stream, uniformity (a chi-square test at a fixed seed), old
PCG32 states continuing exactly as before (expected values recorded from the PCG32 code as it
was before the keyed generator), and whole games replayed from ``seed + log`` with each.
"""

from __future__ import annotations

import hashlib

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.common.engine import RandomBot
from services.common.registry import engine_for
from services.common.rng import KIND_KEYED, KIND_PCG32, KeyedRng, Rng, Seed, new_rng
from services.common.runner import Match, Snapshot, play_out

seeds = st.integers(0, 2**256 - 1)


@given(seeds, st.integers(1, 10**12))
def test_the_same_key_gives_the_same_draws(value: int, bound: int) -> None:
    first, second = new_rng(Seed(value)), new_rng(Seed(value))
    assert [first.randbelow(bound) for _ in range(40)] == [second.randbelow(bound) for _ in range(40)]
    assert first.random() == second.random() and first.state == second.state


def test_different_keys_give_unrelated_draws() -> None:
    draws = {tuple(new_rng(Seed(value)).randbelow(2**32) for _ in range(4)) for value in range(200)}
    assert len(draws) == 200
    high_bit = new_rng(Seed(1 << 255))
    assert [high_bit.randbelow(2**32) for _ in range(4)] != [new_rng(Seed(0)).randbelow(2**32) for _ in range(4)]


def test_the_stream_is_blake2b_of_the_block_counter_under_the_seed() -> None:
    key = bytes(range(32))
    rng = new_rng(Seed(int.from_bytes(key, "big")))
    words = [rng.randbelow(2**32) for _ in range(20)]
    blocks = b"".join(
        hashlib.blake2b(i.to_bytes(16, "little"), key=key, person=b"chaiwala-rng-v1", digest_size=64).digest()
        for i in range(2)
    )
    assert words == [int.from_bytes(blocks[4 * i : 4 * i + 4], "little") for i in range(20)]


@given(seeds, st.integers(0, 70), st.integers(1, 1000))
def test_a_snapshot_taken_mid_stream_continues_the_same_draws(value: int, before: int, bound: int) -> None:
    rng = new_rng(Seed(value))
    for _ in range(before):
        rng.randbelow(bound)
    stored = orjson.loads(orjson.dumps(rng.state))  # as the snapshot JSON keeps it
    assert stored["kind"] == KIND_KEYED and len(stored["key"]) == 64
    restored = Rng.from_state(stored)
    items = list(range(30))
    twin = list(items)
    rng.shuffle(items)
    restored.shuffle(twin)
    assert items == twin
    assert [rng.randbelow(bound) for _ in range(25)] == [restored.randbelow(bound) for _ in range(25)]
    assert rng.state == restored.state


def test_a_fork_is_keyed_differs_by_salt_and_leaves_its_parent_alone() -> None:
    rng = new_rng(Seed(12345))
    rng.randbelow(10)
    before = rng.state
    left, right = rng.fork(1), rng.fork(2)
    assert rng.state == before
    assert left.kind == right.kind == KIND_KEYED and left.state != right.state
    assert rng.fork(1).state == left.state
    assert [left.randbelow(2**32) for _ in range(8)] != [right.randbelow(2**32) for _ in range(8)]


# Chi-square over 52 cells has 51 degrees of freedom (mean 51): 91.0 is about its 0.9995
# quantile and 18.5 about its 0.00001 quantile (Wilson-Hilferty), so a fair generator fails
# this fixed-seed, hence deterministic, test with probability about 1 in 2000 per seed; below
# the low bound the counts would be too even to be random.
CELLS, DRAWS, CHI2_LOW, CHI2_HIGH = 52, 104_000, 18.5, 91.0


@pytest.mark.parametrize("seed", [Seed(2026), Seed(2**256 - 1), Seed(7, KIND_PCG32)])
def test_randbelow_is_uniform_by_a_chi_square_test(seed: Seed) -> None:
    rng = new_rng(seed)
    counts = [0] * CELLS
    for _ in range(DRAWS):
        counts[rng.randbelow(CELLS)] += 1
    expected = DRAWS / CELLS
    chi2 = sum((count - expected) ** 2 / expected for count in counts)
    assert CHI2_LOW < chi2 < CHI2_HIGH, chi2


def test_randbelow_of_a_bound_above_32_bits_covers_its_range() -> None:
    rng = new_rng(Seed(99))
    bound = 3 * 2**40
    draws = [rng.randbelow(bound) for _ in range(3000)]
    assert all(0 <= d < bound for d in draws)
    assert sum(d >= 2 * 2**40 for d in draws) > 800  # the top third is reached (about 1000 expected)


def test_old_pcg32_states_load_and_continue_exactly_as_before() -> None:
    # Recorded from services/common/rng.py as it was (PCG32 only), for the same calls.
    fresh = Rng(20261201)
    assert [fresh.randbelow(1000) for _ in range(5)] == [510, 496, 143, 371, 616]
    assert fresh.state == "56d7ba3238ec777d" and fresh.kind == KIND_PCG32
    stored = Rng.from_state("0123456789abcdef")
    assert [stored.randbelow(52) for _ in range(8)] == [9, 35, 23, 9, 37, 34, 42, 16]
    assert stored.random() == 0.2543298704424737
    assert stored.state == "e3ffaef9e3b7b3fc" and stored.fork(7).state == "aec823cd62c15cb5"
    assert new_rng(Seed(20261201, KIND_PCG32)).state == Rng(20261201).state == new_rng(20261201).state


@pytest.mark.parametrize(
    "state",
    [{"kind": "mt19937"}, {"kind": KIND_KEYED, "key": "00" * 31, "at": 0}, {"kind": KIND_KEYED, "key": "00" * 32},
     {"kind": KIND_KEYED, "key": "00" * 32, "at": -1}, {"kind": KIND_KEYED, "key": "00" * 32, "at": True}],
)  # fmt: skip
def test_a_malformed_state_is_refused(state: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Rng.from_state(state)


def test_a_seed_is_at_most_256_bits_of_a_known_generator() -> None:
    assert Seed(2**256 - 1).hex == "f" * 64 and Seed(10).hex == "0" * 63 + "a"
    for bad in (lambda: Seed(2**256), lambda: Seed(-1), lambda: Seed(1, "mt19937")):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(ValueError):
        KeyedRng(b"short")


@pytest.mark.parametrize("seed", [Seed(2**200 + 17), Seed(2**63 + 5, KIND_PCG32)])
@pytest.mark.parametrize("game", ["darjeeling", "tea_rum", "alubari"])
def test_seed_and_log_replay_a_whole_game_with_either_generator(seed: Seed, game: str) -> None:
    engine = engine_for(game)
    match = Match.start(engine, 2, seed)
    log: list[tuple[int, dict[str, object]]] = []
    play_out(match, {0: RandomBot(), 1: RandomBot()}, after_move=lambda _m, seat, move, _e: log.append((seat, move)))
    kind = match.snapshot.rng["kind"] if isinstance(match.snapshot.rng, dict) else KIND_PCG32
    assert kind == seed.generator
    again = Match.start(engine, 2, seed)
    for seat, move in log:
        again.play(seat, move)
    assert again.snapshot.to_json() == match.snapshot.to_json()
    reloaded = Snapshot.from_json(match.snapshot.to_json())
    assert Rng.from_state(reloaded.rng).state == match.snapshot.rng
