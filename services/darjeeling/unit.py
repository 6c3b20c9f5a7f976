"""Darjeeling as the platform sees it: engine, protos (``chaiwala.darjeeling.v1``), web table, port slot,
search settings, score estimate and bots-report tables."""

from __future__ import annotations

from typing import Any

from services.common.registry import GameUnit

# The search bot's settings for this game (services.bots.levels.SearchProfile's fields).
# Darjeeling's whole game (~110 moves) costs well under a tenth of a second: it plays to the end,
# every decision searched with the heuristic's runners-up as rivals.
SEARCH: dict[str, Any] = dict(margin_scale=10.0)


# The bots report's tables (services.arena.report_runs.ReportTables): a two-seat heuristic table is
# ~0.02 CPU s (~110 moves), so balance plays 2,000 tables: its positions differ by 4-8 points at 4-5
# seats, which 200 tables once hid (seeds/darjeeling/README.md, Balance). A 5-player search-bot table
# is ~125 CPU s: fewer search tables at 4-5 seats, whole seat rotations.
ARENA: dict[str, Any] = dict(table_seconds=0.02, versus=200, balance=2000,
                             search={2: 24, 3: 24, 4: 16, 5: 15}, strongest={2: 24, 3: 24, 4: 16, 5: 15})


UNIT = GameUnit.built_in("darjeeling", "DarjeelingEngine", slot=1, estimated=False, arena=ARENA)
