"""Tea & Rum as the platform sees it: engine, protos (``chaiwala.tea_rum.v1``), web table, port slot,
search settings, score estimate and bots-report tables."""

from __future__ import annotations

from typing import Any

from services.common.registry import GameUnit

# The search bot's settings for this game (services.bots.levels.SearchProfile's fields).
# Tea & Rum (~180 moves, ~3 ms each) stops after a round or so. Its searched decisions are the
# turn's choices (a worker's action, what to build, hire or fulfil); the market's
# buy/sell/plate/confirm steps (two in five of its moves) carry out the heuristic's trade.
SEARCH: dict[str, Any] = dict(
    margin_scale=4.0,
    depth=60,
    decisions=frozenset(
        {"worker_action", "hire_captain", "buy_ship", "build", "take_allegiance", "fulfill_contract", "choose_option"}
    ),
)


# The bots report's tables (services.arena.report_runs.ReportTables): a two-seat heuristic table is
# ~0.10 CPU s (~180 moves).
ARENA: dict[str, Any] = dict(table_seconds=0.10, versus=100, balance=150,
                             search={2: 24, 3: 24, 4: 24}, strongest={2: 24, 3: 24, 4: 24})


UNIT = GameUnit.built_in("tea_rum", "TeaRumEngine", slot=2, estimated=True, search=SEARCH, arena=ARENA)
