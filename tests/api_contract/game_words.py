"""Games of every type played in process, printed exactly as the rules services print them.

:func:`printed_messages` yields every view (each seat's and a spectator's), every legal move of the
seat to act and every event (as each seat and a spectator receive it) of one game, as proto3 JSON
with every field printed (``protojson.to_dict``, what the gateway serves), with the name of the
OpenAPI component that describes it.  The contract tests check each one against its schema, so a
string outside the closed set its field declares (``(chaiwala.v1.values)``) fails them.

Each game type is played twice: once by random bots (odd corners: trades, discards, passes) and
once by the heuristic bots, which reach the late phases and the end of the game.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from services.common import protojson
from services.common.engine import Bot, RandomBot
from services.common.registry import engine_for
from services.common.runner import Match

# India Rails with every variant that adds moves, fees and events of its own.
INDIA_VARIANTS = dict.fromkeys(
    [
        "mercy_borrowing",
        "mercy_late_fees",
        "mercy_backtracking",
        "crossgrading",
        "open_contracts",
        "field_warehousing",
        "cost_to_move",
        "cost_to_load",
        "track_trading",
        "additional_trains",
        "fast_game_five_cards",
    ],
    True,
)


@dataclass(frozen=True)
class Game:
    """One game to play: seats, seed, which bots, how many moves at most, options."""

    players: int
    seed: int
    bots: str
    max_moves: int
    options: dict[str, Any] = field(default_factory=dict)


# India Rails games run for thousands of moves, so they are cut short; the others end within the limit.
GAMES: dict[str, list[Game]] = {
    "darjeeling": [Game(2, 11, "random", 300), Game(4, 12, "heuristic", 400)],
    "tea_rum": [Game(2, 21, "random", 400), Game(3, 22, "heuristic", 400)],
    "alubari": [Game(1, 31, "random", 300), Game(2, 32, "heuristic", 600)],
    "india_rails": [
        Game(2, 41, "random", 400),
        Game(3, 43, "random", 300, {**INDIA_VARIANTS, "stall_rounds": 6}),
        Game(2, 42, "heuristic", 500),
    ],
}


def _printed(game_type: str, name: str, data: dict[str, Any]) -> dict[str, Any]:
    return protojson.to_dict(protojson.from_engine(game_type, name, data))


def printed_messages(game_type: str, game: Game) -> Iterator[tuple[str, dict[str, Any]]]:
    """(component name, printed message) for everything one game shows its seats and spectators."""
    engine = engine_for(game_type)
    match = Match.start(engine, game.players, game.seed, game.options)
    heuristic = engine.heuristic_bot()
    bot: Bot = heuristic if game.bots == "heuristic" and heuristic is not None else RandomBot()
    viewers: list[int | None] = [*range(game.players), None]
    prefix = f"chaiwala.{game_type}.v1"
    for moves in range(game.max_moves):
        for viewer in viewers:
            yield f"{prefix}.State", _printed(game_type, "State", engine.view(match.state, viewer))
        if engine.is_over(match.state):
            return
        seat = match.to_act()[0]
        for move in match.legal_moves(seat):
            yield f"{prefix}.Move", _printed(game_type, "Move", move)
        for event in match.play(seat, match.bot_move(bot, seat, moves)):
            for viewer in viewers:
                shown = engine.event_view(event, viewer)
                if shown is not None:
                    yield f"{prefix}.Event", _printed(game_type, "Event", shown)
