"""Random games of every type played in process, printed exactly as the rules services print them.

:func:`printed_messages` yields every view (each seat's and a spectator's), every legal move and
every event (as each seat and a spectator receive it) of a few random games, as proto3 JSON with
every field printed (``protojson.to_dict``), beside the component of the served OpenAPI document
that describes it.  The contract tests check each one against its schema: every string a closed
set declares (``(chaiwala.v1.values)``) must be in it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from services.common import protojson
from services.common.engine import RandomBot
from services.common.registry import engine_for
from services.common.runner import Match

# (players, seed) of the random games per game type, and how many moves each game is cut to:
# enough to reach every phase of the shorter games; the bots tests play games to the end.
GAMES: dict[str, list[tuple[int, int]]] = {
    "darjeeling": [(2, 11), (4, 12)],
    "tea_rum": [(2, 21), (3, 22), (4, 23)],
    "alubari": [(1, 31), (2, 32), (4, 33)],
    "india_rails": [(2, 41), (3, 42)],
}
MAX_MOVES = 400


def _printed(game_type: str, name: str, data: dict[str, Any]) -> dict[str, Any]:
    return protojson.to_dict(protojson.from_engine(game_type, name, data))


def printed_messages(game_type: str, players: int, seed: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """(component name, printed message) for everything one random game shows its seats."""
    engine = engine_for(game_type)
    match = Match.start(engine, players, seed)
    bot = RandomBot()
    viewers: list[int | None] = [*range(players), None]
    for moves in range(MAX_MOVES):
        for viewer in viewers:
            yield f"chaiwala.{game_type}.v1.State", _printed(game_type, "State", engine.view(match.state, viewer))
        if engine.is_over(match.state):
            return
        seat = match.to_act()[0]
        for move in match.legal_moves(seat):
            yield f"chaiwala.{game_type}.v1.Move", _printed(game_type, "Move", move)
        events = match.play(seat, match.bot_move(bot, seat, moves))
        for event in events:
            for viewer in viewers:
                shown = engine.event_view(event, viewer)
                if shown is not None:
                    yield f"chaiwala.{game_type}.v1.Event", _printed(game_type, "Event", shown)
