"""Alubari as the platform sees it: engine, protos (``chaiwala.alubari.v1``), web table, port slot,
search settings, score estimate and bots-report tables."""

from __future__ import annotations

from typing import Any

from services.common.registry import GameUnit

# The search bot's settings for this game (services.bots.levels.SearchProfile's fields).
# Alubari (~480 moves, ~5 ms) stops after a round or so. Solo scale 100, so a point weighs about
# what it weighs in a close 2-player game (0.3 / (4 × 8) ≈ 1 / 107) and a rival must gain 2 points
# on average to replace the heuristic's move (edge 0.02); the heuristic's solo games end at 185-225
# points (60 seeds of the bots report). Searched: where a worker goes and what is bought, built or
# played; which cube to take, whether to boost the chai and the foundry's steps (over half its
# ~480 moves) follow the heuristic.
SEARCH: dict[str, Any] = dict(
    margin_scale=8.0,
    solo_scale=100.0,
    depth=60,
    decisions=frozenset(
        {"place_worker", "take_contract", "play_contract", "build_station", "buy_equipment", "chaiwala_convert"}
    ),
)


# The bots report's tables (services.arena.report_runs.ReportTables): a two-seat heuristic table is
# ~0.12 CPU s (~470 moves). Solo: the search bot (~65 s of CPU a game) on 40 seeds against the
# heuristic's solo scores on the same seeds; a 4-player search-bot table is ~38 CPU s.
ARENA: dict[str, Any] = dict(table_seconds=0.12, versus=60, balance=60,
                             search={1: 40, 2: 24, 3: 24, 4: 24, 5: 25}, strongest={2: 24, 3: 24, 4: 24, 5: 25})


UNIT = GameUnit.built_in("alubari", "AlubariEngine", slot=0, estimated=True, search=SEARCH, arena=ARENA)
