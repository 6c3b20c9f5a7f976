"""A player's board: money, warehouse, tracks, and what their buildings and captains give."""

from __future__ import annotations

from typing import Any

from services.tea_rum.content import CONTENT, RESOURCES, WISH_SYMBOLS

Player = dict[str, Any]


def new_player(seat: int) -> Player:
    """A fresh player board before the starting endowment."""
    return {
        "seat": seat,
        "money": 0,
        "population": CONTENT.rules["population"]["start"],
        "reputation": 0,
        "blue": 0,
        "red": 0,
        "chest": False,
        "res": dict.fromkeys(RESOURCES, 0),
        "expansions": [False] * len(CONTENT.rules["warehouse"]["expansion_costs"]),
        "buildings": [],
        "captains": [],
        "contracts": [],
        "allegiance": 0,
        "allegiance_done": False,
        "endowment": 0,
        "pending": [],
        "ships_passed": False,
        "final_done": False,
        "exchange_done": False,
        "exchanged": {"blue": 0, "red": 0},
    }


def continuous(player: Player, kind: str) -> int:
    """Sum of one continuous building effect over the player's buildings."""
    return sum(CONTENT.buildings[b]["continuous"].get(kind, 0) for b in player["buildings"])


def capacity(player: Player) -> int:
    """How many resources the warehouse holds now."""
    base = CONTENT.rules["warehouse"]["base_spaces"]
    return base + sum(player["expansions"]) + continuous(player, "warehouse_spaces")


def stored(player: Player) -> int:
    """How many resources are in the warehouse."""
    return sum(player["res"].values())


def overflowing(player: Player) -> bool:
    """Whether the warehouse holds more than it may (the player must expand or discard)."""
    return stored(player) > capacity(player)


def expansion_cost(index: int) -> int:
    """Money to remove warehouse expansion token ``index``."""
    return int(CONTENT.rules["warehouse"]["expansion_costs"][index])


def open_expansions(player: Player) -> list[int]:
    """Expansion tokens the player can pay for now."""
    return [
        i for i, bought in enumerate(player["expansions"]) if not bought and player["money"] >= expansion_cost(i)
    ]


def wish_totals(player: Player) -> dict[str, int]:
    """People's-wish symbols on the player's buildings and captains."""
    totals = dict.fromkeys(WISH_SYMBOLS, 0)
    for b in player["buildings"]:
        for sym, n in CONTENT.buildings[b]["wish"].items():
            totals[sym] += n
    for c in player["captains"]:
        for sym, n in CONTENT.captains[c["id"]]["wish"].items():
            totals[sym] += n
    return totals


def can_pay(player: Player, cost: dict[str, int]) -> bool:
    """Whether the player holds every coin and resource of ``cost``."""
    for key, n in cost.items():
        have = player["money"] if key == "coins" else player["res"][key]
        if have < n:
            return False
    return True


def activatable_captains(player: Player) -> list[int]:
    """Face-up captains whose cannons the player can pay now."""
    return [
        c["id"]
        for c in player["captains"]
        if c["face_up"] and player["res"]["cannon"] >= CONTENT.captains[c["id"]]["cannons"]
    ]


def same_colour_max(player: Player) -> int:
    """The most buildings the player has of one colour."""
    counts: dict[str, int] = {}
    for b in player["buildings"]:
        colour = CONTENT.buildings[b]["colour"]
        counts[colour] = counts.get(colour, 0) + 1
    return max(counts.values(), default=0)


def standing(player: Player) -> dict[str, int]:
    """Where the player stands on each lasting allegiance requirement."""
    return {
        "buildings": len(player["buildings"]),
        "population": player["population"],
        "same_colour": same_colour_max(player),
        "reputation": player["reputation"],
        "contracts": len(player["contracts"]),
        "captains": len(player["captains"]),
    }


def condition_met(player: Player, condition: dict[str, Any]) -> bool:
    """Whether an allegiance condition (other than paying) holds now."""
    checks = standing(player)
    for key, need in condition.items():
        if key == "vp_gap":
            if abs(player["blue"] - player["red"]) > need:
                return False
        elif key == "pay" or checks[key] < need:
            return False
    return True


def is_monotone(condition: dict[str, Any]) -> bool:
    """Conditions that can only become true and stay true (checked as the game goes)."""
    return "vp_gap" not in condition and "pay" not in condition


def can_prove_by_paying(player: Player) -> bool:
    """An allegiance that is proved by paying, not yet proved, and affordable now."""
    if not player["allegiance"] or player["allegiance_done"]:
        return False
    cost = CONTENT.allegiances[player["allegiance"]]["condition"].get("pay")
    return bool(cost) and can_pay(player, cost)
