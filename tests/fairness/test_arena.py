"""The arena: rotated seating, derived seeds, and statistics with known intervals."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from services.arena.schedule import plan, run_tables, seating, table_seed
from services.arena.stats import summarize, unfair_seats, wilson
from services.arena.tables import TableResult, TableSpec
from services.cli.main import app


def test_wilson_intervals_of_known_counts() -> None:
    assert wilson(7, 10) == pytest.approx((0.3968, 0.8922), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_every_bot_visits_every_seat_once_per_cycle() -> None:
    tables = [seating(["a", "b", "c"], 3, t) for t in range(3)]
    assert tables == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    assert seating(["a", "b"], 4, 1) == ("b", "a", "b", "a")
    with pytest.raises(ValueError):
        seating(["a", "b", "c"], 2, 0)


def test_table_seeds_are_derived_and_distinct() -> None:
    seeds = [table_seed(1, t) for t in range(50)]
    assert len(set(seeds)) == 50 and seeds == [table_seed(1, t) for t in range(50)]
    assert seeds != [table_seed(2, t) for t in range(50)]


def _result(bots: tuple[str, ...], winners: tuple[int, ...], ranking: tuple[int, ...]) -> TableResult:
    spec = TableSpec(game="darjeeling", bots=bots, seed=0)
    return TableResult(spec, True, 10, 0.1, scores=tuple(float(-r) for r in ranking), ranking=ranking, winners=winners)


def test_summary_counts_wins_ranks_and_seats_from_known_results() -> None:
    results = [
        _result(("a", "b"), (0,), (1, 2)),
        _result(("b", "a"), (1,), (2, 1)),
        _result(("a", "b"), (1,), (2, 1)),
        _result(("b", "a"), (0, 1), (1, 1)),  # a shared win counts for both
        TableResult(TableSpec("darjeeling", ("a", "b"), 0), False, 50_000, 1.0),
    ]
    summary = summarize("darjeeling", 2, results)
    assert summary["games"] == 4 and summary["unfinished"] == 1
    assert summary["bots"]["a"]["win_rate"] == 0.75 and summary["bots"]["a"]["seats"] == 4
    assert summary["bots"]["a"]["win_rate_ci95"] == pytest.approx(list(wilson(3, 4)))
    assert summary["bots"]["b"]["mean_rank"] == pytest.approx((2 + 2 + 1 + 1) / 4)
    assert summary["seat_win_rate"] == [0.5, 0.75]
    assert summary["mean_moves"] == 10


def test_a_seat_that_always_wins_is_flagged_unfair() -> None:
    results = [_result(("a", "b"), (0,), (1, 2)) for _ in range(40)]
    assert unfair_seats(summarize("darjeeling", 2, results)) == [0, 1]


def test_a_small_fixed_run_is_reproducible_and_prints_the_contract(tmp_path: object) -> None:
    specs = plan("darjeeling", 2, ["heuristic", "random"], 4, seed=3)
    first = run_tables(specs, jobs=2)
    assert [r.moves for r in first] == [r.moves for r in run_tables(specs, jobs=1)]
    answer = CliRunner().invoke(
        app,
        [
            "arena",
            "--game",
            "darjeeling",
            "--players",
            "2",
            "--bots",
            "heuristic,random",
            "--games",
            "4",
            "--seed",
            "3",
            "--json",
        ],
    )
    assert answer.exit_code == 0, answer.output
    summary = orjson.loads(answer.stdout.strip().splitlines()[-1])
    assert {"game", "players", "games", "bots", "seat_win_rate", "mean_moves"} <= set(summary)
    assert set(summary["bots"]["heuristic"]) >= {"win_rate", "win_rate_ci95", "mean_rank", "seats"}
    assert summary["games"] + summary["unfinished"] == 4
    assert summary["mean_moves"] == pytest.approx(sum(r.moves for r in first if r.finished) / summary["games"])


def test_the_report_has_its_tables_and_plot(tmp_path: object) -> None:
    from pathlib import Path

    from services.arena.report import write_report

    results = [_result(("a", "b"), (t % 2,), (1, 2) if t % 2 == 0 else (2, 1)) for t in range(6)]
    folder = Path(str(tmp_path)) / "arena"
    report = write_report(summarize("darjeeling", 2, results), results, folder)
    text = report.read_text()
    assert "| a | 50.0 %" in text and "scores.png" in text
    assert (folder / "scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
