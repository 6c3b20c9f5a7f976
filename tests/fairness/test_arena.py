"""The arena: rotated seating, derived seeds, and statistics with known intervals."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from services.arena.schedule import parse_options, plan, run_tables, seating, table_seed
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


def test_mean_rank_interval_and_seat_rates_of_a_known_run() -> None:
    results = [
        _result(("a", "b"), (0,), (1, 2)),
        _result(("b", "a"), (1,), (2, 1)),
        _result(("a", "b"), (0,), (1, 2)),
        _result(("b", "a"), (0,), (1, 2)),
    ]
    summary = summarize("darjeeling", 2, results)
    # a's ranks 1, 1, 1, 2: mean 1.25, sample sd 0.5, half width 1.96 * 0.5 / sqrt(4) = 0.49.
    assert summary["bots"]["a"]["mean_rank"] == 1.25
    assert summary["bots"]["a"]["mean_rank_ci95"] == pytest.approx([0.76, 1.74], abs=1e-4)
    # a won 3 of 4: Wilson with z = 1.96: centre (0.75 + z²/8) / (1 + z²/4) = 0.6275,
    # half z * sqrt(0.75 * 0.25 / 4 + z²/64) / (1 + z²/4) = 0.3269.
    assert summary["bots"]["a"]["win_rate_ci95"] == pytest.approx([0.3006, 0.9544], abs=1e-4)
    # Seat 0 won 3 tables of 4, seat 1 one: Wilson (1, 4) is the mirror of (3, 4).
    assert summary["seat_win_rate"] == [0.75, 0.25]
    assert summary["seat_win_rate_ci95"][0] == pytest.approx([0.3006, 0.9544], abs=1e-4)
    assert summary["seat_win_rate_ci95"][1] == pytest.approx([1 - 0.9544, 1 - 0.3006], abs=1e-4)
    assert unfair_seats(summary) == []


def test_a_small_fixed_run_is_reproducible_and_the_console_script_prints_the_contract() -> None:
    specs = plan("darjeeling", 2, ["heuristic", "random"], 4, seed=3)
    first = run_tables(specs, jobs=2)
    assert [r.moves for r in first] == [r.moves for r in run_tables(specs, jobs=1)]
    script = Path(sys.executable).with_name("chaiwala")
    command = [str(script), "arena", "--game", "darjeeling", "--players", "2", "--bots", "heuristic,random"]
    answer = subprocess.run(
        [*command, "--games", "4", "--seed", "3", "--jobs", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert answer.returncode == 0, answer.stderr
    lines = answer.stdout.strip().splitlines()
    assert len(lines) == 1, "--json prints one JSON object and nothing else on stdout"
    summary = orjson.loads(lines[0])
    assert {"game", "players", "games", "bots", "seat_win_rate", "mean_moves"} <= set(summary)
    assert summary["game"] == "darjeeling" and summary["players"] == 2
    assert set(summary["bots"]) == {"heuristic", "random"}
    for data in summary["bots"].values():
        low, high = data["win_rate_ci95"]
        assert 0.0 <= low <= data["win_rate"] <= high <= 1.0
        assert 1.0 <= data["mean_rank"] <= 2.0 and isinstance(data["seats"], int)
    finished = [r for r in first if r.finished]
    assert summary["games"] == len(finished) and summary["games"] + summary["unfinished"] == 4
    assert sum(d["seats"] for d in summary["bots"].values()) == 2 * summary["games"]
    assert len(summary["seat_win_rate"]) == 2 and len(summary["turn_position_win_rate"]) == 2
    assert summary["mean_moves"] == pytest.approx(sum(r.moves for r in finished) / len(finished))
    assert summary["bots"]["heuristic"]["wins"] == sum(
        1 for r in finished for seat in r.winners if r.spec.bots[seat] == "heuristic"
    )


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        (["--game", "darjeeling", "--players", "2", "--bots", "heuristic,random,random"], "do not fit"),
        (["--game", "darjeeling", "--players", "2", "--bots", "zz"], "no bot zz"),
        (["--game", "nope", "--players", "2", "--bots", "random"], "no game type"),
        (["--game", "darjeeling", "--players", "9", "--bots", "random"], "2-5 players"),
        (["--game", "darjeeling", "--players", "2", "--bots", "random", "--option", "region=mars"], "region"),
        (["--game", "darjeeling", "--players", "2", "--bots", "random", "--option", "region"], "KEY=VALUE"),
    ],
)
def test_a_run_that_cannot_play_is_refused_with_exit_code_2(arguments: list[str], reason: str) -> None:
    answer = CliRunner().invoke(app, ["arena", *arguments, "--games", "1"])
    assert answer.exit_code == 2 and reason in answer.output


def test_options_are_parsed_as_json_where_they_can_be() -> None:
    assert parse_options(["region=india", "round_limit=100", "fast_game=true"]) == {
        "region": "india",
        "round_limit": 100,
        "fast_game": True,
    }
    assert {spec.options["region"] for spec in plan("darjeeling", 2, ["random"], 3, options={"region": "india"})} == {
        "india"
    }


def test_the_report_has_its_tables_and_plot(tmp_path: object) -> None:
    from services.arena.report import write_report

    results = [_result(("a", "b"), (t % 2,), (1, 2) if t % 2 == 0 else (2, 1)) for t in range(6)]
    folder = Path(str(tmp_path)) / "arena"
    report = write_report(summarize("darjeeling", 2, results), results, folder)
    text = report.read_text()
    assert "| a | 50.0 %" in text and "scores.png" in text
    assert (folder / "scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
