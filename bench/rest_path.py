"""REST move path against a trivial FastAPI + Redis endpoint, same uvicorn worker count, same client.

Each of N concurrent clients plays its own two-seat game by random legal moves, closed loop:
``GET /legal-moves`` for the seat to act, then ``POST /moves`` with the expected version (a
new game when one ends).  One unit is one move (both requests).  The baseline's unit is one
request to an endpoint that does one Redis GET and one SET; both go through httpx.  Also
measured: CPU milliseconds per move in the gateway and the rules service (from ``/proc``, over the
measuring window only), beside the trivial endpoint's — and for the whole stack, Redis included
(``stack_cpu_per_move``, goal ≤ 4× the trivial endpoint's with Redis), plus the CPU the move's
servers take at rest (``idle_move_servers_cpu``) — and the move path's latency at half of its
saturation rate (paced loops), through :mod:`bench.lean_http` so that the client's own CPU (most
of a move's on two cores with httpx) stays out of a latency figure: see :func:`_half_saturation`.
Last, the shape's floor (:mod:`bench.floor`: the same requests, gRPC hop and Redis round trips
doing nothing else) against the trivial request, and the move against that floor
(``stack_cpu_per_move_over_floor_<N>_games``, issue #47's goal ≤ 1.5×), measured interleaved on the
servers already started: rounds of moves, of floor moves and of lean floor moves in turn
(``Config.pair_rounds`` of each, ``Config.pair_seconds`` long, :func:`bench.checkouts.take_turns`);
the ratio is the median of the rounds' own ratios (move / floor of the same round), its spread
(min, IQR, max, every round's) in the row's notes, and the floor rows are the medians of their
rounds.  A floor measured minutes after the move once moved 1.46-2.76 ms between runs with the
other tenants' load; within a round pair both sides see the same load.  Then, for
information only, the move in the one-request form the web client uses (``POST
/moves?include=legal_moves``, a ``GET legal-moves`` only when another seat is to act) against the
same floor (``stack_cpu_per_move_one_request_over_floor_<N>_games``; the floor stays two requests).
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from bench.checkouts import medians, paired, series, take_turns
from bench.config import Config
from bench.floor import floor_move
from bench.lean_http import LeanClient
from bench.load import Body, Metered, Refused, Tally, closed_loop, metered_loop, metered_round
from bench.procs import Child, Stack, stack
from bench.results import Row
from tests.support.seeds import seed_hex

SUITE = "rest"
Floor = tuple[Child, Child]  # the floor's gateway and rules halves (bench.floor)
Servers = tuple[Child, Child, Metered]  # the move's gateway, rules service and Redis


@dataclass
class Seat:
    """One client's game: its id, the seat tokens, the version and who is to act."""

    game_id: str
    tokens: list[str]
    version: int
    to_act: list[int]
    active: bool = True
    # The legal moves the last POST carried (``?include=legal_moves``): the mover's, at ``version``.
    carried: dict[str, Any] | None = None
    mover: int = -1


class Reply(Protocol):
    """What a client's answer offers (an ``httpx.Response``, a :class:`bench.lean_http.Answer`)."""

    @property
    def status_code(self) -> int: ...

    @property
    def text(self) -> str: ...

    def json(self) -> Any: ...


class Client(Protocol):
    """The requests :class:`Players` makes (``httpx.AsyncClient`` or :class:`bench.lean_http.LeanClient`)."""

    def get(self, url: str, *, headers: dict[str, str] | None = None) -> Awaitable[Reply]: ...

    def post(self, url: str, *, json: Any = None, headers: dict[str, str] | None = None) -> Awaitable[Reply]: ...


def _checked(answer: Reply) -> Any:
    if answer.status_code >= 400:
        raise Refused(answer.status_code, answer.text)
    return answer.json()


