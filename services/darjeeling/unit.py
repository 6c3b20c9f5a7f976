"""Darjeeling as the platform sees it: engine, protos (``chaiwala.darjeeling.v1``), web table, port slot,
search settings and score estimate."""

from __future__ import annotations

from typing import Any

from services.common.registry import GameUnit

# The search bot's settings for this game (services.bots.levels.SearchProfile's fields).
# Darjeeling's whole game (~110 moves) costs well under a tenth of a second: it plays to the end,
# every decision searched with the heuristic's runners-up as rivals.
SEARCH: dict[str, Any] = dict(margin_scale=10.0)


UNIT = GameUnit(
    game_type="darjeeling", engine="services.darjeeling.engine:DarjeelingEngine", slot=1, table="darjeeling"
)
