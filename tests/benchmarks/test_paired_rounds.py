"""The turns and the paired ratio behind the benchmarks' move-over-floor rows (bench.checkouts).

Pure logic, no timing: the order the sides are measured in, and how the rounds' ratios are formed,
summarised and left out.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bench.__main__ import configure, parse
from bench.checkouts import alternate, medians, paired, take_turns
from bench.config import FULL


def test_the_sides_take_turns_round_by_round_and_each_keeps_its_own_series() -> None:
    calls: list[tuple[str, int]] = []

    async def measure(side: str, turn: int) -> dict[str, float]:
        calls.append((side, turn))
        return {"cpu_ms": 10 * turn + (1 if side == "move" else 2)}

    figures = asyncio.run(take_turns({"move": "move", "floor": "floor"}, 3, measure))
    assert calls == [("move", 0), ("floor", 0), ("move", 1), ("floor", 1), ("move", 2), ("floor", 2)]
    assert figures == {"move": {"cpu_ms": [1, 11, 21]}, "floor": {"cpu_ms": [2, 12, 22]}}


def test_the_checkouts_ab_loop_is_the_same_loop() -> None:
    order: list[str] = []

    def measure(root: Path, turn: int) -> dict[str, float]:
        order.append(f"{root.name}{turn}")
        return {"ms": float(turn)}

    figures = alternate({"before": Path("/a"), "after": Path("/b")}, 2, measure)
    assert order == ["a0", "b0", "a1", "b1"]
    assert figures == {"before": {"ms": [0.0, 1.0]}, "after": {"ms": [0.0, 1.0]}}


def test_the_ratio_is_the_median_of_each_rounds_own_not_the_ratio_of_medians() -> None:
    # Rounds where the machine was busy raise both sides: each round's ratio sees through it.
    pairs = paired([2.0, 6.0, 3.0, 9.0], [1.0, 3.0, 2.0, 4.0])
    assert pairs.ratios == (2.0, 2.0, 1.5, 2.25)
    assert pairs.median == 2.0
    assert pairs.median != 4.5 / 2.5  # medians of the sides would say 1.8
    notes = pairs.notes()
    assert notes["pairs"] == 4 and notes["ratio_min"] == 1.5 and notes["ratio_max"] == 2.25
    assert notes["ratios"] == "2.000 2.000 1.500 2.250"
    low, high = (float(bound) for bound in notes["ratio_iqr"].split("-"))
    assert 1.5 <= low <= 2.0 <= high <= 2.25


def test_a_round_whose_floor_did_nothing_is_left_out_and_none_leaves_no_ratio() -> None:
    assert paired([3.0, 5.0], [0.0, 2.0]).ratios == (2.5,)
    single = paired([3.0], [2.0]).notes()
    assert single["pairs"] == 1 and single["ratio_iqr"] == "1.500-1.500"
    empty = paired([1.0], [0.0])
    assert empty.median == 0.0 and empty.notes() == {"pairs": 0}


def test_sides_measured_a_different_number_of_rounds_cannot_be_paired() -> None:
    with pytest.raises(ValueError, match="2 rounds against 3"):
        paired([1.0, 2.0], [1.0, 1.0, 1.0])


def test_medians_are_per_case_of_one_side() -> None:
    assert medians({"cpu_ms": [3.0, 1.0, 2.0], "done": [10.0, 30.0], "none": []}) == {"cpu_ms": 2.0, "done": 20.0}


def test_rounds_on_the_command_line_set_how_many_pairs_a_run_takes() -> None:
    assert configure(parse(["rest", "grpc", "--rounds", "20"])).pair_rounds == 20
    assert configure(parse(["rest"])).pair_rounds == FULL.pair_rounds