class Players:
    """Clients that each play one game of ``game_type`` through the gateway."""

    def __init__(self, client: Client, game_type: str, seed: int = 1, include: bool = False) -> None:
        self.client = client
        self.game_type = game_type
        # The one-request form the web client uses: each POST asks for the mover's next legal moves
        # (``?include=legal_moves``), and a GET legal-moves is made only when another seat is to act.
        self.include = include
        self.reads = 0  # GET legal-moves made
        self.games: dict[int, Seat] = {}
        self.random = random.Random(seed)
        self.created = 0

    async def new_game(self, index: int) -> None:
        """Create a fresh two-seat game for client ``index``."""
        self.created += 1
        body = {
            "game_type": self.game_type,
            "players": [{"name": "a"}, {"name": "b"}],
            "seed_hex": seed_hex(self.created),
        }
        created = _checked(await self.client.post("/v1/games", json=body))
        tokens = [seat["token"] for seat in created["seats"]]
        game = _checked(await self.client.get(f"/v1/games/{created['game_id']}", headers=_bearer(tokens[0])))
        self.games[index] = Seat(created["game_id"], tokens, game["version"], game["to_act"])

    async def start(self, games: int, at_once: int = 16, attempts: int = 3) -> None:
        """Create ``games`` games before the timing, ``at_once`` at a time, retrying a failed creation."""
        gate = asyncio.Semaphore(at_once)

        async def create(index: int) -> None:
            async with gate:
                for attempt in range(attempts):
                    try:
                        return await self.new_game(index)
                    except (httpx.HTTPError, OSError, Refused):
                        if attempt == attempts - 1:
                            raise
                        await asyncio.sleep(0.5)

        await asyncio.gather(*(create(i) for i in range(games)))

    async def move(self, index: int) -> None:
        """One move of client ``index``: legal moves of the seat to act, then a random one of them."""
        await self.submit(index, await self.choose(index))

    async def choose(self, index: int) -> Choice:
        """The first half of a move: the legal moves of the seat to act, and a random one of them."""
        game = self.games.get(index)
        if game is None or not game.active or not game.to_act:
            await self.new_game(index)
            game = self.games[index]
        seat = game.to_act[0]
        headers = _bearer(game.tokens[seat])
        listing = game.carried if game.mover == seat else None
        if listing is None or listing.get("version") != game.version:
            self.reads += 1
            listing = _checked(await self.client.get(f"/v1/games/{game.game_id}/legal-moves", headers=headers))
        if not listing["moves"]:
            raise Refused(0, "no legal move for the seat to act")
        body = {"move": self.random.choice(listing["moves"]), "expected_version": listing["version"]}
        return Choice(game, headers, body)

    async def submit(self, index: int, choice: Choice) -> None:
        """The second half: ``POST /moves`` with the chosen move; the game learns its new version."""
        game = choice.game
        path = f"/v1/games/{game.game_id}/moves" + ("?include=legal_moves" if self.include else "")
        answer = _checked(await self.client.post(path, json=choice.body, headers=choice.headers))
        game.mover = game.to_act[0] if game.to_act else -1
        game.version, game.to_act, game.active = answer["version"], answer["to_act"], answer["status"] == "active"
        game.carried = answer.get("legal_moves")


@dataclass
class Choice:
    """A move chosen but not yet posted: its game, the seat's headers and the request body."""

    game: Seat
    headers: dict[str, str]
    body: dict[str, Any]


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def http_client(port: int, connections: int) -> httpx.AsyncClient:
    """The throughput rows' client (httpx, with its default ``Accept-Encoding``), ``connections`` kept alive."""
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=30)


def _busy(cpu: float, tally: Tally) -> float:
    """The share of one core ``cpu`` seconds took over the measuring window."""
    return round(cpu / tally.seconds, 2) if tally.seconds else 0.0


def _cpu_ms(cpu: float, units: int) -> float:
    return round(cpu * 1000 / units, 3) if units else 0.0


async def _idle(servers: Sequence[Metered], config: Config) -> Row:
    """The share of one core the servers of a move (gateway, rules service, Redis) take at rest."""
    seconds = 1.0 if config.quick else max(10.0, config.seconds)
    before, started = [server.cpu() for server in servers], time.monotonic()
    await asyncio.sleep(seconds)
    elapsed = time.monotonic() - started
    used = [100 * (server.cpu() - cpu) / elapsed for server, cpu in zip(servers, before, strict=True)]
    details = {
        "window_s": seconds,
        "load_average": os.getloadavg()[0],
        **{getattr(server, "name", "?"): round(share, 3) for server, share in zip(servers, used, strict=True)},
    }
    return Row(SUITE, "idle_move_servers_cpu", "% of a core", round(sum(used), 3), "goal_percent", 1.0,
               better="lower", goal=1.0, details=details)  # fmt: skip


