"""Phase III: laying out tiles of one variety, action tiles, loading the ship, discarding and bonuses."""

from __future__ import annotations

from itertools import product
from typing import Any

from services.common.engine import Event, State
from services.darjeeling.board import Region
from services.darjeeling.content import ACTION_TILES, ACTIONS, COSTS, SHIPPING_CRATES, TILES, VARIETIES
from services.darjeeling.movement import tile_json
from services.darjeeling.wharf import borrow_sources, load_from_supply, raise_demand, sail_lowest_ship

HALVES_KEYS: tuple[str, ...] = ("one_half", "two_halves", "three_halves")


def held_by_kind(tiles: list[int]) -> dict[str, list[list[int]]]:
    """Held tile ids grouped by variety, then by halves (index 0 = one half)."""
    groups: dict[str, list[list[int]]] = {v: [[], [], []] for v in VARIETIES}
    for tile in sorted(tiles):
        kind = TILES[tile]
        groups[kind.variety][kind.halves - 1].append(tile)
    return groups


def whole_crates(tiles: list[int]) -> int | None:
    """Whole crates the tiles form together, or ``None`` when a half crate would stay open."""
    halves = sum(TILES[t].halves for t in tiles)
    return halves // 2 if halves % 2 == 0 else None


def can_play(state: State, seat: int, action: str) -> bool:
    """Whether ``seat`` may still play an action tile for ``action`` this loading."""
    shipment = state["shipment"]
    played = shipment["played"] if shipment else []
    if action in played or len(played) >= COSTS.action_tiles_per_loading:
        return False
    return any(action in ACTION_TILES[t] for t in state["seats"][seat]["actions"])


def loadable(crates: int, next_to_city: bool, played: list[str]) -> int:
    """Crates that may go on the ship: one fewer away from a city unless no-rotting was played."""
    if next_to_city or "NO_ROTTING" in played:
        return crates
    return crates - 1


def most_loadable(shipment: dict[str, Any]) -> int:
    """The most crates the laid-out shipment may load now (a player has only so many shipping crates)."""
    return min(loadable(shipment["crates"], shipment["near"], shipment["played"]), SHIPPING_CRATES)


def lay_out_moves(state: State, region: Region, seat: int) -> list[dict[str, Any]]:
    """Every shipment ``seat`` may lay out: one variety, counts of tiles by halves, whole crates only.

    A shipment that could never load a crate (one crate away from a city without a
    no-rotting action tile) is not offered.
    """
    player = state["seats"][seat]
    near = region.next_to_city(player["pos"])
    rescue = can_play(state, seat, "NO_ROTTING")
    moves: list[dict[str, Any]] = []
    for variety, groups in held_by_kind(player["tiles"]).items():
        ranges = [range(len(group) + 1) for group in groups]
        for counts in product(*ranges):
            halves = counts[0] + 2 * counts[1] + 3 * counts[2]
            if halves == 0 or halves % 2:
                continue
            crates = halves // 2
            if loadable(crates, near, []) < 1 and not rescue:
                continue
            move = {"variety": variety, **dict(zip(HALVES_KEYS, counts, strict=True))}
            moves.append({"lay_out": move})
    return moves


def lay_out(state: State, region: Region, seat: int, choice: dict[str, Any]) -> list[Event]:
    """Take the chosen tiles from behind the screen and show them."""
    player = state["seats"][seat]
    groups = held_by_kind(player["tiles"])[choice["variety"]]
    chosen: list[int] = []
    for halves, key in enumerate(HALVES_KEYS):
        chosen.extend(groups[halves][: choice[key]])
    for tile in chosen:
        player["tiles"].remove(tile)
    crates = whole_crates(chosen) or 0
    state["shipment"] = {
        "variety": choice["variety"],
        "tiles": chosen,
        "crates": crates,
        "played": [],
        "played_tiles": [],
        "near": region.next_to_city(player["pos"]),
    }
    event = {"seat": seat, "variety": choice["variety"], "tiles": [tile_json(t) for t in chosen], "crates": crates}
    return [{"tiles_laid_out": event}]


def loading_moves(state: State, seat: int) -> list[dict[str, Any]]:
    """While loading: each action tile that may still be played, loading any number of crates from
    one up to what the shipment allows, and taking the shipment back (once a turn).

    An action that would leave a shipment unable to load (no no-rotting left for a
    single crate away from a city) is not offered, so loading stays reachable.
    """
    shipment = state["shipment"]
    can_load = loadable(shipment["crates"], shipment["near"], shipment["played"]) >= 1
    moves: list[dict[str, Any]] = [
        {"play_action": {"action": action}}
        for action in ACTIONS
        if can_play(state, seat, action) and (can_load or action == "NO_ROTTING" or _rescue_after(state, seat, action))
    ]
    moves.extend({"load": {"crates": crates}} for crates in range(1, most_loadable(shipment) + 1))
    if not state["taken_back"]:
        moves.append({"take_back": {}})
    return moves


def _pick_action_tile(tiles: list[int], action: str) -> int:
    """The held tile played for ``action``: one offering fewest other actions, then the lowest id."""
    return min((t for t in tiles if action in ACTION_TILES[t]), key=lambda t: (len(ACTION_TILES[t]), t))


