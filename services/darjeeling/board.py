"""Region geometry: the grid of tile spaces and city squares, directions and neighbourhoods.

Spaces are addressed by a flat index ``row * cols + col``.  Everything here is static
per region and computed once at import.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from services.darjeeling.content import REGION_DATA

DIRECTIONS: tuple[str, ...] = ("NORTH", "EAST", "SOUTH", "WEST")
STEP: dict[str, tuple[int, int]] = {"NORTH": (-1, 0), "EAST": (0, 1), "SOUTH": (1, 0), "WEST": (0, -1)}
TURNS: tuple[str, ...] = ("STRAIGHT", "LEFT", "RIGHT", "BACK")
_TURN_OFFSET: dict[str, int] = {"STRAIGHT": 0, "RIGHT": 1, "BACK": 2, "LEFT": 3}

TILE = "T"
CITY = "C"
OUTSIDE = "."


def turned(facing: str, turn: str) -> str:
    """The direction a collector faces after ``turn``."""
    return DIRECTIONS[(DIRECTIONS.index(facing) + _TURN_OFFSET[turn]) % 4]


def opposite(direction: str) -> str:
    """The reverse direction."""
    return turned(direction, "BACK")


@dataclass(frozen=True)
class Region:
    """One starting region: its grid, city squares and the spaces next to a city."""

    name: str
    rows: int
    cols: int
    cells: tuple[str, ...]
    recommended_players: tuple[int, ...]

    def index(self, row: int, col: int) -> int:
        """Flat index of a grid cell."""
        return row * self.cols + col

    def coords(self, index: int) -> tuple[int, int]:
        """Row and column of a flat index."""
        return divmod(index, self.cols)

    def inside(self, row: int, col: int) -> bool:
        """Whether the cell belongs to the region (a tile space or a city)."""
        return 0 <= row < self.rows and 0 <= col < self.cols and self.cells[row * self.cols + col] != OUTSIDE

    def neighbour(self, index: int, direction: str) -> int | None:
        """The region space one step away, or ``None`` past the region's edge."""
        row, col = self.coords(index)
        d_row, d_col = STEP[direction]
        if not self.inside(row + d_row, col + d_col):
            return None
        return self.index(row + d_row, col + d_col)

    def ray(self, index: int, direction: str) -> tuple[int, ...]:
        """Spaces straight ahead from ``index`` up to the region's edge (walked once per region:
        legal collector moves and their prices walk them on every move)."""
        known = self._rays.get((index, direction))
        return known if known is not None else self._walk(index, direction)

    @cached_property
    def _rays(self) -> dict[tuple[int, str], tuple[int, ...]]:
        return {(index, way): self._walk(index, way) for index in range(len(self.cells)) for way in DIRECTIONS}

    def _walk(self, index: int, direction: str) -> tuple[int, ...]:
        spaces: list[int] = []
        current: int | None = self.neighbour(index, direction)
        while current is not None:
            spaces.append(current)
            current = self.neighbour(current, direction)
        return tuple(spaces)

    @cached_property
    def tile_spaces(self) -> tuple[int, ...]:
        """Spaces filled with tiles at setup, in reading order."""
        return tuple(i for i, cell in enumerate(self.cells) if cell == TILE)

    @cached_property
    def cities(self) -> tuple[int, ...]:
        """City squares."""
        return tuple(i for i, cell in enumerate(self.cells) if cell == CITY)

    @cached_property
    def drawn(self) -> tuple[tuple[int, int, int, str], ...]:
        """Each space of the region (tile space or city) as a view draws it: index, row, column and
        its kind when no tile lies there, in reading order (computed once; views draw it every move)."""
        return tuple(
            (index, *self.coords(index), "EMPTY" if cell == TILE else "CITY")
            for index, cell in enumerate(self.cells)
            if cell != OUTSIDE
        )

    def next_to_city(self, index: int) -> bool:
        """Whether a city is among the eight surrounding cells."""
        return index in self.city_neighbourhood

    @cached_property
    def city_neighbourhood(self) -> frozenset[int]:
        """Cells with a city horizontally, vertically or diagonally next to them."""
        near: set[int] = set()
        for city in self.cities:
            row, col = self.coords(city)
            for d_row in (-1, 0, 1):
                for d_col in (-1, 0, 1):
                    r, c = row + d_row, col + d_col
                    if (d_row or d_col) and 0 <= r < self.rows and 0 <= c < self.cols:
                        near.add(r * self.cols + c)
        return frozenset(near)

    def start_facings(self, index: int) -> tuple[str, ...]:
        """Facings allowed when starting on ``index``: back to the region's edge, front to a tile space.

        Empty for spaces that are not on the border (enclosed on all four sides).  Facing
        straight into a city is not offered: the collector's crate must point at tiles.
        """
        return self._start_facings.get(index, ())

    @cached_property
    def _start_facings(self) -> dict[int, tuple[str, ...]]:
        """Tile space -> its start facings, for the tile spaces that have any."""
        table: dict[int, tuple[str, ...]] = {}
        for index in self.tile_spaces:
            facings = tuple(
                direction
                for direction in DIRECTIONS
                if self.neighbour(index, opposite(direction)) is None
                and (ahead := self.neighbour(index, direction)) is not None
                and self.cells[ahead] == TILE
            )
            if facings:
                table[index] = facings
        return table


def _region(data: dict[str, object]) -> Region:
    rows = [str(row) for row in data["rows"]]  # type: ignore[attr-defined]
    width = max(len(row) for row in rows)
    cells = tuple("".join(row.ljust(width, OUTSIDE) for row in rows))
    recommended = tuple(int(p) for p in data["recommended_players"])  # type: ignore[attr-defined]
    return Region(name=str(data["name"]), rows=len(rows), cols=width, cells=cells, recommended_players=recommended)


REGIONS: dict[str, Region] = {str(entry["name"]): _region(entry) for entry in REGION_DATA}


def default_region(players: int) -> str:
    """The region recommended for this player count."""
    for region in REGIONS.values():
        if players in region.recommended_players:
            return region.name
    return "india"
