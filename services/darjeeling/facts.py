"""Darjeeling content facts for the arena: turn position, region, and who ended the game."""

from __future__ import annotations

from typing import Any

State = dict[str, Any]


def content_facts(state: State) -> list[list[str]]:
    """Per seat: ``turn_position:K`` (1 = start player), ``region:NAME`` (the designed region
    played), ``ended_game`` for the seat that shipped its last crate, and
    ``action_tiles_kept:K`` (action tiles still unplayed at the end)."""
    n = state["players"]
    facts: list[list[str]] = []
    for seat, data in enumerate(state["seats"]):
        seat_facts = [f"turn_position:{(seat - state['start_player']) % n + 1}", f"region:{state['region']}"]
        if state.get("ended_by") == seat:
            seat_facts.append("ended_game")
        seat_facts.append(f"action_tiles_kept:{min(len(data['actions']), 2)}")
        facts.append(seat_facts)
    return facts
