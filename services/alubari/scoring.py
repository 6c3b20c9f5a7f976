"""Final scoring, including the allocation of markers, cubes and leaves to contracts that scores the most."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.alubari.content import BOARD, CHAI_POINTS, CONTRACTS, STATIONS, TRACK, station_kind
from services.alubari.railway import owned_abilities

State = dict[str, Any]

EQUIPMENT_POINTS = BOARD["scoring"]["equipment_points"]
VERY_FINE_EXTRA = BOARD["scoring"]["very_fine_train_extra"]
LEAF_POINTS = BOARD["scoring"]["leaf_points"]
CHAI_CARD_POINTS = BOARD["scoring"]["chai_bonus_card_per_chai"]


@dataclass(frozen=True)
class Holdings:
    """What a player can move onto contract cards at the end."""

    track: int
    estate: int
    rubble_stations: int
    stone_stations: int
    other_stations: int
    leaves: int
    iron_ore: int = 0
    stone: int = 0
    steel: int = 0


@dataclass(frozen=True)
class Need:
    """One contract's requirement, with its points."""

    card: int
    track: int = 0
    estate: int = 0
    station: int = 0
    rubble_station: int = 0
    stone_station: int = 0
    tea: int = 0
    points: int = 0
    iron_ore: int = 0
    stone: int = 0
    steel: int = 0


def contract_need(card_id: int, warehouse: bool) -> Need:
    """A contract's requirement (the East India Company Warehouse trims each tea requirement by one)."""
    counts = {"track": 0, "estate": 0, "station": 0, "station_rubble": 0, "station_stone": 0, "tea": 0,
              "iron_ore": 0, "stone": 0, "steel": 0}
    for req in CONTRACTS[card_id]["requirements"]:
        if req["kind"] in counts:
            counts[req["kind"]] += int(req["count"])
    if warehouse and counts["tea"]:
        counts["tea"] -= 1
    return Need(card=card_id, track=counts["track"], estate=counts["estate"], station=counts["station"],
                rubble_station=counts["station_rubble"], stone_station=counts["station_stone"], tea=counts["tea"],
                points=int(CONTRACTS[card_id]["points"]), iron_ore=counts["iron_ore"], stone=counts["stone"],
                steel=counts["steel"])


def fits(total: Need, have: Holdings) -> bool:
    """Whether a combined requirement can be met, each marker, cube and leaf used once."""
    stations = have.rubble_stations + have.stone_stations + have.other_stations
    return (
        total.track <= have.track
        and total.estate <= have.estate
        and total.rubble_station <= have.rubble_stations
        and total.stone_station <= have.stone_stations
        and total.rubble_station + total.stone_station + total.station <= stations
        and total.tea <= have.leaves
        and total.iron_ore <= have.iron_ore
        and total.stone <= have.stone
        and total.steel <= have.steel
    )


def combine(a: Need, b: Need) -> Need:
    """Two requirements taken together."""
    return Need(card=0, track=a.track + b.track, estate=a.estate + b.estate, station=a.station + b.station,
                rubble_station=a.rubble_station + b.rubble_station, stone_station=a.stone_station + b.stone_station,
                tea=a.tea + b.tea, points=a.points + b.points, iron_ore=a.iron_ore + b.iron_ore,
                stone=a.stone + b.stone, steel=a.steel + b.steel)


def _value(need: Need) -> float:
    return need.points - LEAF_POINTS * need.tea


