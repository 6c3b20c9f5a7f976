"""The committed bots report: re-playing some runs keeps the others, with each run's provenance."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from services.arena.bots_report import (
    build_report,
    compare_solo,
    matches,
    plan_runs,
    select,
    solo_comparisons,
)
from services.arena.bots_report_text import search_verdict
from services.cli.main import app


def _solo(section: str, bot: str, scores: list[tuple[int, float | None]]) -> dict[str, Any]:
    return {
        "run": {"section": section, "game": "alubari", "players": 1, "bots": [bot], "tables": len(scores)},
        "summary": {"game": "alubari", "players": 1, "cpu_seconds_per_game": 2.0},
        "solo_scores": [list(pair) for pair in scores],
    }


def test_specs_select_runs_by_section_game_and_count_with_wildcards() -> None:
    runs = plan_runs(scale=0.01)
    keys = {run.key for run in select(runs, ["versus:alubari:*"])}
    assert keys == {f"versus:alubari:{n}" for n in range(2, 6)}
    searched = {run.key for run in select(runs, ["search"], ["search:india_rails"])}
    top = {"alubari": 5, "tea_rum": 4, "darjeeling": 5}
    every_count = {f"search:{game}:{n}" for game, most in top.items() for n in range(2, most + 1)}
    assert searched == {"search:alubari:1"} | every_count, "the search bot is measured at every count of every game"
    assert {run.key for run in select(runs, ["search:india_rails"])} == {f"search:india_rails:{n}" for n in range(2, 7)}
    solo = select(runs, ["solo:alubari:1"])
    assert [run.bots for run in solo] == [("heuristic",), ("random",)], "both solo bots: they are compared"
    assert len(select(runs)) == len(runs) and select(runs, skip=["*"]) == []
    with pytest.raises(ValueError, match="names no run"):
        select(runs, ["search:alubari:7"])
    with pytest.raises(ValueError, match="SECTION"):
        matches(runs[0], "versus:alubari:2:x")


def test_solo_runs_are_compared_on_the_seeds_both_finished_and_ties_are_not_wins() -> None:
    heuristic = _solo("solo", "heuristic", [(1, 30), (2, 20), (3, 10), (4, 25), (5, None)])
    searched = _solo("search", "mcts", [(1, 31), (2, 20), (3, 9), (4, 26), (5, 40), (6, 50)])
    comparison = compare_solo(searched, heuristic)
    assert (comparison["seeds"], comparison["higher"], comparison["ties"]) == (4, 2, 1)
    assert comparison["rate"] == 0.5 and comparison["mean_scores"] == [21.5, 21.25]
    randomly = _solo("solo", "random", [(1, 10), (2, 20), (3, 12), (4, 5)])
    both = solo_comparisons([heuristic, randomly, searched])
    assert [(c["better"], c["worse"], c["higher"]) for c in both] == [
        ("heuristic", "random", 2),
        ("mcts", "heuristic", 2),
    ]


def test_search_targets_read_the_seat_rate_at_two_players_and_the_mean_rank_at_more() -> None:
    def summary(players: int, rate: float, low: float, ranks: tuple[float, float]) -> dict[str, Any]:
        bots = {
            "mcts": {
                "win_rate": rate,
                "win_rate_ci95": [low, 0.9],
                "mean_rank": ranks[0],
                "mean_rank_ci95": [1.2, 1.6],
            },
            "heuristic": {"mean_rank": ranks[1], "mean_rank_ci95": [1.9, 2.3]},
        }
        return {"players": players, "bots": bots}

    assert "**met** (lower bound 50.0 %)" in search_verdict(summary(2, 0.7, 0.5, (1.3, 1.7)), "mcts")
    assert "**not met**" in search_verdict(summary(2, 0.6, 0.4, (1.4, 1.6)), "mcts")
    assert "**met** (intervals apart)" in search_verdict(summary(3, 0.4, 0.2, (1.4, 2.1)), "mcts")
    assert "**not met**" in search_verdict(summary(3, 0.3, 0.2, (2.2, 1.9)), "mcts")


def test_replaying_one_run_replaces_its_entry_keeps_the_others_and_records_how(tmp_path: Path) -> None:
    # Two tiny Darjeeling runs played for real, then one of them re-played with another seed.
    build_report(tmp_path, jobs=1, scale=0.01, only=["versus:darjeeling:2", "versus:darjeeling:3"])
    path = tmp_path / "bots-report" / "summary.json"
    first = orjson.loads(path.read_bytes())
    assert [e["run"]["players"] for e in first["runs"]] == [2, 3]
    kept = first["runs"][1]
    build_report(tmp_path, jobs=1, scale=0.01, seed=7, only=["versus:darjeeling:2"])
    second = orjson.loads(path.read_bytes())
    replayed, same = second["runs"]
    assert same == kept, "a run not selected keeps its entry as it was"
    assert replayed["provenance"]["seed"] == 7 and first["runs"][0]["provenance"]["seed"] == 1
    assert replayed["run"]["bots"] == ["heuristic", "random"] and replayed["summary"]["games"] == 2
    made = replayed["provenance"]
    assert len(made["commit"]) == 40 and made["tables"] == 2 and len(made["load"]) == 2
    assert made["command"] == "chaiwala arena-report --only versus:darjeeling:2 --seed 7 --scale 0.01 --jobs 1"
    text = (tmp_path / "bots-report.md").read_text()
    assert "| Darjeeling | 2 | 2 |" in text and "| Darjeeling | 3 | 3 |" in text
    assert f"| `versus:darjeeling:2` | heuristic,random | 2 | 7 | {made['date']} | `{made['commit'][:10]}" in text
    assert (
        "not in this copy (`--only` plays them): `balance:alubari:2`," in text
        and "`versus:darjeeling:2`" not in text.split("not in this copy")[1]
    )
    assert (tmp_path / "bots-report" / "darjeeling.png").exists()


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [(["--only", "search:alubari:9"], "names no run"), (["--only", "versus", "--skip", "nope:x"], "names no run")],
)
def test_a_selection_that_names_no_run_is_refused_before_any_table(
    arguments: list[str], reason: str, tmp_path: Path
) -> None:
    answer = CliRunner().invoke(app, ["arena-report", "--out", str(tmp_path), *arguments])
    assert answer.exit_code == 2 and reason in answer.output
    assert not (tmp_path / "bots-report").exists()


def test_the_strongest_runs_seat_the_search_bot_everywhere() -> None:
    runs = select(plan_runs(scale=0.01), ["strongest"])  # which counts: test_arena_content's plan test
    assert runs and all(run.bots == ("mcts",) * run.players and run.tables >= run.players for run in runs)


def test_a_strongest_bot_run_is_compared_with_the_heuristic_on_the_same_tables(tmp_path: Path) -> None:
    # The random bot stands in for the search bot: cheap, and unlike the heuristic on every table.
    build_report(tmp_path, jobs=1, scale=0.1, search_bot="random", only=["strongest:darjeeling:2"])
    (run,) = orjson.loads((tmp_path / "bots-report" / "summary.json").read_bytes())["runs"]
    assert run["run"]["section"] == "strongest" and run["run"]["bots"] == ["random", "random"]
    searched, baseline = run["summary"], run["same_tables"]["summary"]
    assert run["same_tables"]["bot"] == "heuristic" and searched["games"] == baseline["games"] == 2
    assert list(baseline["bots"]) == ["heuristic"] and list(searched["bots"]) == ["random"]
    assert searched["mean_moves"] != baseline["mean_moves"], "the second pass is the heuristic's own play"
    text = (tmp_path / "bots-report.md").read_text()
    assert "## Balance with the strongest bot" in text
    row = next(line for line in text.splitlines() if line.startswith("| Darjeeling | 2 | 2 | `random` |"))
    assert row.count(" / ") == 2, "both bots' turn-position rates, two positions each"
