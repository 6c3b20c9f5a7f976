"""The benchmark harness reports each case beside its baseline (no timing is asserted)."""

from __future__ import annotations

from bench.__main__ import bench_modules
from bench.engine_cases import game_case, step_case
from bench.harness import Case, measure
from services.common.registry import engine_for


def test_measure_reports_a_ratio_to_the_baseline_timed_in_the_same_run() -> None:
    rows = measure(
        [Case("noop", lambda: None), Case("own-baseline", lambda: None, baseline=("noop", lambda: None))],
        min_seconds=0.02,
    )
    assert [row["case"] for row in rows] == ["noop", "own-baseline"]
    assert rows[1]["baseline"] == "noop"
    assert all(float(row["ratio_to_baseline"]) > 0 for row in rows)  # type: ignore[arg-type]


def test_shared_engine_cases_play_real_moves_and_games() -> None:
    engine = engine_for("darjeeling")
    step = step_case(engine, 2)
    step.run()
    step.run()
    assert step.run.moves == 2  # type: ignore[attr-defined]
    assert game_case(engine, 2).run() > 0


def test_make_bench_runs_only_modules_that_offer_cases() -> None:
    names = bench_modules()
    assert "platform" in names and "darjeeling" in names
    assert not {"__main__", "harness", "engine_cases"} & set(names)
