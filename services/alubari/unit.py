"""Alubari as the platform sees it: engine, protos (``chaiwala.alubari.v1``), web table, port slot."""

from __future__ import annotations

from services.common.registry import GameUnit

UNIT = GameUnit(game_type="alubari", engine="services.alubari.engine:AlubariEngine", slot=0, table="alubari")
