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


def load_from_supply(state: State, seat: int, wanted: int) -> int:
    """Put up to ``wanted`` crates of ``seat`` from the supply on the top ship; return how many."""
    player = state["seats"][seat]
    from_supply = min(wanted, player["supply"])
    player["supply"] -= from_supply
    state["ships"][-1][seat] += from_supply
    return from_supply


def borrow_sources(state: State, seat: int) -> list[int]:
    """Ships below the top (indices from the bottom) holding crates of ``seat``: where a short supply borrows."""
    return [index for index, ship in enumerate(state["ships"][:-1]) if ship[seat]]


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
