"""What a player can still reach before the end of the game: sound upper bounds from public facts.

Used for the 2-player early decision: a blue game whose only proven allegiance can no
longer be matched is over at once.  Every bound over-counts on purpose: each worker turn
left gives the best row or alternative of the game, and every card or track step the
player could still get (each captain of the display and of the rounds to come, each
building type still in stock, each reputation step ahead, every ship of every ship phase
to come) is counted in full, once.  The
captain deck is taken as every captain of the later rounds, so the bound never depends on
which cards the hidden deck holds.
"""

from __future__ import annotations

from typing import Any

from services.tea_rum.actions import board_key, row_options
from services.tea_rum.content import CONTENT, Effects
from services.tea_rum.effects import State
from services.tea_rum.players import Player, continuous

ROUNDS = CONTENT.rules["rounds"]
WORKERS = CONTENT.rules["workers_per_player"]
# The icon each lasting requirement grows with.
ICON = {"population": "population", "reputation": "stars", "buildings": "build", "same_colour": "build",
        "contracts": "contract", "captains": "captain"}


def icon_count(effects: Effects, icon: str) -> int:
    """How many ``icon`` an effect list gives at most (the better side of every ``/``)."""
    total = 0
    for g in effects:
        if g["kind"] == "choice":
            total += max((icon_count(o["gains"], icon) for o in g["options"]), default=0)
        elif g["kind"] == icon:
            total += 1 if icon in ("build", "contract", "captain") else g["amount"]
    return total


def worker_turns_left(state: State, seat: int) -> int:
    """Worker turns ``seat`` still has, this round and in the rounds to come."""
    later = WORKERS * (ROUNDS - state["round"])
    phase = state["phase"]
    if phase in ("income", "ships"):
        return later + WORKERS
    if phase != "actions":
        return later
    ahead = state["order"][state["turn"]:]
    spent = 1 if state["stage"] == "after" and ahead and ahead[0] == seat else 0
    return later + ahead.count(seat) - spent


def _best_turn(state: State, icon: str) -> int:
    """The most ``icon`` any one worker turn of this game can give (any row or alternative)."""
    best = 0
    for b, board in enumerate(CONTENT.boards):
        best = max(best, icon_count(board["alternative"], icon))
        for row in range(1, len(state["boards"][b]["tiles"]) + 1):
            best = max([best, *(icon_count(o, icon) for o in row_options(state, b, row))])
    return best


def _cards_left(state: State, player: Player) -> list[Effects]:
    """Every effect list the player may still receive from a card or a track step, once each."""
    later = [c for c, card in CONTENT.captains.items() if card["round"] > state["round"]]
    captains = [CONTENT.captains[c] for c in [*state["captains"], *later]]
    lists = [c["instant"] + c["reward"] for c in captains]
    lists += [CONTENT.captains[c["id"]]["reward"] for c in player["captains"] if c["face_up"]]
    buildings = [b for b, n in state["buildings"].items() if n > 0 and b not in player["buildings"]]
    lists += [CONTENT.buildings[b]["vp"] + CONTENT.buildings[b]["instant"] for b in buildings]
    lists += [CONTENT.reputation[s] for s in range(player["reputation"] + 1, CONTENT.reputation_max + 1)]
    return lists


def _ships_left(state: State, icon: str) -> int:
    """What every ship of every ship phase still to come could give (a player may buy several)."""
    phases = ROUNDS - state["round"] + (1 if state["phase"] in ("income", "ships") else 0)
    per_phase = sum(max(icon_count(row, icon) for row in ship["rows"]) for ship in CONTENT.ships.values())
    return phases * per_phase


def _pending(player: Player, icon: str) -> int:
    """What the player's queue still holds of ``icon``."""
    total = 0
    for task in player["pending"]:
        kind = task["task"]
        if kind == "gain":
            total += icon_count([task["gain"]], icon)
        elif kind == "choose":
            total += max((icon_count(o["gains"], icon) for o in task["options"]), default=0)
        elif kind == icon or (kind == "rep_step" and icon == "stars"):
            total += 1
    return total


def gains_left(state: State, player: Player, icon: str) -> int:
    """At most how many ``icon`` the player can still gain, before the follow-ups of contracts."""
    turns = worker_turns_left(state, player["seat"])
    cards = sum(icon_count(effects, icon) for effects in _cards_left(state, player))
    return turns * _best_turn(state, icon) + cards + _pending(player, icon) + _ships_left(state, icon)


