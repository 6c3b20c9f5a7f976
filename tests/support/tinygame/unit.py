"""Pile's registration: importing this module registers the test game (``CHAIWALA_GAME_UNITS``).

Its generated proto module is ``tinygame_pb2``, compiled by the tests into a directory they put on
the path (:mod:`tests.support.tinygame.protos`); it has no table module of its own (the generic one).
"""

from __future__ import annotations

from services.common.registry import GameUnit, register

UNIT = GameUnit(game_type="tinygame", engine="tests.support.tinygame.engine:PileEngine", slot=90, protos="tinygame_pb2")
register(UNIT)
