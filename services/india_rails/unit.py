"""India Rails as the platform sees it: engine, protos (``chaiwala.india_rails.v1``), web table, port slot."""

from __future__ import annotations

from services.common.registry import GameUnit

UNIT = GameUnit(
    game_type="india_rails", engine="services.india_rails.engine:IndiaRailsEngine", slot=3, table="india_rails"
)
