"""India Rails content facts for the arena: turn position, trains, and whether the network joined."""

from __future__ import annotations

from typing import Any

from services.india_rails.track import connected_majors

State = dict[str, Any]


def content_facts(state: State) -> list[list[str]]:
    """Per seat: ``turn_position:K`` (1 = first player), ``loco:TYPE`` of each train at the end,
    ``connected`` when its track joins all five major cities, and ``finish:REASON``."""
    n = len(state["players"])
    facts: list[list[str]] = []
    for seat, player in enumerate(state["players"]):
        seat_facts = [f"turn_position:{(seat - state['first']) % n + 1}"]
        seat_facts += [f"loco:{train['loco']}" for train in player["trains"]]
        if connected_majors(player["track"]):
            seat_facts.append("connected")
        seat_facts.append(f"finish:{state.get('finish_reason') or 'victory'}")
        facts.append(seat_facts)
    return facts
