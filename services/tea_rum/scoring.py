"""The end of the game: the 10-point cap, the Governor, the Pirate King, the winners."""

from __future__ import annotations

from typing import Any

from services.tea_rum.content import CONTENT
from services.tea_rum.effects import Events, State
from services.tea_rum.players import Player, condition_met


def cap_gap(player: Player, events: Events) -> None:
    """Lose VP of the larger colour until blue and red are at most 10 apart."""
    limit = CONTENT.rules["vp_gap_cap"]["max_gap"]
    lost_blue = max(0, player["blue"] - player["red"] - limit)
    lost_red = max(0, player["red"] - player["blue"] - limit)
    if not (lost_blue or lost_red):
        return
    player["blue"] -= lost_blue
    player["red"] -= lost_red
    events.append({"vp_capped": {"seat": player["seat"], "lost_blue": lost_blue, "lost_red": lost_red}})


def allegiance_proven(player: Player) -> bool:
    """Whether the player has fulfilled an allegiance (checked after the cap)."""
    if not player["allegiance"]:
        return False
    if player["allegiance_done"]:
        return True
    return condition_met(player, CONTENT.allegiances[player["allegiance"]]["condition"])


def _best(players: list[Player], first: str, second: str) -> list[int]:
    if not players:
        return []
    top = max((p[first], p[second]) for p in players)
    return sorted(p["seat"] for p in players if (p[first], p[second]) == top)


def governors(players: list[Player]) -> list[int]:
    """Seats appointed Governor: only proven allegiances; most blue, then red; ties share."""
    eligible = [p for p in players if allegiance_proven(p)]
    if len(eligible) == 1:
        return [eligible[0]["seat"]]
    return _best(eligible, "blue", "red")


def pirate_kings(players: list[Player]) -> list[int]:
    """Seats crowned Pirate King: most red, then blue; ties share."""
    return _best(players, "red", "blue")


def victory_colour(state: State) -> str:
    """2 players: the majority colour of the five victory type cards."""
    cards = state["victory_cards"]
    return "blue" if cards.count("blue") > cards.count("red") else "red"


def final_result(state: State, events: Events, early: bool = False) -> dict[str, Any]:
    """Apply the cap and decide Governor, Pirate King and winners (``early``: a 2-player early decision)."""
    players = state["players"]
    for p in players:
        cap_gap(p, events)
    gov = governors(players)
    kings = pirate_kings(players)
    colour = ""
    if state["n"] == 2:
        colour = victory_colour(state)
        winners = gov if colour == "blue" else kings
    else:
        winners = sorted(set(gov) | set(kings))
    final = {
        "governors": gov,
        "pirate_kings": kings,
        "winners": winners,
        "victory_colour": colour,
        "blue": [p["blue"] for p in players],
        "red": [p["red"] for p in players],
        "allegiance_proven": [allegiance_proven(p) for p in players],
        "decided_early": early,
    }
    events.append({"game_over": final})
    return final
