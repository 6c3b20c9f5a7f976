"""Every bot of a game, with the search bot's levels (moves and plans) at a tiny budget so property tests stay quick."""

from __future__ import annotations

from dataclasses import replace

from services.bots import plans
from services.bots.levels import SearchBot
from services.bots.roster import bots_for
from services.common.engine import Bot, Engine

TINY_SAMPLES = 2
TINY_DEPTH = 3


def quick_bots(engine: Engine) -> dict[str, Bot]:
    """``bots_for(engine)``; search levels keep their code paths but spend a few short playouts only.

    Fresh: the process's remembered plan commitments are forgotten too, so each plan is searched
    again from the view it is asked with (a twin position must not reuse the real one's choice).
    """
    plans.COMMITMENTS.clear()
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