async def _measure(running: Stack, config: Config, gateway: Child, rules: Child, trivial: Child,
                   floor: Floor) -> list[Row]:  # fmt: skip
    redis = running.redis_meter()
    rows: list[Row] = [await _idle([gateway, rules, redis], config)]
    for games in config.rest_games:
        async with http_client(trivial.port, games) as client:

            async def request(_: int, client: httpx.AsyncClient = client) -> None:
                _checked(await client.get("/trivial"))

            base, (base_cpu, base_redis, base_client) = await metered_loop(
                [trivial, redis], request, games, config.seconds, config.warmup
            )
        async with http_client(gateway.port, games) as client:
            players = Players(client, config.game)
            await players.start(games)
            moves, (gateway_cpu, rules_cpu, redis_cpu, client_cpu) = await metered_loop(
                [gateway, rules, redis], players.move, games, config.seconds, config.warmup
            )
            details = {
                **moves.summary(),
                "baseline_p99_ms": base.summary()["p99_ms"],
                "gateway_cpu_ms_per_move": _cpu_ms(gateway_cpu, moves.done),
                "rules_cpu_ms_per_move": _cpu_ms(rules_cpu, moves.done),
                "redis_cpu_ms_per_move": _cpu_ms(redis_cpu, moves.done),
                "trivial_cpu_ms_per_request": _cpu_ms(base_cpu, base.done),
                "trivial_redis_cpu_ms_per_request": _cpu_ms(base_redis, base.done),
                "load_average": os.getloadavg()[0],
                "baseline_errors": sum(base.errors.values()),
                "client_cpu_ms_per_move": _cpu_ms(client_cpu, moves.done),
                "client_cpu_ms_per_trivial_request": _cpu_ms(base_client, base.done),
                "client_busy": _busy(client_cpu, moves),
                "client_busy_trivial": _busy(base_client, base),
                "servers_busy": _busy(gateway_cpu + rules_cpu, moves),
                "processes": f"gateway {gateway.processes()}, rules {rules.processes()}, trivial {trivial.processes()}",
            }
            rows.append(Row(SUITE, f"move_path_{games}_games", "moves/s", moves.rate, "trivial_get_set",
                            base.rate, goal=0.35 if games == 32 else None, details=details))  # fmt: skip
            per_move = details["gateway_cpu_ms_per_move"] + details["rules_cpu_ms_per_move"]
            rows.append(Row(SUITE, f"cpu_per_move_{games}_games", "CPU ms", per_move, "trivial_cpu_per_request",
                            details["trivial_cpu_ms_per_request"], better="lower"))  # fmt: skip
            # Every process of the stack: the move's servers and Redis, against the trivial endpoint and Redis.
            whole = per_move + details["redis_cpu_ms_per_move"]
            base_whole = details["trivial_cpu_ms_per_request"] + details["trivial_redis_cpu_ms_per_request"]
            load = {"load_average": details["load_average"]}
            rows.append(Row(SUITE, f"stack_cpu_per_move_{games}_games", "CPU ms", round(whole, 3),
                            "trivial_stack_cpu_per_request", round(base_whole, 3), better="lower",
                            goal=4.0 if games == 32 else None, details=load))  # fmt: skip
            if games == min(config.rest_games) and moves.rate > 0:
                rows.append(await _half_saturation(gateway.port, games, players, moves, config))
                rows.append(await _lean_comparison(gateway.port, trivial.port, games, config))
                floor_rows = await _floor(floor, (gateway, rules, redis), players, games, config, base_whole)
                rows += [*floor_rows, await _one_request(gateway, rules, redis, games, config, floor_rows[0].value)]
    return rows


async def _one_request(gateway: Child, rules: Child, redis: Metered, games: int, config: Config, floor: float) -> Row:
    """Informational, no goal: the stack's CPU per move in the one-request form the web client uses
    (``POST /moves?include=legal_moves``; a ``GET legal-moves`` only when another seat is to act),
    against the same floor as the two-request move (``floor``: its CPU ms, measured just before).  Not the
    issue's measure: the floor's shape stays two requests per move."""
    async with http_client(gateway.port, games) as client:
        players = Players(client, config.game, seed=9, include=True)
        await players.start(games)
        moves, (gateway_cpu, rules_cpu, redis_cpu, _) = await metered_loop(
            [gateway, rules, redis], players.move, games, config.seconds, config.warmup
        )
    whole = _cpu_ms(gateway_cpu + rules_cpu + redis_cpu, moves.done)
    details = {
        **moves.summary(),
        "informational": "one-request form (POST ?include=legal_moves); the goal row is the two-request move",
        "gets_per_move": round(players.reads / moves.done, 3) if moves.done else None,
        "gateway_cpu_ms_per_move": _cpu_ms(gateway_cpu, moves.done),
        "rules_cpu_ms_per_move": _cpu_ms(rules_cpu, moves.done),
        "redis_cpu_ms_per_move": _cpu_ms(redis_cpu, moves.done),
        "load_average": os.getloadavg()[0],
    }
    return Row(SUITE, f"stack_cpu_per_move_one_request_over_floor_{games}_games", "CPU ms", whole,
               "floor_stack_cpu_per_move", floor, better="lower", details=details)  # fmt: skip


