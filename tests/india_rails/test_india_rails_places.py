"""India Rails sentences name places a player can find on the map (issue #42, item 6).

A milepost is a city's name, a major city's edge, or the grid walk to it from the nearest city;
never "milepost 947".  Two legal moves of one seat never read the same.
"""

from __future__ import annotations

import json
import re

import pytest

from services.common.engine import Move
from services.common.registry import engine_for
from services.common.rng import Rng, Seed
from services.common.runner import Match
from services.common.sentences import LANGUAGES, sentences_for
from services.india_rails import places
from services.india_rails.content import BOARD
from tests.support.seeds import seed_hex

NUMBERED = re.compile(r"\b(milepost|casilla)s? (number |n\.?º ?)?\d+\b", re.IGNORECASE)
NAMES = ["Asha", "Bikram", "Chitra", "Devika", "Eshan", "Farida"]


def test_the_names_file_is_what_the_map_gives() -> None:
    written = json.loads(places.PLACES_FILE.read_text(encoding="utf-8"))
    assert written == places.current(), "run: python -m services.india_rails.places"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_milepost_has_its_own_name_and_no_number(language: str) -> None:
    names = places.current()[language]
    assert len(names) == BOARD.count
    assert len(set(names.values())) == BOARD.count
    assert not [name for name in names.values() if NUMBERED.search(name) or re.search(r"\d{3}", name)]


@pytest.mark.parametrize(
    ("offset", "walk"),
    [
        ((2, 0), [(1, "east")]),
        ((1, 1), [(1, "north-east")]),
        ((0, 2), [(2, "north")]),
        ((-4, 0), [(2, "west")]),
        ((3, -1), [(1, "south-east"), (1, "east")]),
        ((-1, 3), [(2, "north"), (1, "north-west")]),
        ((1, -5), [(4, "south"), (1, "south-east")]),
    ],
)
def test_a_walk_goes_along_the_grid(offset: tuple[int, int], walk: list[tuple[int, str]]) -> None:
    assert places._walk(*offset) == walk


def test_a_neighbour_of_a_city_is_one_step_from_it() -> None:
    agra = BOARD.cities["Agra"].anchor
    names = places.current()
    for neighbour, _edge in BOARD.adjacency[agra]:
        if not BOARD.city_at[neighbour]:
            assert names["en"][str(neighbour)].startswith("1 milepost "), names["en"][str(neighbour)]
            assert names["en"][str(neighbour)].endswith(" of Agra")
            assert names["es"][str(neighbour)].endswith(" de Agra")


def _read_moves(match: Match, seat: int, players: int) -> None:
    engine, sentences = match.engine, sentences_for("india_rails")
    moves: list[Move] = engine.legal_moves(match.state, seat)
    for language in LANGUAGES:
        texts = [sentences.move_text(move, seat, NAMES[:players], language) for move in moves]
        shared = {t for t in texts if texts.count(t) > 1}
        assert not shared, f"{language}: {len(shared)} sentences shared by two moves, e.g. {sorted(shared)[:3]}"
        numbered = [t for t in texts if NUMBERED.search(t)]
        assert not numbered, numbered[:3]


@pytest.mark.parametrize(("number", "players"), [(1, 2), (2, 3), (3, 4), (4, 2), (5, 6)])
def test_first_turns_read_differently_for_every_move_and_name_no_milepost_numbers(number: int, players: int) -> None:
    engine = engine_for("india_rails")
    match = Match.start(engine, players, Seed(int(seed_hex(number), 16)))
    rng = Rng(number)
    for _ in range(40):  # the opening builds of every seat and then some
        if engine.is_over(match.state):
            break
        seat = match.to_act()[0]
        _read_moves(match, seat, players)
        match.play(seat, rng.choice(engine.legal_moves(match.state, seat)))
