"""A human move is committed, then its rules service dies before the bots reply (issue #13, item 8).

Bots play in the conductor, which learns that a game needs it from the attention queue written
in the same atomic commit as the move, so the rules service that took the move has nothing left
to do for it.  To make "before the bots reply" certain, the conductor is down when the move is
committed; then the rules service is killed (``kill -9``, and left dead), the conductor comes back,
and the bot's reply must appear in the game's log in Redis.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import grpc
import pytest

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.games.records import LogEntry
from services.games.store import GameStore
from tests.support.fleet import Fleet
from tests.support.seeds import seed_hex

GAME = "darjeeling"
BOT_SEAT = 1


def _auth(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


def _wait(stub: rules_pb2_grpc.RulesServiceStub, game_id: str, human: bool) -> rules_pb2.Game:
    """Poll until the human (or the bot) is to act."""
    deadline = time.monotonic() + 60
    while True:
        game = stub.GetGame(rules_pb2.GetGameRequest(game_id=game_id), timeout=30)
        if (BOT_SEAT not in game.to_act) == human:
            return game
        assert time.monotonic() < deadline, f"{game_id}: seat to act never changed"
        time.sleep(0.05)


def _hand_over_to_the_bot(stub: rules_pb2_grpc.RulesServiceStub, game_id: str, token: str) -> int:
    """Play the human's random legal moves until the bot is to act; the version then."""
    rng = random.Random(8)
    for _ in range(200):
        legal = stub.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=game_id), metadata=_auth(token))
        request = rules_pb2.SubmitMovesRequest(
            game_id=game_id, moves=[rng.choice(list(legal.moves))], expected_version=legal.version
        )
        answer = stub.SubmitMoves(request, metadata=_auth(token), timeout=30)
        assert answer.status == "active"
        if BOT_SEAT in answer.to_act:
            return int(answer.version)
    raise AssertionError("the human never handed the turn to the bot")


async def _log_after(redis_url: str, game_id: str, version: int, seconds: float) -> list[LogEntry]:
    """The game's log entries after ``version``, waiting (boundedly) until there is one."""
    store = GameStore.from_url(redis_url)
    deadline = time.monotonic() + seconds
    try:
        while True:
            entries = await store.entries(game_id, after=version)
            if entries or time.monotonic() > deadline:
                return entries
            await asyncio.sleep(0.05)
    finally:
        await store.close()


@pytest.mark.chaos
def test_the_conductor_plays_the_bots_after_the_rules_service_that_took_the_move_died(tmp_path: Path) -> None:
    fleet = Fleet(tmp_path / "fleet", [GAME], with_gateway=False, lease_ms=3_000)
    fleet.start()
    rules, conductor = fleet.components[f"rules:{GAME}"], fleet.components["conductor"]
    try:
        with grpc.insecure_channel(f"127.0.0.1:{fleet.grpc_ports[GAME]}") as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            players = [rules_pb2.PlayerSpec(name="Asha"), rules_pb2.PlayerSpec(name="Bot", bot="random")]
            created = stub.CreateGame(
                rules_pb2.CreateGameRequest(players=players, seed_hex=seed_hex(21)),
                metadata=_auth(fleet.api_key),
                timeout=60,
            )
            _wait(stub, created.game_id, human=True)  # the bot may open: let the conductor play it
            conductor.kill()
            version = _hand_over_to_the_bot(stub, created.game_id, created.seats[0].token)
        rules.kill()
        conductor.start()
        entries = asyncio.run(_log_after(fleet.redis_url, created.game_id, version, seconds=60))
        assert not rules.alive()
    finally:
        fleet.stop()
    assert entries, "the game stalled: no bot move after the rules service died"
    assert entries[0].version == version + 1 and entries[0].seat == BOT_SEAT and entries[0].bot == "random"
