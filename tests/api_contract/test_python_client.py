"""Python stays first-class: a client generated from the served document plays every game type.

``openapi-python-client`` (pinned in the dev extra) generates a package from ``/openapi.json``
into a temporary folder (never committed); a seat of each game type then plays through it alone
(create, read the game, legal moves, moves pinned to their version, resign) against a random bot
until the game has its result.  The moves are sent back as the typed models the legal-moves answer
was parsed into, so each game's move models must round-trip.
"""

from __future__ import annotations

import importlib
import random
import time
from typing import Any

import httpx
import pytest

from tests.support.seeds import seed_hex

PACKAGE = "chaiwala_client"  # python_client (tests/api_contract/conftest.py)
GAMES = ("alubari", "darjeeling", "tea_rum", "india_rails")
MOVES = 20  # the seat's own moves before it resigns, if the game has not ended by then
WAIT_SECONDS = 60


def _api(name: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.api.{name}")


def _my_turn_or_over(game_api: Any, seat: Any, game_id: str) -> Any:
    """Poll the game (through the generated client) until seat 0 is to act or the game is over."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        game = game_api.get_game.sync(game_id, client=seat)
        if game.status in ("finished", "aborted") or (game.status == "active" and 0 in game.to_act):
            return game
        assert time.monotonic() < deadline, f"{game_id}: the bot never answered ({game.status}, {game.to_act})"
        time.sleep(0.05)


@pytest.mark.parametrize("game_type", GAMES)
def test_a_generated_python_client_plays_a_game_to_its_result(
    python_client: Any, client: httpx.Client, game_type: str
) -> None:
    models = importlib.import_module(f"{PACKAGE}.models")
    games = _api("games")
    importlib.import_module(f"{PACKAGE}.api.games.get_game")  # games.get_game below
    anonymous = python_client.Client(base_url=str(client.base_url))
    bot = models.ChaiwalaV1PlayerSpecBot("random")  # bot names are an enum
    players = [models.ChaiwalaV1PlayerSpec(name="Asha"), models.ChaiwalaV1PlayerSpec(name="Bot", bot=bot)]
    body = models.ChaiwalaV1CreateGameBody(
        game_type=models.ChaiwalaV1CreateGameBodyGameType(game_type), players=players, seed_hex=seed_hex(3)
    )
    created = importlib.import_module(f"{PACKAGE}.api.games.create_game").sync(client=anonymous, body=body)
    assert isinstance(created, models.ChaiwalaV1CreateGameResponse), created
    seat = python_client.AuthenticatedClient(base_url=str(client.base_url), token=created.seats[0].token)
    name = game_type.title().replace("_", "")
    # A move is a union of its kinds: one class per kind (Chaiwala<Game>V1MoveLegalType<n>).
    move_class = f"Chaiwala{name}V1MoveLegalType"
    state_type = getattr(models, f"Chaiwala{name}V1StatePacked")
    listing = importlib.import_module(f"{PACKAGE}.api.moves.list_legal_moves")
    submit = importlib.import_module(f"{PACKAGE}.api.moves.submit_moves")
    rng = random.Random(game_type)
    played = 0
    game = _my_turn_or_over(games, seat, created.game_id)
    while game.status == "active" and played < MOVES:
        legal = listing.sync(created.game_id, client=seat)
        assert isinstance(legal, models.ChaiwalaV1LegalMoves), legal
        assert legal.moves and all(type(move).__name__.startswith(move_class) for move in legal.moves)
        move = rng.choice([m for m in legal.moves if "take_back" not in m.to_dict()] or legal.moves)
        answer = submit.sync(created.game_id, client=seat, body=models.ChaiwalaV1SubmitMovesBody(
            move=move, expected_version=legal.version
        ))
        assert isinstance(answer, models.ChaiwalaV1SubmitMovesResponse), answer
        assert answer.version > legal.version and isinstance(answer.state, state_type)
        played += 1
        game = _my_turn_or_over(games, seat, created.game_id)
    if game.status == "active":
        resigned = importlib.import_module(f"{PACKAGE}.api.games.resign").sync(created.game_id, client=seat)
        assert isinstance(resigned, models.ChaiwalaV1Game), resigned
        game = games.get_game.sync(created.game_id, client=seat)
    assert game.status == "finished" and game.result is not None, game
    assert played > 0
    assert isinstance(game.state, state_type)
