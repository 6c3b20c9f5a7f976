"""Every bot of a game, with the search bot's levels (moves and plans) at a tiny budget so property tests stay quick."""

from __future__ import annotations

from dataclasses import replace

from services.bots.levels import SearchBot
from services.bots.roster import bots_for
from services.common.engine import Bot, Engine

TINY_SAMPLES = 2
TINY_DEPTH = 3


def quick_bots(engine: Engine) -> dict[str, Bot]:
    """``bots_for(engine)``; search levels keep their code paths but spend a few short playouts only.

    A bot asked with ``choose`` remembers nothing (a plan is searched from the view it is asked
    with), so a twin position never reuses the real one's choice.
    """
    bots = bots_for(engine)
    return {
        name: replace(
            bot,
            budget=replace(bot.budget, samples=TINY_SAMPLES, depth=TINY_DEPTH),
            plans=replace(bot.plans, samples=TINY_SAMPLES, depth=TINY_DEPTH) if bot.plans else None,
        )
        if isinstance(bot, SearchBot)
        else bot
        for name, bot in bots.items()
    }