def best_allocation(needs: list[Need], have: Holdings) -> tuple[float, list[int]]:
    """The set of contracts to complete that scores most (contract points minus the leaves' half points).

    Branch and bound over the cards, most valuable first; memoised on the resources used so far.
    """
    candidates = sorted((n for n in needs if fits(n, have) and _value(n) > 0), key=_value, reverse=True)
    best: tuple[float, list[int]] = (0.0, [])
    suffix = [0.0] * (len(candidates) + 1)
    for i in range(len(candidates) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + _value(candidates[i])
    seen: set[tuple[int, Need]] = set()

    def search(i: int, used: Need, chosen: list[int]) -> None:
        nonlocal best
        score = _value(used)
        if score > best[0]:
            best = (score, list(chosen))
        if i == len(candidates) or score + suffix[i] <= best[0]:
            return
        key = (i, used)
        if key in seen:
            return
        seen.add(key)
        combined = combine(used, candidates[i])
        if fits(combined, have):
            chosen.append(candidates[i].card)
            search(i + 1, combined, chosen)
            chosen.pop()
        search(i + 1, used, chosen)

    search(0, Need(card=0), [])
    return best[0], sorted(best[1])


def holdings(state: State, seat: int) -> Holdings:
    """Markers on track, estates (not borrowed ones) and stations by kind, and the leaves in hand."""
    kinds = {"RUBBLE": 0, "STONE": 0, "OTHER": 0}
    for town, owners in enumerate(state["stations"]):
        for space, owner in enumerate(owners):
            if owner == seat:
                kinds[station_kind(STATIONS[town]["spaces"][space]["cost"])] += 1
    return Holdings(
        track=sum(1 for owner in state["track"] if owner == seat),
        estate=sum(1 for e in state["estates"] for s in e["spaces"] if s["owner"] == seat),
        rubble_stations=kinds["RUBBLE"], stone_stations=kinds["STONE"], other_stations=kinds["OTHER"],
        leaves=state["players"][seat]["tea_leaves"],
        iron_ore=state["players"][seat]["iron_ore"],
        stone=state["players"][seat]["stone"],
        steel=state["players"][seat]["steel"],
    )


def player_score(state: State, seat: int) -> dict[str, Any]:
    """One player's score sheet."""
    player = state["players"][seat]
    abilities = owned_abilities(state, seat)
    estates = sum(s["vp"] for e in state["estates"] for s in e["spaces"] if s["owner"] == seat)
    stations = sum(
        int(STATIONS[town]["spaces"][space].get("vp", 0))
        for town, owners in enumerate(state["stations"]) for space, owner in enumerate(owners) if owner == seat
    )
    track = sum(TRACK[i]["vp"] for i, owner in enumerate(state["track"]) if owner == seat)
    cards = [held["id"] for held in player["contracts"]]
    needs = [contract_need(card, "WAREHOUSE" in abilities) for card in cards
             if not any(r["kind"] == "chai_bonus" for r in CONTRACTS[card]["requirements"])]
    have = holdings(state, seat)
    _best, completed = best_allocation(needs, have)
    by_card = {need.card: need for need in needs}
    contract_points = sum(by_card[c].points for c in completed)
    leaves_used = sum(by_card[c].tea for c in completed)
    chai_cards = [c for c in cards if any(r["kind"] == "chai_bonus" for r in CONTRACTS[c]["requirements"])]
    contract_points += CHAI_CARD_POINTS * player["chai"] * len(chai_cards)
    completed = sorted(completed + chai_cards)
    chai = CHAI_POINTS[player["chai"]]
    leaves = LEAF_POINTS * (player["tea_leaves"] - leaves_used)
    equipment = 0 if state["n"] == 1 else EQUIPMENT_POINTS * len(player["equipment"])
    equipment += VERY_FINE_EXTRA if "VERY_FINE" in abilities else 0
    total = estates + stations + track + contract_points + chai + leaves + equipment
    return {"seat": seat, "estates": estates, "stations": stations, "track": track, "contracts": contract_points,
            "completed_contracts": completed, "chai": chai, "tea_leaves": leaves, "equipment": equipment,
            "total": float(total)}


def final_scores(state: State) -> list[dict[str, Any]]:
    """Every player's score sheet; borrowed estate markers go home first and score nothing."""
    for estate in state["estates"]:
        for space in estate["spaces"]:
            if space["borrower"] >= 0:
                state["players"][space["borrower"]]["markers"] += 1
                space["borrower"] = -1
    return [player_score(state, seat) for seat in range(state["n"])]

