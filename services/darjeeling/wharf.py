"""The wharf: ships in their berths, phase I scoring, loading a ship and the demand chute.

Ships are lists of crate counts by seat, ordered from the bottom berth (lowest
multiplier, next to leave) to the top berth.  The chute lists demand markers top first.
"""

from __future__ import annotations

from services.common.engine import State
from services.darjeeling.content import BERTHS, STRIPS


def multipliers(state: State) -> tuple[int, ...]:
    """The multiplier strip of the game's player count, bottom berth first."""
    return STRIPS[state["players"]]


def water_tiles(state: State) -> int:
    """Berths left without a ship, covered by water tiles."""
    return BERTHS - len(multipliers(state))


def ship_points(state: State, seat: int) -> int:
    """Phase I: crates of ``seat`` on each ship times that berth's multiplier, summed."""
    return sum(ship[seat] * mult for ship, mult in zip(state["ships"], multipliers(state), strict=True))


def sail_lowest_ship(state: State) -> list[int]:
    """The lowest ship leaves, its crates go home, the others move down and it returns, empty, at the top.

    Returns the crates that went home, by seat.
    """
    departed = state["ships"].pop(0)
    for seat, count in enumerate(departed):
        state["seats"][seat]["supply"] += count
    state["ships"].append([0] * len(departed))
    return departed


def load_top_ship(state: State, seat: int, wanted: int) -> tuple[int, int]:
    """Put up to ``wanted`` crates of ``seat`` on the top ship.

    Crates come from the supply first; when it runs short, the player's crates on
    other ships are moved over, lowest berth first (they are worth least there).
    Returns ``(loaded, borrowed)``.
    """
    player = state["seats"][seat]
    top = state["ships"][-1]
    from_supply = min(wanted, player["supply"])
    player["supply"] -= from_supply
    top[seat] += from_supply
    borrowed = 0
    for ship in state["ships"][:-1]:
        while ship[seat] and from_supply + borrowed < wanted:
            ship[seat] -= 1
            top[seat] += 1
            borrowed += 1
    return from_supply + borrowed, borrowed


def markers_between(chute: list[str], variety: str) -> int:
    """Markers of other varieties between the two markers of ``variety``."""
    first = chute.index(variety)
    second = chute.index(variety, first + 1)
    return second - first - 1


def raise_demand(chute: list[str], variety: str) -> int:
    """Move the lower marker of ``variety`` to the top of the chute; return the demand bonus it yields."""
    lower = len(chute) - 1 - chute[::-1].index(variety)
    chute.insert(0, chute.pop(lower))
    return markers_between(chute, variety)