async def _floor(floor: Floor, move: Servers, players: Players, games: int, config: Config,
                 trivial: float) -> list[Row]:  # fmt: skip
    """The shape's floor (:mod:`bench.floor`) and its lean variant against the trivial request, and the
    move against the floor, in interleaved rounds: ``config.pair_rounds`` times a round of moves (the
    ``players`` of the move path's row, on ``move``'s servers), a round of floor moves, a round of lean
    floor moves, each ``config.pair_seconds`` long, on the servers already started.  The move's ratio is
    the median of the rounds' own ratios, its spread in the notes.  ``trivial``: the whole stack's CPU
    ms per trivial request, measured before in the same run."""
    gateway, rules, redis = move
    floor_servers = {"gateway": floor[0], "rules": floor[1], "redis": redis}
    async with http_client(floor[0].port, games) as client:

        def floor_body(variant: str) -> Body:
            async def request(index: int) -> None:
                await floor_move(client, index, variant)

            return request

        sides = {
            "move": ({"gateway": gateway, "rules": rules, "redis": redis}, players.move),
            "floor": (floor_servers, floor_body("floor")),
            "lean": (floor_servers, floor_body("lean")),
        }

        async def measure(side: tuple[dict[str, Metered], Body], turn: int) -> dict[str, float]:
            warmup = config.warmup if turn == 0 else 0.0  # the servers stay warm between rounds
            return await metered_round(side[0], side[1], games, config.pair_seconds, warmup)

        figures = await take_turns(sides, config.pair_rounds, measure)
    pairs = paired(figures["move"]["cpu_ms"], figures["floor"]["cpu_ms"])
    floor_ms, move_ms = (medians(figures[side])["cpu_ms"] for side in ("floor", "move"))
    notes = {
        "move_cpu_ms": move_ms,
        "floor_cpu_ms": floor_ms,
        **pairs.notes(),
        "move_cpu_ms_per_round": series(figures["move"]["cpu_ms"]),
        **_by_process(figures["move"], figures["floor"]),
        "round_s": config.pair_seconds,
        "load_average": os.getloadavg()[0],
        **({} if pairs.ratios else {"failed": "no round pair measured"}),
    }
    return [
        Row(SUITE, f"floor_stack_cpu_per_move_{games}_games", "CPU ms", floor_ms, "trivial_stack_cpu_per_request",
            trivial, better="lower", details=_rounds(figures["floor"])),
        # Issue 47: within 1.5x the shape's floor; value = the median of the rounds' ratios (move / floor).
        Row(SUITE, f"stack_cpu_per_move_over_floor_{games}_games", "x floor", pairs.median,
            "floor_same_round", 1.0, better="lower", goal=1.5, details=notes),
        Row(SUITE, f"floor_lean_stack_cpu_per_move_{games}_games", "CPU ms", medians(figures["lean"])["cpu_ms"],
            "trivial_stack_cpu_per_request", trivial, better="lower", details=_rounds(figures["lean"])),
    ]  # fmt: skip


def _by_process(move: dict[str, list[float]], floor: dict[str, list[float]]) -> dict[str, float | str]:
    """Where the move's CPU above its floor goes: each process's median CPU ms per move on both sides
    (the gateway, the rules service, Redis) and the median over the rounds of its excess (move round
    less the floor round it was paired with), with every round's excess."""
    move_middle, floor_middle = medians(move), medians(floor)
    notes: dict[str, float | str] = {}
    for name in ("gateway", "rules", "redis"):
        excess = [top - bottom for top, bottom in zip(move.get(name, []), floor.get(name, []), strict=True)]
        notes[f"move_{name}_cpu_ms"] = move_middle.get(name, 0.0)
        notes[f"floor_{name}_cpu_ms"] = floor_middle.get(name, 0.0)
        notes[f"excess_{name}_cpu_ms"] = round(statistics.median(excess), 3) if excess else 0.0
        notes[f"excess_{name}_cpu_ms_per_round"] = series(excess)
    return notes


