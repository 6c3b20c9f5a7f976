"""A random walk through a game: the shared start of property tests over positions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from services.common.engine import Engine, Event, Move, RandomBot
from services.common.runner import Match

Log = list[tuple[int, dict[str, Any]]]


def random_steps(match: Match, steps: int) -> Iterator[tuple[int, int, Move, list[Event]]]:
    """Play up to ``steps`` random moves on ``match`` (fewer if the game ends), yielding after each its
    step number, the seat that moved (the first to act), the move and the events it made."""
    bot = RandomBot()
    for step in range(steps):
        if match.engine.is_over(match.state):
            return
        seat = match.to_act()[0]
        move = match.bot_move(bot, seat, step)
        yield step, seat, move, match.play(seat, move)


def random_walk(engine: Engine, players: int, seed: int, steps: int) -> tuple[Match, Log]:
    """A game of ``players`` from ``seed`` after up to ``steps`` random moves (fewer if it ends), with its log."""
    match = Match.start(engine, players, seed)
    log: Log = [(seat, move) for _, seat, move, _ in random_steps(match, steps)]
    return match, log
