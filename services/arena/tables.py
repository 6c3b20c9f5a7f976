"""One arena table: a whole game played in-process by bots, from a derived seed."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from services.bots.roster import bots_for
from services.common.registry import engine_for
from services.common.runner import Match


@dataclass(frozen=True)
class TableSpec:
    """What to play: the game, the bot of each seat, the seed, and a move budget."""

    game: str
    bots: tuple[str, ...]
    seed: int
    max_moves: int = 50_000
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TableResult:
    """How a table ended.  ``finished`` is false when the move budget ran out first."""

    spec: TableSpec
    finished: bool
    moves: int
    seconds: float
    scores: tuple[float, ...] = ()
    ranking: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    # Per seat, the content ids the engine reports for the end (``Engine.content_facts``); empty if none.
    facts: tuple[tuple[str, ...], ...] = ()
    # CPU seconds of the process that played the table (what it costs on a free core, whatever the load).
    cpu_seconds: float = 0.0


def play_table(spec: TableSpec) -> TableResult:
    """Play ``spec`` to its end (or its move budget) and return the outcome."""
    engine = engine_for(spec.game)
    bots = bots_for(engine)
    unknown = sorted(set(spec.bots) - set(bots))
    if unknown:
        raise ValueError(f"{spec.game} has no bot {', '.join(unknown)}; choose from {sorted(bots)}")
    started, cpu_started = time.perf_counter(), time.process_time()
    match = Match.start(engine, len(spec.bots), spec.seed, spec.options)
    moves = 0
    while not engine.is_over(match.state) and moves < spec.max_moves:
        seat = match.to_act()[0]
        match.play(seat, match.bot_move(bots[spec.bots[seat]], seat, moves))
        moves += 1
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    result = engine.result(match.state)
    if result is None:
        return TableResult(spec, finished=False, moves=moves, seconds=seconds, cpu_seconds=cpu_seconds)
    return TableResult(
        spec,
        finished=True,
        moves=moves,
        seconds=seconds,
        scores=tuple(result.scores),
        ranking=tuple(result.ranking),
        winners=tuple(result.winners),
        facts=tuple(tuple(seat) for seat in engine.content_facts(match.state) or ()),
        cpu_seconds=cpu_seconds,
    )
