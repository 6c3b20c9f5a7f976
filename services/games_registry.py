"""The platform's games, registered one level above the kernel (:mod:`services.common.registry`).

Each game's folder declares its unit (``services/<game>/unit.py``); this module only says which
games the platform ships.  A unit's ``slot`` fixes its ports (``50051 + slot`` for its rules
service, ``9101 + slot`` for its metrics under ``make run``): Alubari 0, Darjeeling 1, Tea & Rum 2,
India Rails 3.  Adding a game is one import and one ``register`` line here.
"""

from __future__ import annotations

from services.alubari.unit import UNIT as ALUBARI
from services.common.registry import register
from services.darjeeling.unit import UNIT as DARJEELING
from services.india_rails.unit import UNIT as INDIA_RAILS
from services.tea_rum.unit import UNIT as TEA_RUM

for unit in (ALUBARI, DARJEELING, TEA_RUM, INDIA_RAILS):
    register(unit)
