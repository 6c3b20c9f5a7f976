"""The benchmarks run end to end and report well-formed rows beside their baselines.

No timing is asserted: the quick slice (``python -m bench --quick``) runs every suite but the
micro one on a real Redis with the servers in threads, and these tests check what it reports
(ratios, verdicts, error counts, the files) and that the load it generated was real (moves
were played, every SSE listener got every event).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from bench.__main__ import bench_modules, main
from bench.config import QUICK
from bench.engine_cases import game_case, step_case
from bench.harness import Case, measure
from bench.results import Row, compare, markdown
from services.common.registry import engine_for

SUITES = ["engines", "render", "rest", "grpc", "sse", "memory"]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("bench")
    return main(["--quick", "--out", str(out), *SUITES]), out  # type: ignore[return-value]


def _rows(doc: dict[str, Any], suite: str) -> dict[str, dict[str, Any]]:
    return {row["case"]: row for row in doc["rows"] if row["suite"] == suite}


def test_the_quick_slice_reports_every_suite_beside_its_baseline(quick_run: tuple[dict[str, Any], Path]) -> None:
    doc, out = quick_run
    assert {row["suite"] for row in doc["rows"]} == set(SUITES)
    assert not [row for row in doc["rows"] if row["case"] == "suite_failed"]
    for row in doc["rows"]:
        assert row["value"] >= 0 and row["baseline_value"] > 0, row
        assert row["ratio"] == pytest.approx(row["value"] / row["baseline_value"], rel=1e-3, abs=1e-4)
        assert row["met"] in (None, True, False) and (row["met"] is None) == (row["goal"] is None)
    written = json.loads(next(out.glob("*.json")).read_text())
    assert written["rows"] == doc["rows"] and written["machine"]["cores"] >= 1
    assert next(out.glob("*.md")).read_text().count("\n| ") == len(doc["rows"]) + 1  # header + one line per row


def test_the_load_was_real_and_nothing_failed(quick_run: tuple[dict[str, Any], Path]) -> None:
    doc, _ = quick_run
    rest = _rows(doc, "rest")["move_path_4_games"]
    assert rest["details"]["done"] > 0 and rest["details"]["errors"] == 0
    # The latency row's moves went through the lean client, paced at half of its own saturation.
    paced = _rows(doc, "rest")["move_p99_at_half_saturation_4_games"]["details"]
    assert paced["client"] == "bench.lean_http" and paced["done"] > 0 and paced["errors"] == 0
    assert 0 < paced["offered_moves_per_s"] <= paced["saturated_moves_per_s"]
    assert _rows(doc, "grpc")["submit_moves_4_games"]["details"]["errors"] == 0
    # The shape's floor (bench.floor) made real moves over HTTP and over gRPC, none refused.
    floor_moves = _rows(doc, "rest")["floor_stack_cpu_per_move_4_games"]["details"]
    assert floor_moves["done"] > 0 and floor_moves["errors"] == 0
    assert floor_moves["redis_cpu_ms_per_move"] > 0 and floor_moves["rules_cpu_ms_per_move"] > 0
    lean = _rows(doc, "rest")["floor_lean_stack_cpu_per_move_4_games"]["details"]
    assert lean["done"] > 0 and lean["errors"] == 0
    for case in ("floor_submit_cpu_per_call", "floor_commit_only_cpu_per_call"):
        assert _rows(doc, "grpc")[case]["details"]["done"] > 0 and _rows(doc, "grpc")[case]["details"]["errors"] == 0
    # SubmitMoves over its floor: both sides measured in the same interleaved rounds of this run, the
    # ratio the median of the rounds' own, the goal beside it.
    over = _rows(doc, "grpc")["submit_moves_cpu_over_floor"]
    assert over["details"]["floor_cpu_ms"] == _rows(doc, "grpc")["floor_submit_cpu_per_call"]["value"] > 0
    assert over["details"]["submit_moves_cpu_ms"] == _rows(doc, "grpc")["submit_moves_cpu_per_call"]["value"]
    assert over["goal"] == 2.0 and over["baseline_value"] == 1.0
    _assert_paired(over["details"], over["ratio"])
    # Its goal is set against the floor, once: the row against the echo carries none.
    assert _rows(doc, "grpc")["submit_moves_cpu_per_call"]["goal"] is None
    # Beside it, the masked call: players reading only to_act, against the same floor and goal.
    masked = _rows(doc, "grpc")["submit_moves_masked_cpu_over_floor"]
    assert masked["details"]["floor_cpu_ms"] == over["details"]["floor_cpu_ms"] and masked["goal"] == 2.0
    _assert_paired(masked["details"], masked["ratio"])
    # The REST move over the shape's floor: the same pairing, the floor's row the median of its rounds.
    rest_over = _rows(doc, "rest")["stack_cpu_per_move_over_floor_4_games"]
    assert rest_over["details"]["floor_cpu_ms"] == _rows(doc, "rest")["floor_stack_cpu_per_move_4_games"]["value"]
    assert rest_over["goal"] == 1.5 and floor_moves["rounds"] == rest_over["details"]["pairs"]
    _assert_paired(rest_over["details"], rest_over["ratio"])
    assert masked["details"]["read_mask"] == "to_act" and masked["details"]["call"] == "SubmitMoves with read_mask"
    assert masked["details"]["done"] > 0 and masked["details"]["errors"] == 0
    delivery = _rows(doc, "sse")["delivery_p99_3_listeners"]["details"]
    # Every open listener got every measured move's event, none failed to connect.
    assert delivery["open"] == 3 and delivery["connect_errors"] == 0
    assert delivery["missed"] == 0 and delivery["deliveries"] == delivery["expected"] > 0
    # The floor (a bare server writing the same bytes) reached the same listeners with every move.
    floor = _rows(doc, "sse")["delivery_p99_3_listeners_vs_floor"]["details"]["floor"]
    assert floor["open"] == 3 and floor["missed"] == 0 and floor["deliveries"] == delivery["expected"]
    assert floor["bytes_per_move"] > 0
    memory = _rows(doc, "memory")
    assert memory["darjeeling_snapshot_and_meta"]["value"] > 0
    assert memory["darjeeling_bytes_per_logged_move"]["details"]["stream_bytes"] > 0
    engines = _rows(doc, "engines")
    fastest = [row for case, row in engines.items() if case != "india_rails_vs_darjeeling_steps"]
    assert max(row["ratio"] for row in fastest) == pytest.approx(1.0)  # the fastest game is its own baseline


def _assert_paired(notes: dict[str, Any], ratio: float) -> None:
    """A ratio formed from paired rounds: every round of the quick slice paired, the median of theirs."""
    rounds = [float(value) for value in notes["ratios"].split()]
    assert notes["pairs"] == len(rounds) == QUICK.pair_rounds
    assert notes["ratio_min"] <= ratio <= notes["ratio_max"]
    assert ratio == pytest.approx(statistics.median(rounds), abs=2e-3)  # the notes print 3 decimals


@pytest.fixture(scope="module")
def capacity_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return main(["--quick", "--out", str(tmp_path_factory.mktemp("capacity")), "capacity"])


@pytest.mark.slow  # make run's whole supervised stack (about 30 s): make test runs it, make test-fast not
def test_the_capacity_slice_plays_the_whole_mix_on_make_runs_stack(capacity_run: dict[str, Any]) -> None:
    rows = _rows(capacity_run, "capacity")
    assert "suite_failed" not in rows, rows.get("suite_failed")
    steps = [row["details"] for case, row in rows.items() if case.startswith("step")]
    assert len(steps) == 1
    step = steps[0]
    # Every part of the mix was there: players on their streams, bot games, spectators, webhooks.
    mix = (step["players"], step["games"], step["bot_games"], step["spectators"], step["webhooks"])
    assert mix == (40, 50, 10, 10, 2)
    # And did real work: players moved on their notices, the conductor's bot answered, webhooks arrived
    # signed, nothing was refused (a slow step may break the p99 goal; that is a figure, not checked here).
    assert step["moves"] > 0 and step["bot_moves_per_s"] > 0 and step["webhooks_per_s"] > 0
    assert step["notice_p99_ms"] > 0 and step["webhook_p99_ms"] > 0
    refused = ("move_", "webhook_unverified", "player_stream")
    assert not [kind for kind in step["error_kinds"] if kind.startswith(refused)]
    assert step["held"] == (not step["broke"])
    # The stack measured is make run's: every process of it used the CPU the row reports.
    assert {"gateway", "conductor", "webhook", "rules-darjeeling"} <= set(step["cpu_percent_by_process"])
    summary = rows["largest_steady_mix_move_p99"]
    assert summary["baseline_value"] == 50 and summary["details"]["first_bad"] == ({} if step["held"] else {
        name: step[name] for name in summary["details"]["first_bad"]})  # fmt: skip
    assert summary["goal"] == 1.0 and (summary["met"] is None) == (not step["held"]) and summary["met"] in (None, True)
    for row in rows.values():
        assert row["value"] >= 0 and row["baseline_value"] > 0, row


def _many_streams_run(tmp_path_factory: pytest.TempPathFactory, suite: str) -> dict[str, dict[str, Any]]:
    """One many-streams suite's quick slice (its own run: one test each, so xdist runs it once), its rows
    well-formed and every stream holder's load real: each connected, none ended early, every event or
    notice expected arrived at the gateway's listeners and at the bare server's, no move refused."""
    doc = main(["--quick", "--out", str(tmp_path_factory.mktemp(suite)), suite])
    rows = _rows(doc, suite)  # type: ignore[arg-type]
    assert "suite_failed" not in rows, rows.get("suite_failed")
    for row in rows.values():  # the players' Redis commands are counted against none ("none", 0)
        assert row["value"] >= 0 and (row["baseline_value"] > 0 or row["baseline"] == "none"), row
    count = 40 if suite == "listeners" else 20  # bench.config.QUICK's many_listeners and many_players
    moves = rows[f"moves_with_{count}_{suite}"]
    assert moves["goal"] == 0.8 and moves["details"]["move_errors"] == moves["details"]["quiet_errors"] == 0
    latency = "delivery" if suite == "listeners" else "notice"
    streams = rows[f"{latency}_p99_{count}_{suite}_vs_floor"]
    assert streams["goal"] == 2.0 and "failed" not in streams["details"], streams["details"]
    case, floor = streams["details"], streams["details"]["floor"]
    assert case["open"] == floor["open"] == count and case["connect_errors"] == 0, case
    assert case["closed_early"] == 0 and "stream_error_kinds" not in case, case
    assert case["missed"] == floor["missed"] == 0 and case["deliveries"] == floor["deliveries"] > 0, case
    assert rows[f"memory_per_connection_{count}_{suite}"]["details"] == {"open": count, "floor_open": count}
    return rows


@pytest.mark.slow  # about 20 s: make test runs it, make test-fast not
def test_the_listeners_slice_reaches_every_listener_of_every_game(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = _many_streams_run(tmp_path_factory, "listeners")
    details = rows["moves_with_40_listeners"]["details"]
    assert (details["games"], details["per_game"]) == (4, "2 seats + 8 spectators")
    assert details["rules_redis_connections"] > 0  # the rules services' stream muxes, counted in Redis


@pytest.mark.slow  # about 25 s: make test runs it, make test-fast not
def test_the_players_slice_tells_every_player_whose_turn_came(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = _many_streams_run(tmp_path_factory, "players")
    assert rows["moves_with_20_players"]["details"]["games"] == 20
    redis = rows["redis_commands_per_player_per_minute_20_players"]["details"]
    assert redis["idle_window_s"] > 0 and redis["connected"]["commands_per_s"] >= 0


def test_compare_adds_the_earlier_ratio_and_the_change() -> None:
    rows = [Row("rest", "a", "moves/s", 50, "trivial", 100, goal=0.35), Row("sse", "b", "ms", 10, "redis", 2, "lower")]
    earlier = {"date": "then", "rows": [{**rows[0].to_json(), "ratio": 0.25}]}
    current = {"date": "now", "machine": {"cpu": "x", "cores": 2, "python": "3.11", "commit": "c", "load_average": []},
               "settings": {}, "rows": [row.to_json() for row in rows]}  # fmt: skip
    compare(current, earlier)
    assert current["rows"][0]["earlier_ratio"] == 0.25 and current["rows"][0]["change"] == 2.0
    assert "earlier_ratio" not in current["rows"][1]
    assert current["rows"][0]["met"] is True and current["rows"][1]["met"] is None
    assert "| rest | a | 50 |" in markdown(current)
    assert "| ≥ 0.35 | yes |" in markdown(current) and "| ≤ 2 | NO (not measured) |" in markdown(
        {**current, "rows": [Row("sse", "c", "ms", 1, "redis", 0, "lower", goal=2.0).to_json()]}
    )


def test_a_lower_is_better_goal_is_met_at_or_under_it() -> None:
    assert Row("memory", "m", "bytes", 300, "budget", 300, better="lower", goal=1.0).met is True
    assert Row("memory", "m", "bytes", 301, "budget", 300, better="lower", goal=1.0).met is False
    assert Row("rest", "r", "moves/s", 1, "trivial", 0).ratio is None


def test_measure_reports_a_ratio_to_the_baseline_timed_in_the_same_run() -> None:
    rows = measure(
        [Case("noop", lambda: None), Case("own-baseline", lambda: None, baseline=("noop", lambda: None))],
        min_seconds=0.02,
    )
    assert [row["case"] for row in rows] == ["noop", "own-baseline"]
    assert rows[0]["baseline"] == "darjeeling-step" and rows[1]["baseline"] == "noop"
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
    assert {"darjeeling", "conductor", "india_rails"} <= set(names)
    assert not {"__main__", "harness", "engine_cases", "procs", "results", "load"} & set(names)
