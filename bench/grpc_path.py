"""gRPC ``SubmitMoves`` against a bare ``grpc.aio`` echo, same client, same concurrency.

N concurrent clients each play their own two-seat game straight against the rules service:
``ListLegalMoves`` then ``SubmitMoves`` (one unit = one move = two calls).  The baseline unit
is two echo calls carrying the same request bytes.  Beside the ratio: the latency of the
``SubmitMoves`` call alone against one echo call, and CPU milliseconds per call in the rules
service against the echo server's (the issue measured 0.74 ms against 0.23 ms).  Per layer (issue
#35), each against the bare echo's CPU per call: the protobuf work of a call (``Proto`` of
:mod:`bench.echo`), protobuf plus the rules services' interceptor (an echo server running it),
``ListLegalMoves`` alone, and ``SubmitMoves`` alone (a move's CPU less one ``ListLegalMoves``;
issue #35's goal against the echo was retired for the floor's, so this row has none).  Last,
the floor of a ``SubmitMoves`` (:mod:`bench.floor`: the bare method with the move's load and
commit in Redis and nothing else) against the same echo, and ``SubmitMoves`` against that floor
(``submit_moves_cpu_over_floor``, issue #47's goal ≤ 2×): the whole answer, though the players
read only who acts next (and the status, always sent).  Beside it, other players with a
``read_mask`` naming only what they read (``to_act``: they list their moves with
``ListLegalMoves``): ``submit_moves_masked_cpu_over_floor``, the masked call against the same
floor and goal.

The two ratios are measured interleaved on the servers already started: ``Config.pair_rounds``
rounds, each of moves, of ``ListLegalMoves`` alone, of masked moves and of the floor's method in
turn, ``Config.pair_seconds`` each (:func:`bench.checkouts.take_turns`).  A round's ``SubmitMoves``
is its moves' rules CPU per move less the same round's ``ListLegalMoves``; the ratio is the median
of the rounds' own ratios (``SubmitMoves`` / floor of the same round), the spread in the row's notes;
``submit_moves_cpu_per_call``, ``list_legal_moves_cpu_per_call`` and ``floor_submit_cpu_per_call``
are their rounds' medians.  The throughput row and ``rules_cpu_per_call`` come from one closed-loop
run before the rounds, as before.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import time
from typing import Any

from grpc import aio

from bench.checkouts import Figures, medians, paired, series, take_turns
from bench.config import Config
from bench.echo import METHOD, PROTO_METHOD
from bench.floor import COMMIT_METHOD, game_name
from bench.floor import METHOD as FLOOR_METHOD
from bench.load import Body, Tally, closed_loop, metered_loop, metered_round, percentile
from bench.procs import Child, stack
from bench.results import Row
from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from tests.support.seeds import seed_hex

SUITE = "grpc"
# What these players read of a move's answer (the version comes from ListLegalMoves; the status
# is always sent): the masked row's read_mask (services.rules.readmask).
MINIMAL_MASK = ("to_act",)
Stub = rules_pb2_grpc.RulesServiceStub


class GrpcPlayers:
    """Clients that each play one game against the rules service over gRPC."""

    def __init__(self, stub: rules_pb2_grpc.RulesServiceStub, seed: int = 1, read_mask: tuple[str, ...] = ()) -> None:
        self.stub = stub
        self.read_mask = read_mask  # empty: the whole answer
        self.games: dict[int, tuple[str, list[str], list[int]]] = {}
        self.random = random.Random(seed)
        self.submit_latencies: list[float] = []
        self.last_request = b""
        self.created = 0

    async def new_game(self, index: int) -> None:
        """A fresh two-seat game for client ``index``."""
        self.created += 1
        players = [rules_pb2.PlayerSpec(name="a"), rules_pb2.PlayerSpec(name="b")]
        created = await self.stub.CreateGame(
            rules_pb2.CreateGameRequest(players=players, seed_hex=seed_hex(self.created))
        )
        tokens = [seat.token for seat in created.seats]
        game = await self.stub.GetGame(rules_pb2.GetGameRequest(game_id=created.game_id), metadata=_bearer(tokens[0]))
        self.games[index] = (created.game_id, tokens, list(game.to_act))

    async def move(self, index: int) -> None:
        """One move: the legal moves of the seat to act, then one of them."""
        if index not in self.games or not self.games[index][2]:
            await self.new_game(index)
        game_id, tokens, to_act = self.games[index]
        metadata = _bearer(tokens[to_act[0]])
        listing = await self.stub.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=game_id), metadata=metadata)
        request = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[self.random.choice(listing.moves)])
        request.expected_version = listing.version
        request.read_mask.paths.extend(self.read_mask)
        self.last_request = request.SerializeToString()
        started = time.perf_counter()
        answer = await self.stub.SubmitMoves(request, metadata=metadata)
        self.submit_latencies.append(time.perf_counter() - started)
        self.games[index] = (game_id, tokens, list(answer.to_act) if answer.status == "active" else [])


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def _echo_run(
    echo: Child, payload: bytes, config: Config, method: str = METHOD, metadata: Any = None
) -> tuple[Tally, list[float]]:
    """Pairs of calls to ``method`` of an echo server carrying ``payload`` (a ``Proto`` method's
    request is parsed on both sides, as a rules service's is)."""
    latencies: list[float] = []
    async with aio.insecure_channel(f"127.0.0.1:{echo.port}") as channel:
        if method == METHOD:
            call = channel.unary_unary(METHOD)
            message: Any = payload
        else:
            call = channel.unary_unary(method, request_serializer=rules_pb2.SubmitMovesRequest.SerializeToString,
                                       response_deserializer=rules_pb2.SubmitMovesRequest.FromString)  # fmt: skip
            message = rules_pb2.SubmitMovesRequest.FromString(payload)

        async def pair(_: int) -> None:
            await call(message, metadata=metadata)
            started = time.perf_counter()
            await call(message, metadata=metadata)
            latencies.append(time.perf_counter() - started)

        return await closed_loop(pair, config.grpc_games, config.seconds, config.warmup), latencies


async def _cpu_per_call(server: Child, payload: bytes, config: Config, method: str, metadata: Any) -> float:
    """CPU ms ``server`` spends per call of ``method`` (warm-up included in the window: an upper bound)."""
    before = server.cpu()
    _, latencies = await _echo_run(server, payload, config, method, metadata)
    return round((server.cpu() - before) * 1000 / max(1, 2 * len(latencies)), 3)


def _listing(players: GrpcPlayers) -> Body:
    """A loop body of ``ListLegalMoves`` alone on ``players``' games (their answers are cached), so that
    SubmitMoves' share of a move's CPU can be told apart."""

    async def listing(index: int) -> None:
        game_id, tokens, to_act = players.games[index]
        request = rules_pb2.ListLegalMovesRequest(game_id=game_id)
        await players.stub.ListLegalMoves(request, metadata=_bearer(tokens[to_act[0] if to_act else 0]))

    return listing


async def _seated(stub: Stub, config: Config, read_mask: tuple[str, ...] = ()) -> GrpcPlayers:
    """Players with a fresh game each, their answers masked by ``read_mask``."""
    players = GrpcPlayers(stub, read_mask=read_mask)
    await asyncio.gather(*(players.new_game(i) for i in range(config.grpc_games)))
    return players


async def _played(rules: Child, players: GrpcPlayers, config: Config) -> tuple[Tally, float, list[float]]:
    """``players`` moving in a closed loop: the tally, the rules service's CPU seconds spent meanwhile
    (warm-up included, as the moves counted are) and the latencies of the SubmitMoves calls made."""
    before = rules.cpu()
    moves = await closed_loop(players.move, config.grpc_games, config.seconds, config.warmup)
    return moves, rules.cpu() - before, list(players.submit_latencies)


async def _rounds(rules: Child, floor: Child, players: GrpcPlayers, masked: GrpcPlayers, config: Config) -> Figures:
    """Interleaved rounds, ``config.pair_rounds`` times, each side ``config.pair_seconds`` long, on the
    servers already started: moves (both calls), ``ListLegalMoves`` alone, masked moves, and the floor's
    ``Move``; each side's CPU ms per unit by round."""
    async with aio.insecure_channel(f"127.0.0.1:{floor.port}") as channel:
        sides = {
            "submit": (rules, players.move),
            "listing": (rules, _listing(players)),
            "masked": (rules, masked.move),
            "floor": (floor, _floor_body(channel, FLOOR_METHOD)),
        }

        async def measure(side: tuple[Child, Body], turn: int) -> dict[str, float]:
            warmup = config.warmup if turn == 0 else 0.0  # the servers stay warm between rounds
            return await metered_round({"server": side[0]}, side[1], config.grpc_games, config.pair_seconds, warmup)

        return await take_turns(sides, config.pair_rounds, measure)


def _own(figures: Figures, side: str) -> list[float]:
    """SubmitMoves' own CPU ms in each round: a move's (both calls') less the same round's ListLegalMoves."""
    moves, listings = figures[side]["cpu_ms"], figures["listing"]["cpu_ms"]
    return [round(max(0.0, move - listing), 3) for move, listing in zip(moves, listings, strict=True)]


def _over_floor(own: list[float], figures: Figures) -> dict[str, Any]:
    """The notes of a row over the floor: both medians, the spread of the rounds' ratios."""
    pairs = paired(own, figures["floor"]["cpu_ms"])
    failed = {} if pairs.ratios else {"failed": "no round pair measured"}
    floor_ms = medians(figures["floor"])["cpu_ms"]
    return {"submit_moves_cpu_ms": round(statistics.median(own), 3), "floor_cpu_ms": floor_ms, **pairs.notes(),
            "ratio": pairs.median, "submit_moves_cpu_ms_per_round": series(own), **failed}  # fmt: skip


def _done(values: dict[str, list[float]]) -> dict[str, int]:
    """Units done and errors over every round of one side."""
    return {"done": int(sum(values["done"])), "errors": int(sum(values["errors"]))}


async def _measure(rules: Child, echo: Child, intercepted: Child, floor: Child, config: Config) -> list[Row]:
    async with aio.insecure_channel(f"127.0.0.1:{rules.port}") as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        players = await _seated(stub, config)
        moves, rules_cpu, submits = await _played(rules, players, config)
        figures = await _rounds(rules, floor, players, await _seated(stub, config, MINIMAL_MASK), config)
    token = (("authorization", "Bearer " + "t" * 43),)  # a seat token's length
    protobuf_ms = await _cpu_per_call(echo, players.last_request, config, PROTO_METHOD, token)
    interceptor_ms = await _cpu_per_call(intercepted, players.last_request, config, PROTO_METHOD, token)
    commit_tally, commit_ms = await _floor_cpu(floor, config, COMMIT_METHOD)
    echo_before = echo.cpu()
    base, echo_latencies = await _echo_run(echo, players.last_request, config)
    echo_cpu = echo.cpu() - echo_before
    details: dict[str, Any] = {
        **moves.summary(),
        "submit_p50_ms": _ms(percentile(submits, 0.5)),
        "submit_p99_ms": _ms(percentile(submits, 0.99)),
        "echo_p50_ms": _ms(percentile(echo_latencies, 0.5)),
        "echo_p99_ms": _ms(percentile(echo_latencies, 0.99)),
        # Whole measuring window (warm-up included) over the calls made in it: an upper bound.
        "rules_cpu_ms_per_call": round(rules_cpu * 1000 / max(1, 2 * len(submits)), 3),
        "echo_cpu_ms_per_call": round(echo_cpu * 1000 / max(1, 2 * len(echo_latencies)), 3),
    }
    over, masked = _over_floor(_own(figures, "submit"), figures), _over_floor(_own(figures, "masked"), figures)
    submit_ms, floor_ms = over["submit_moves_cpu_ms"], over["floor_cpu_ms"]
    listing_ms = medians(figures["listing"])["cpu_ms"]
    echo_ms = details["echo_cpu_ms_per_call"]
    layers = {"echo": echo_ms, "protobuf": protobuf_ms, "interceptor": interceptor_ms, "list_legal_moves": listing_ms,
              "submit_moves": submit_ms, "load_average": os.getloadavg()[0]}  # fmt: skip
    # CPU per call is the steadier figure on a busy machine: contention slows calls, it barely adds CPU.
    return [
        Row(SUITE, f"submit_moves_{config.grpc_games}_games", "moves/s", moves.rate, "echo_pairs", base.rate,
            details=details),
        Row(SUITE, "rules_cpu_per_call", "CPU ms", details["rules_cpu_ms_per_call"], "echo_cpu_per_call",
            echo_ms, better="lower"),
        Row(SUITE, "submit_moves_cpu_per_call", "CPU ms", submit_ms, "echo_cpu_per_call", echo_ms,
            better="lower", details=layers),
        # Issue #47: SubmitMoves against the floor of its shape (its load and commit, nothing else), in
        # interleaved rounds; the value is the median of the rounds' own ratios.
        Row(SUITE, "submit_moves_cpu_over_floor", "x floor", over["ratio"], "floor_same_round", 1.0,
            better="lower", goal=2.0, details={**over, **_done(figures["submit"]), **layers}),
        # The same against the same floor rounds, the answer masked to what the players read.
        Row(SUITE, "submit_moves_masked_cpu_over_floor", "x floor", masked["ratio"], "floor_same_round", 1.0,
            better="lower", goal=2.0,
            details={"call": "SubmitMoves with read_mask", "read_mask": ",".join(MINIMAL_MASK), **masked,
                     **_done(figures["masked"]), "unmasked_submit_moves": submit_ms}),
        Row(SUITE, "layer_protobuf_cpu_per_call", "CPU ms", protobuf_ms, "echo_cpu_per_call", echo_ms,
            better="lower"),
        Row(SUITE, "layer_protobuf_interceptor_cpu_per_call", "CPU ms", interceptor_ms, "echo_cpu_per_call",
            echo_ms, better="lower"),
        Row(SUITE, "list_legal_moves_cpu_per_call", "CPU ms", listing_ms, "echo_cpu_per_call", echo_ms,
            better="lower", details={"cpu_ms_per_round": series(figures["listing"]["cpu_ms"])}),
        Row(SUITE, "floor_submit_cpu_per_call", "CPU ms", floor_ms, "echo_cpu_per_call", echo_ms, better="lower",
            details={**_done(figures["floor"]), "rounds": len(figures["floor"]["cpu_ms"]),
                     "cpu_ms_per_round": series(figures["floor"]["cpu_ms"])}),
        Row(SUITE, "floor_commit_only_cpu_per_call", "CPU ms", commit_ms, "echo_cpu_per_call", echo_ms,
            better="lower", details=commit_tally.summary()),
    ]  # fmt: skip


def _floor_body(channel: aio.Channel, method: str) -> Body:
    """A loop body calling the floor's rules half (:mod:`bench.floor`: a load and a commit in Redis
    behind a bare ``grpc.aio`` method), what a ``SubmitMoves`` costs before any of its own work;
    with ``COMMIT_METHOD``, the commit alone (a position kept in the process)."""
    call = channel.unary_unary(method)

    async def move(index: int) -> None:
        await call(game_name(index).encode() + b'{"move":{"place":{"tile":"a1","space":12}}}')

    return move


async def _floor_cpu(floor: Child, config: Config, method: str) -> tuple[Tally, float]:
    """CPU ms per call of the floor's ``method`` (:func:`_floor_body`) over one closed-loop run."""
    async with aio.insecure_channel(f"127.0.0.1:{floor.port}") as channel:
        body = _floor_body(channel, method)
        tally, (used, _) = await metered_loop([floor], body, config.grpc_games, config.seconds, config.warmup)
    return tally, round(used * 1000 / max(1, tally.done), 3)


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def run(config: Config) -> list[Row]:
    """Start Redis, the rules service and the echo server; measure both."""
    with stack(config.workers) as running:
        rules = running.rules(config.game)
        echo = running.echo()
        intercepted = running.echo(intercepted=True)
        floor = running.floor_rules()
        return asyncio.run(_measure(rules, echo, intercepted, floor, config))
