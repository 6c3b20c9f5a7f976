"""A random walk through a game: the shared start of property tests over positions."""

from __future__ import annotations

from typing import Any

from services.common.engine import Engine, RandomBot
from services.common.runner import Match

Log = list[tuple[int, dict[str, Any]]]


def random_walk(engine: Engine, players: int, seed: int, steps: int) -> tuple[Match, Log]:
    """A game of ``players`` from ``seed`` after up to ``steps`` random moves (fewer if it ends), with its log."""
    match = Match.start(engine, players, seed)
    log: Log = []
    for step in range(steps):
        if engine.is_over(match.state):
            break
        seat = match.to_act()[0]
        move = match.bot_move(RandomBot(), seat, step)
        match.play(seat, move)
        log.append((seat, move))
    return match, log
