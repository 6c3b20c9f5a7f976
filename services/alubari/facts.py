"""Alubari content facts for the arena: which contracts, Equipment and estates each seat had."""

from __future__ import annotations

from typing import Any

from services.alubari.content import EQUIPMENT

State = dict[str, Any]


def content_facts(state: State) -> list[list[str]]:
    """Per seat: ``turn_position:1`` (1 = the first start player), ``contract:ID`` (taken),
    ``contract_done:ID`` (scored at the end), ``equipment:NAME`` (owned at the end) and
    ``estate:NAME`` (an estate card with at least one space the seat owns)."""
    n = state["n"]
    first = int(state["options"].get("first_player", 0)) % n
    final = state.get("final") or [{} for _ in range(n)]
    facts: list[list[str]] = []
    for seat, player in enumerate(state["players"]):
        seat_facts = [f"turn_position:{(seat - first) % n + 1}"]
        seat_facts += [f"contract:{held['id']}" for held in player["contracts"]]
        seat_facts += [f"contract_done:{card}" for card in final[seat].get("completed_contracts", [])]
        seat_facts += [f"equipment:{EQUIPMENT[item]['name']}" for item in player["equipment"]]
        owned = {e["name"] for e in state["estates"] if any(s["owner"] == seat for s in e["spaces"])}
        seat_facts += [f"estate:{name}" for name in sorted(owned)]
        facts.append(seat_facts)
    return facts
