"""CPU of the ``SubmitMoves`` handlers alone, in process: two checkouts' rules code, alternated.

``bench grpc`` measures a whole rules service under load (gRPC's own machinery included) and
derives the handler's share by subtracting a ``ListLegalMoves`` measured apart: on a shared
two-core machine that figure moves by ±20 % between runs, more than a cut of a tenth of the
handler.  This calls ``RulesServicer.SubmitMoves`` (plain gRPC's), the same with a minimal
``read_mask`` (``masked``: only ``to_act`` read, as a bot listing its moves with
``ListLegalMoves`` reads; only in a checkout that has the field) and
``RenderedRulesServicer.SubmitMoves`` (without metadata, as ``rendered``, and as the gateway calls it,
``gateway``: events and, since ``answer_json``, the whole answer printed) as coroutines, each answer
serialized as the server would, with no server, against a
real Redis, and counts only the process CPU spent inside them: 32 two-seat games (Darjeeling, or
``--game``), a random legal move each per round.  Each checkout runs in its own interpreter, and the checkouts
take turns, so the machine's load falls on both alike; the medians and minima are printed.

    python -m bench.submit_handler --before /tmp/old --repeats 6 --rounds 4 [--game tea_rum]

``--before`` is another checkout with its ``gen/`` built (as ``BENCH_SERVER_ROOT``); without it
only this checkout is measured.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import checkouts
from tests.support.seeds import seed_hex

GAME = "darjeeling"
GAMES = 32
# What a bot that lists its moves with ListLegalMoves reads of a move's answer: who acts next.
MINIMAL_MASK = ["to_act"]


class _Context:
    """The one thing the handlers read from a gRPC context here: its metadata (none: English)."""

    def __init__(self, metadata: tuple[tuple[str, str], ...] = ()) -> None:
        self.metadata = metadata

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self.metadata


# What the gateway's call asks printed (services.common.callmeta, spelled out: a checkout from before
# an entry ignores it): the events and, since RenderedSubmit.answer_json, the whole answer.
GATEWAY_METADATA = (("chaiwala-print-events", "1"), ("chaiwala-print-answer", "1"))


async def _measure(game_type: str, url: str, rounds: int, seed: int) -> dict[str, float]:
    """CPU ms per call of each handler, in this interpreter's checkout."""
    from chaiwala.v1 import rules_pb2
    from services.common.interceptors import BEARER
    from services.common.registry import engine_for
    from services.games.store import GameStore
    from services.rules.rendered import RenderedRulesServicer
    from services.rules.service import RulesServicer

    store = GameStore.from_url(url)
    rules = RulesServicer(engine_for(game_type), store, frozenset({"bench"}))
    rendered = RenderedRulesServicer(rules).SubmitMoves
    calls: dict[str, Any] = {"plain": rules.SubmitMoves, "rendered": rendered, "gateway": rendered}
    contexts = {"gateway": _Context(GATEWAY_METADATA)}
    masks: dict[str, list[str]] = {}
    if "read_mask" in rules_pb2.SubmitMovesRequest.DESCRIPTOR.fields_by_name:  # a checkout before it: no row
        calls["masked"], masks["masked"] = rules.SubmitMoves, MINIMAL_MASK
    rng, context, out = random.Random(seed), _Context(), {}
    players = [rules_pb2.PlayerSpec(name="a"), rules_pb2.PlayerSpec(name="b")]
    for kind, call in calls.items():
        BEARER.set("bench")
        games = []
        for _ in range(GAMES):
            request = rules_pb2.CreateGameRequest(players=players, seed_hex=seed_hex(rng.randrange(1 << 30)))
            created = await rules.CreateGame(request, context)  # type: ignore[arg-type]
            games.append((created.game_id, [seat.token for seat in created.seats]))
        spent, count = 0.0, 0
        for _ in range(rounds):
            for game_id, tokens in games:
                BEARER.set("bench")
                game = await rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), context)  # type: ignore[arg-type]
                if game.status != "active":
                    continue
                BEARER.set(tokens[game.to_act[0]])
                listed = await rules.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=game_id), context)  # type: ignore[arg-type]
                move = rng.choice(list(listed.moves))
                submit = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[move], expected_version=listed.version)
                if kind in masks:
                    submit.read_mask.paths.extend(masks[kind])
                start = time.process_time()
                # The answer serialized too, as the server does: what it holds is part of the cost.
                (await call(submit, contexts.get(kind, context))).SerializeToString()
                spent += time.process_time() - start
                count += 1
        out[kind] = spent / count * 1000
    await store.close()
    return out


def _worker(root: str, game_type: str, url: str, rounds: int, seed: int) -> None:
    checkouts.enter(root)
    print(json.dumps(asyncio.run(_measure(game_type, url, rounds, seed))))


def main(argv: list[str]) -> None:
    """Alternate the checkouts ``--repeats`` times and print each handler's CPU ms per call."""
    parser = argparse.ArgumentParser(prog="python -m bench.submit_handler", description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout (with gen/) to compare with")
    parser.add_argument("--repeats", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=4, help="moves per game per measurement")
    parser.add_argument("--game", default=GAME, help="the game type played (default: darjeeling)")
    parser.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        root, game_type, url, rounds, seed = args.worker
        _worker(root, game_type, url, int(rounds), int(seed))
        return
    from services.common.embedded_redis import start_redis
    from services.common.sealing import key_file_unless_set

    with tempfile.TemporaryDirectory() as folder:
        key_file_unless_set(Path(folder) / "secret.keys")  # the workers seal seeds with it (inherited)
        redis = start_redis(Path(folder), appendonly=False)

        def measure(root: Path, turn: int) -> dict[str, float]:
            return checkouts.run_worker("bench.submit_handler", root, args.game, redis.url, str(args.rounds), str(turn))

        try:
            figures = checkouts.alternate(checkouts.roots(args.before), args.repeats, measure)
        finally:
            redis.stop()
    runs = f"runs of {args.rounds * GAMES} moves"
    checkouts.report(figures, args.game, lambda _: "CPU ms per SubmitMoves", digits=3, runs=runs)

if __name__ == "__main__":
    main(sys.argv[1:])
