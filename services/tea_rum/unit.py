"""Tea & Rum as the platform sees it: engine, protos (``chaiwala.tea_rum.v1``), web table, port slot."""

from __future__ import annotations

from services.common.registry import GameUnit

UNIT = GameUnit(game_type="tea_rum", engine="services.tea_rum.engine:TeaRumEngine", slot=2, table="tea_rum")
