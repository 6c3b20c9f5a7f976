"""Tea & Rum content facts for the arena: endowments, allegiances, buildings, captains, contracts."""

from __future__ import annotations

from typing import Any

from services.tea_rum.content import CONTENT

State = dict[str, Any]


def _first_player(state: State) -> int:
    """The first player of round I: the seat whose endowment gave the least money (they all differ)."""
    coins = [CONTENT.endowments[p["endowment"]]["coins"] if p["endowment"] else 0 for p in state["players"]]
    return coins.index(min(coins))


def content_facts(state: State) -> list[list[str]]:
    """Per seat: ``turn_position:K`` (1 = round I's first player), ``endowment:ID``,
    ``allegiance:ID`` (taken) and ``allegiance_met:ID`` (proven), ``building:ID``,
    ``captain:ID`` and ``contract:ID`` (each once, however many copies)."""
    n = state["n"]
    first = _first_player(state)
    facts: list[list[str]] = []
    for seat, player in enumerate(state["players"]):
        seat_facts = [f"turn_position:{(seat - first) % n + 1}", f"endowment:{player['endowment']}"]
        if player["allegiance"]:
            seat_facts.append(f"allegiance:{player['allegiance']}")
            if player["allegiance_done"]:
                seat_facts.append(f"allegiance_met:{player['allegiance']}")
        seat_facts += [f"building:{b}" for b in sorted(set(player["buildings"]))]
        seat_facts += [f"captain:{c['id']}" for c in player["captains"]]
        seat_facts += [f"contract:{c}" for c in sorted(set(player["contracts"]))]
        facts.append(seat_facts)
    return facts
