"""Darjeeling as the platform sees it: engine, protos (``chaiwala.darjeeling.v1``), web table, port slot."""

from __future__ import annotations

from services.common.registry import GameUnit

UNIT = GameUnit(
    game_type="darjeeling", engine="services.darjeeling.engine:DarjeelingEngine", slot=1, table="darjeeling"
)
