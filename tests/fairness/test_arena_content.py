"""The arena's content statistics, the engines' content-facts hook and the committed report's pieces."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from services.arena.bots_report import GAMES, plan_runs, render_report
from services.arena.content import SeatOutcome, content_stats, flagged, seat_outcomes, turn_positions
from services.arena.stats import summarize
from services.arena.tables import TableResult, TableSpec
from services.common.engine import GameConfig
from services.common.registry import engine_for
from services.common.rng import Rng


def _outcome(won: bool, *facts: str) -> SeatOutcome:
    return SeatOutcome(frozenset(facts), won)


def test_content_rows_compare_seats_with_and_without_an_item() -> None:
    # 40 seats, 10 wins (base 25 %).  "card:7" on 12 seats with 9 wins; "card:3" on 10 seats, 1 win.
    outcomes = (
        [_outcome(True, "card:7") for _ in range(9)]
        + [_outcome(False, "card:7") for _ in range(3)]
        + [_outcome(True, "card:3")]
        + [_outcome(False, "card:3") for _ in range(9)]
        + [_outcome(False, "rare:1") for _ in range(9)]
        + [_outcome(False) for _ in range(9)]
    )
    rows = {row["item"]: row for row in content_stats(outcomes)}
    assert set(rows) == {"card:3", "card:7"}, "items on fewer than 10 seats are left out"
    seven = rows["card:7"]
    assert (seven["seats"], seven["wins"], seven["without_seats"]) == (12, 9, 28)
    assert seven["win_rate"] == 0.75 and seven["without_win_rate"] == pytest.approx(1 / 28)
    assert seven["lift"] == pytest.approx(0.75 - 1 / 28) and seven["base_rate"] == 0.25
    # Wilson (9, 12), z = 1.96: centre (0.75 + z²/24) / (1 + z²/12) = 0.6941, half 0.2256.
    assert seven["win_rate_ci95"] == pytest.approx([0.4677, 0.9111], abs=1e-4)
    assert seven["verdict"] == "high" and seven["kind"] == "card"
    three = rows["card:3"]
    # Wilson (1, 10): 0.0179 to 0.4042 holds the base rate 25 %.
    assert three["win_rate_ci95"] == pytest.approx([0.0179, 0.4042], abs=1e-4)
    assert three["verdict"] == "within"
    # Among one-card seats (10 wins of 22), card:3's one win is low: 4.5 expected, 1.57 deviations.
    assert three["peer_verdict"] == "low" and seven["peer_verdict"] == "high"
    assert [row["item"] for row in flagged(rows.values())] == ["card:3", "card:7"]
    assert content_stats([]) == []


def test_an_item_is_measured_against_the_seats_holding_as_many_items_of_its_kind() -> None:
    # Seats with two Equipment cards win 40 of 80 (A+B, C+B); seats with one win 22 of 100 (D, E).
    outcomes = [_outcome(t < 20, "equipment:A", "equipment:B", "turn_position:1") for t in range(40)]
    outcomes += [_outcome(t < 20, "equipment:C", "equipment:B", "turn_position:2") for t in range(40)]
    outcomes += [_outcome(t < 8, "equipment:D", f"turn_position:{1 + t % 2}") for t in range(80)]
    outcomes += [_outcome(t < 14, "equipment:E", "turn_position:2") for t in range(20)]
    rows = {row["item"]: row for row in content_stats(outcomes)}
    owns_more = rows["equipment:A"]
    # 50 % beside a 62/180 base is "high", but no better than the other seats with two cards.
    assert owns_more["verdict"] == "high"
    assert owns_more["peer_expected_wins"] == pytest.approx(20.0) and owns_more["peer_ratio"] == pytest.approx(1.0)
    assert owns_more["peer_verdict"] == "within"
    dominant, weak = rows["equipment:E"], rows["equipment:D"]
    # One-card peers win 22 %: E expects 20 × 0.22 = 4.4 and won 14, z = 9.6 / 1.85; D expects 17.6, won 8.
    assert dominant["peer_expected_wins"] == pytest.approx(4.4) and dominant["peer_ratio"] == pytest.approx(14 / 4.4)
    assert dominant["peer_verdict"] == "high" and weak["peer_verdict"] == "low"
    assert weak["peer_ratio"] == pytest.approx(8 / 17.6)
    # turn_position is held once by every seat: one peer group, the base rate's verdict.
    first = rows["turn_position:1"]
    assert first["peer_expected_wins"] == pytest.approx(first["seats"] * 62 / 180)
    assert first["peer_verdict"] == first["verdict"] == "within"
    assert [row["item"] for row in flagged(rows.values())] == [f"equipment:{name}" for name in "ABCDE"]


def test_a_low_item_is_flagged_and_rows_sort_by_kind_then_number() -> None:
    outcomes = [_outcome(s % 2 == 0, f"card:{10 if s % 2 else 2}") for s in range(60)]
    outcomes += [_outcome(False, "card:9") for _ in range(20)]
    rows = content_stats(outcomes)
    assert [row["item"] for row in rows] == ["card:2", "card:9", "card:10"]
    assert [row["verdict"] for row in rows] == ["high", "low", "low"]


def test_turn_positions_come_in_turn_order_however_few_seats() -> None:
    outcomes = [_outcome(True, "turn_position:2"), _outcome(False, "turn_position:10")]
    outcomes += [_outcome(False, "turn_position:1"), _outcome(True, "turn_position:1")]
    rows = turn_positions(outcomes)
    assert [row["item"] for row in rows] == ["turn_position:1", "turn_position:2", "turn_position:10"]
    assert [row["win_rate"] for row in rows] == [0.5, 1.0, 0.0]


def _table(winner: int, facts: tuple[tuple[str, ...], ...], finished: bool = True) -> TableResult:
    spec = TableSpec("tea_rum", ("heuristic", "heuristic"), seed=winner)
    return TableResult(spec, finished, 10, 0.1, (1.0, 0.0), (1, 2), (winner,), facts=facts)


def test_seat_outcomes_and_the_summary_read_facts_of_finished_tables_only() -> None:
    first = (("turn_position:1", "endowment:1"), ("turn_position:2", "endowment:2"))
    second = (("turn_position:2", "endowment:1"), ("turn_position:1", "endowment:2"))
    results = [_table(0, first), _table(0, second), _table(1, second), _table(1, first, finished=False)]
    outcomes = seat_outcomes(results)
    assert len(outcomes) == 6 and sum(o.won for o in outcomes) == 3
    summary = summarize("tea_rum", 2, results)
    # Turn position 1 won at tables 1 and 3 (seat 0 of table 1, seat 1 of table 3), lost at table 2.
    assert summary["turn_position_win_rate"] == pytest.approx([2 / 3, 1 / 3])
    assert summary["content"] == [], "6 seats are too few for content rows"


@pytest.mark.parametrize("game", GAMES)
def test_every_engine_reports_content_facts_with_a_turn_position_per_seat(game: str) -> None:
    engine = engine_for(game)
    players = max(2, engine.min_players) + 1
    state = engine.setup(GameConfig(players, engine.validate_options(players, {})), Rng(11))
    facts = engine.content_facts(state)
    assert facts is not None and len(facts) == players
    positions = sorted(int(f.split(":")[1]) for seat in facts for f in seat if f.startswith("turn_position:"))
    assert positions == list(range(1, players + 1))
    assert all(":" in fact or fact in {"ended_game", "connected"} for seat in facts for fact in seat)


def test_the_report_plan_covers_every_count_of_every_game() -> None:
    runs = plan_runs(scale=0.1, search_bot="random")
    for game in GAMES:
        engine = engine_for(game)
        multiplayer = set(range(max(2, engine.min_players), engine.max_players + 1))
        assert {r.players for r in runs if r.game == game and r.section == "versus"} == multiplayer
        assert {r.players for r in runs if r.game == game and r.section == "balance"} == multiplayer
        assert {r.players for r in runs if r.game == game and r.section == "strongest"} == multiplayer
        assert all(r.tables >= r.players for r in runs if r.game == game)
    assert {r.bots for r in runs if r.section == "solo"} == {("heuristic",), ("random",)}
    assert all(len(set(r.bots)) == 1 for r in runs if r.section == "balance")


def test_the_report_is_rendered_from_its_summary_with_sections_flags_and_plots(tmp_path: Path) -> None:
    facts = (("turn_position:1", "card:1"), ("turn_position:2", "card:2"))
    mirror = [_table(t % 2, facts) for t in range(30)]

    def won_by_heuristic(table: int, bots: tuple[str, ...]) -> TableResult:
        first = bots.index("heuristic") == 0
        ranking, scores = ((1, 2), (1.0, 0.0)) if first else ((2, 1), (0.0, 1.0))
        return TableResult(
            TableSpec("tea_rum", bots, table), True, 10, 0.1, scores, ranking, (bots.index("heuristic"),)
        )

    versus = [won_by_heuristic(t, b) for t, b in enumerate([("heuristic", "random"), ("random", "heuristic")] * 5)]
    entries = [
        {
            "run": {"section": "versus", "bots": ["heuristic", "random"], "tables": 10},
            "summary": summarize("tea_rum", 2, versus),
        },
        {
            "run": {"section": "balance", "bots": ["heuristic"] * 2, "tables": 30},
            "summary": summarize("tea_rum", 2, mirror),
        },
    ]
    meta = {"jobs": 2, "scale": 1.0, "seed": 1, "tables": 40, "minutes": 0.5}
    folder = tmp_path / "bots-report"
    folder.mkdir()
    (folder / "summary.json").write_bytes(orjson.dumps({"meta": meta, "solo": None, "runs": entries}))
    text = render_report(tmp_path).read_text()
    assert "## Heuristic against random" in text and "## Balance: content" in text
    # No provenance recorded: the tables are marked.
    assert "| Tea & Rum | 2 | 10 † | 100.0 % | 72.2 %–100.0 % | 1.00 (1.00–1.00) | 0.0 % | 10 |" in text
    assert "| Tea & Rum | 2 | heuristic | 30 † |" in text
    assert "No search runs in this copy" in text and "![tea_rum](bots-report/tea_rum.png)" in text
    assert "| `card:1` | 30 | 50.0 %" in text and "No item is flagged against the base rate or its peers." in text
    assert (folder / "tea_rum.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