def _rescue_after(state: State, seat: int, action: str) -> bool:
    """Whether no-rotting could still be played after playing ``action``."""
    played = state["shipment"]["played"]
    if len(played) + 1 >= COSTS.action_tiles_per_loading:
        return False
    tiles = list(state["seats"][seat]["actions"])
    tiles.remove(_pick_action_tile(tiles, action))
    return any("NO_ROTTING" in ACTION_TILES[t] for t in tiles)


def play_action(state: State, seat: int, action: str) -> list[Event]:
    """Play a held action tile for ``action``; the tile goes back to the supply at once."""
    player = state["seats"][seat]
    tile = _pick_action_tile(player["actions"], action)
    player["actions"].remove(tile)
    state["action_supply"].append(tile)
    state["action_supply"].sort()
    state["shipment"]["played"].append(action)
    state["shipment"]["played_tiles"].append(tile)
    return [{"action_played": {"seat": seat, "action": action}}]


def take_back(state: State, seat: int) -> list[Event]:
    """Put the laid-out tiles, and any action tiles played for them, back behind the screen.

    Nothing was loaded, so the action tiles had no effect; the same tiles come back.
    """
    shipment = state["shipment"]
    player = state["seats"][seat]
    player["tiles"].extend(shipment["tiles"])
    for tile in shipment["played_tiles"]:
        state["action_supply"].remove(tile)
        player["actions"].append(tile)
    state["shipment"] = None
    state["taken_back"] = True
    event = {
        "seat": seat,
        "variety": shipment["variety"],
        "crates": shipment["crates"],
        "tile_count": len(player["tiles"]),
        "action_tile_count": len(player["actions"]),
    }
    return [{"shipment_taken_back": event}]


def load(state: State, seat: int, crates: int) -> tuple[list[Event], bool]:
    """Load ``crates``: the lowest ship leaves, the crates go on the new top ship from the supply.

    When the supply runs short the rest is moved over from the player's other ships; unless
    only one choice is possible the player picks them (:func:`borrow_crate`).  Returns the
    events and whether the loading is complete.
    """
    returned = sail_lowest_ship(state)
    from_supply = load_from_supply(state, seat, crates)
    state["shipment"]["loading"] = {
        "returned": returned,
        "from_supply": from_supply,
        "loaded": from_supply,
        "to_borrow": crates - from_supply,
    }
    if _borrow_forced(state, seat):
        return finish_load(state, seat), True
    sailed = {"seat": seat, "returned": returned, "loaded": from_supply, "to_borrow": crates - from_supply}
    return [{"ship_sailed": sailed}], False


def borrow_moves(state: State, seat: int) -> list[dict[str, Any]]:
    """Each ship (below the top) a crate of ``seat`` may be moved over from."""
    return [{"borrow_crate": {"ship": ship}} for ship in borrow_sources(state, seat)]


def borrow_crate(state: State, seat: int, ship: int) -> tuple[list[Event], bool]:
    """Move one of ``seat``'s crates from ``ship`` onto the top ship; finish loading once none are missing."""
    loading = _move_over(state, seat, ship)
    events: list[Event] = [{"crate_borrowed": {"seat": seat, "ship": ship, "to_borrow": loading["to_borrow"]}}]
    if _borrow_forced(state, seat):
        return events + finish_load(state, seat), True
    return events, False


def _borrow_forced(state: State, seat: int) -> bool:
    """Whether the loading is complete once what leaves no choice is moved over.

    No choice: nothing is missing, the crates can come from one ship only, or every crate afloat
    below the top is needed.
    """
    loading = state["shipment"]["loading"]
    sources = borrow_sources(state, seat)
    available = sum(state["ships"][ship][seat] for ship in sources)
    if loading["to_borrow"] and len(sources) > 1 and loading["to_borrow"] < available:
        return False
    for ship in sources:
        while state["ships"][ship][seat] and loading["to_borrow"]:
            _move_over(state, seat, ship)
    return True


def _move_over(state: State, seat: int, ship: int) -> dict[str, Any]:
    """One crate of ``seat`` from ``ship`` to the top ship; returns the loading's progress."""
    loading: dict[str, Any] = state["shipment"]["loading"]
    state["ships"][ship][seat] -= 1
    state["ships"][-1][seat] += 1
    loading["loaded"] += 1
    loading["to_borrow"] -= 1
    return loading


def finish_load(state: State, seat: int) -> list[Event]:
    """Discard the shown tiles to the warehouse and score the demand and quantity bonuses."""
    shipment = state["shipment"]
    player = state["seats"][seat]
    loading = shipment["loading"]
    loaded = loading["loaded"]
    returned_to_bag = len(state["warehouse"])
    state["bag"].extend(state["warehouse"])
    state["warehouse"] = list(shipment["tiles"])
    demand = raise_demand(state["chute"], shipment["variety"])
    if "DOUBLE_DEMAND" in shipment["played"]:
        demand *= 2
    quantity = loaded if loaded >= COSTS.quantity_bonus_from else 0
    player["score"] += demand + quantity
    state["shipment"] = None
    event = {
        "seat": seat,
        "returned": loading["returned"],
        "loaded": loaded,
        "borrowed": loaded - loading["from_supply"],
        "returned_to_bag": returned_to_bag,
        "demand_points": demand,
        "quantity_points": quantity,
        "score": player["score"],
        "chute": list(state["chute"]),
    }
    return [{"ship_loaded": event}]