def _population_phases_left(state: State) -> int:
    done_this_round = state["phase"] in ("end_round", "final", "exchange", "over")
    return ROUNDS - state["round"] + (0 if done_this_round else 1)


def _contract_stars(state: State, player: Player) -> int:
    """Stars one more contract can bring: its space's bonus and every City Hall-like building."""
    space = max(icon_count(bonus, "stars") for bonus in CONTENT.rules["contract_spaces"][board_key(state)])
    owned = continuous(player, "contract_stars")
    buildable = sum(CONTENT.buildings[b]["continuous"].get("contract_stars", 0)
                    for b, n in state["buildings"].items() if n > 0 and b not in player["buildings"])
    return space + owned + buildable


def most(state: State, player: Player, requirement: str) -> int:
    """The highest value ``requirement`` can still reach for ``player`` (an upper bound)."""
    icon = ICON[requirement]
    more = gains_left(state, player, icon)
    if requirement == "population":
        grown = player["population"] + more + _population_phases_left(state)
        return min(grown, CONTENT.rules["population"]["max"])
    if requirement == "reputation":
        stars = more + most_new(state, player, "contracts") * _contract_stars(state, player)
        return min(player["reputation"] + stars, CONTENT.reputation_max)
    if requirement == "same_colour":
        return _most_same_colour(state, player, more)
    return len(player[requirement]) + most_new(state, player, requirement)


def most_new(state: State, player: Player, requirement: str) -> int:
    """At most how many more buildings, contracts or captains the player can take."""
    available = {
        "buildings": sum(1 for b, n in state["buildings"].items() if n > 0 and b not in player["buildings"]),
        "contracts": sum(1 for c in state["contracts"] if c) + len(state["contract_deck"]),
        "captains": len(state["captains"]) + sum(1 for c in CONTENT.captains.values() if c["round"] > state["round"]),
    }[requirement]
    return min(available, gains_left(state, player, ICON[requirement]))


def _most_same_colour(state: State, player: Player, builds: int) -> int:
    best = 0
    for colour in {b["colour"] for b in CONTENT.buildings.values()}:
        owned = sum(1 for b in player["buildings"] if CONTENT.buildings[b]["colour"] == colour)
        stock = sum(1 for b, n in state["buildings"].items()
                    if n > 0 and b not in player["buildings"] and CONTENT.buildings[b]["colour"] == colour)
        best = max(best, owned + min(builds, stock))
    return best


def condition_reachable(state: State, player: Player, condition: dict[str, Any]) -> bool:
    """Whether an allegiance condition may still be met by the end (paying and the VP gap always may)."""
    if "pay" in condition or "vp_gap" in condition:
        return True
    return all(most(state, player, key) >= need for key, need in condition.items())


def can_still_prove(state: State, player: Player) -> bool:
    """Whether the player might still prove an allegiance by the end of the game."""
    if player["allegiance_done"]:
        return True
    if player["allegiance"]:
        return condition_reachable(state, player, CONTENT.allegiances[player["allegiance"]]["condition"])
    if player["chest"] and not any(t["task"] == "allegiance" for t in player["pending"]):
        return False  # the allegiance is chosen when the chest closes; none was left then
    free = [a["id"] for a in state["allegiances"] if a["taken_by"] < 0]
    return any(condition_reachable(state, player, CONTENT.allegiances[a]["condition"]) for a in free)


def early_governor(state: State) -> int | None:
    """2 players: the seat already certain to win, before the end of round V, or None.

    That is when blue is the final victory colour (most of the five cards are already face
    up blue), one player has proven their allegiance and the other can no longer prove one:
    the lone proven player is the Governor whatever the VP.
    """
    if state["n"] != 2 or state["phase"] in ("final", "exchange", "over"):
        return None
    if state["victory_cards"].count("blue") <= ROUNDS // 2:
        return None
    proven = [p for p in state["players"] if p["allegiance_done"]]
    if len(proven) != 1:
        return None
    other = state["players"][1 - proven[0]["seat"]]
    return None if can_still_prove(state, other) else int(proven[0]["seat"])


__all__ = ["can_still_prove", "early_governor", "most"]
