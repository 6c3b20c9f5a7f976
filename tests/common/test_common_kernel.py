"""The shared pieces every engine relies on: the seeded RNG, results, the match runner."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from services.common.engine import Result
from services.common.rng import Rng


@given(st.integers(min_value=0, max_value=2**63), st.lists(st.integers(min_value=1, max_value=1000), max_size=30))
def test_rng_state_round_trips_and_replays(seed: int, bounds: list[int]) -> None:
    first = Rng(seed)
    saved = first.state
    drawn = [first.randbelow(b) for b in bounds]
    again = Rng.from_state(saved)
    assert [again.randbelow(b) for b in bounds] == drawn
    assert all(0 <= d < b for d, b in zip(drawn, bounds, strict=True))


@given(st.integers(min_value=0, max_value=2**32), st.lists(st.integers(), max_size=40))
def test_shuffle_is_a_permutation(seed: int, items: list[int]) -> None:
    shuffled = list(items)
    Rng(seed).shuffle(shuffled)
    assert sorted(shuffled) == sorted(items)


def test_different_seeds_give_different_streams() -> None:
    assert [Rng(1).randbelow(10**9) for _ in range(3)] != [Rng(2).randbelow(10**9) for _ in range(3)]


def test_randbelow_is_roughly_uniform() -> None:
    rng = Rng(99)
    counts = [0] * 6
    for _ in range(6000):
        counts[rng.randbelow(6)] += 1
    assert all(850 < c < 1150 for c in counts)


def test_results_rank_ties_together() -> None:
    result = Result.from_scores([10, 30, 30, 5])
    assert result.ranking == [3, 1, 1, 4]
    assert result.winners == [1, 2]
    broken = Result.from_scores([10, 30, 30, 5], tiebreak=[0, 1, 2, 0])
    assert broken.ranking == [3, 2, 1, 4] and broken.winners == [2]