def _rounds(values: dict[str, list[float]]) -> dict[str, Any]:
    """A floor row's notes: units and errors over all its rounds, the medians per process, each round's."""
    middle = medians(values)
    details: dict[str, Any] = {
        "done": int(sum(values["done"])),
        "errors": int(sum(values["errors"])),
        **{f"{name}_cpu_ms_per_move": middle[name] for name in ("gateway", "rules", "redis")},
        "rounds": len(values["cpu_ms"]),
        "cpu_ms_per_round": series(values["cpu_ms"]),
        "load_average": os.getloadavg()[0],
    }
    if not sum(values["done"]):
        details["failed"] = "no floor move measured"
    return details


async def _lean_comparison(gateway_port: int, trivial_port: int, games: int, config: Config) -> Row:
    """The move path against the trivial endpoint with the lean client on both sides (no goal).

    Through httpx one client process is busy all the time while the servers are not (see
    ``client_busy`` and ``servers_busy`` in the move path's details), so that ratio mostly prices
    httpx's work per request; with a client that costs little the servers saturate instead, and
    this ratio prices the servers' work per move against theirs per trivial request.
    """
    async with LeanClient(trivial_port) as client:

        async def request(_: int, client: LeanClient = client) -> None:
            _checked(await client.get("/trivial"))

        base = await closed_loop(request, games, config.seconds, config.warmup)
    async with LeanClient(gateway_port) as client:
        lean = Players(client, config.game, seed=5)
        await lean.start(games)
        moves = await closed_loop(lean.move, games, config.seconds, config.warmup)
    details = {**moves.summary(), "client": "bench.lean_http", "baseline_p99_ms": base.summary()["p99_ms"]}
    return Row(SUITE, f"move_path_lean_client_{games}_games", "moves/s", moves.rate, "trivial_get_set_lean_client",
               base.rate, details=details)  # fmt: skip


async def _paced(players: Players, games: int, saturated: Tally, config: Config) -> Tally:
    """Moves offered at half of ``saturated``'s rate (paced loops, same games)."""
    return await closed_loop(players.move, games, config.seconds, config.warmup, pace=games / (saturated.rate / 2))


async def _half_saturation(port: int, games: int, players: Players, saturated: Tally, config: Config) -> Row:
    """p99 latency of a move when moves arrive at half the saturated rate, through the lean client.

    The lean client (:mod:`bench.lean_http`) finds its own saturation first (it saturates the
    servers at a higher rate than httpx, whose CPU is most of a move's on two cores), then offers
    half of it.  The same figure through httpx (paced at half of httpx's saturation) is in the
    details, for comparison with earlier runs.
    """
    through_httpx = await _paced(players, games, saturated, config)
    async with LeanClient(port) as client:
        lean = Players(client, players.game_type, seed=3)
        await lean.start(games)
        lean_saturated = await closed_loop(lean.move, games, config.seconds, config.warmup)
        paced = await _paced(lean, games, lean_saturated, config) if lean_saturated.rate else Tally()
    details = {
        **paced.summary(),
        "client": "bench.lean_http",
        "offered_moves_per_s": round(lean_saturated.rate / 2, 1),
        "saturated_moves_per_s": round(lean_saturated.rate, 1),
        "httpx_p50_ms": through_httpx.summary()["p50_ms"],
        "httpx_p99_ms": through_httpx.summary()["p99_ms"],
        "httpx_offered_moves_per_s": round(saturated.rate / 2, 1),
    }
    if not paced.done:
        details["failed"] = "no move measured"
    return Row(SUITE, f"move_p99_at_half_saturation_{games}_games", "ms", paced.summary()["p99_ms"],
               "goal_ms", 25.0, better="lower", goal=1.0, details=details)  # fmt: skip


def run(config: Config) -> list[Row]:
    """Start Redis, the rules service, the gateway and the trivial endpoint; measure every game count."""
    with stack(config.workers) as running:
        rules = running.rules(config.game)
        gateway = running.gateway({config.game: rules})
        trivial = running.trivial()
        floor_rules = running.floor_rules()
        floor = (running.floor_gateway(floor_rules), floor_rules)
        return asyncio.run(_measure(running, config, gateway, rules, trivial, floor))
